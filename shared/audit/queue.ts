import { createHash } from "node:crypto";
import { Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";
import type { Db } from "../db/database.ts";
import type { AuditQueueCounts } from "../metrics.ts";
import { createRedisConnection, logRedisConnection, type RedisLogger } from "../redis.ts";
import type { AuditTarget } from "./audit-site.ts";
import type { SiteAuditor } from "./auditor.ts";
import { readCurrentAudits } from "./cache.ts";
import type { AuditEvidence, SiteAudit } from "./types.ts";

export const SITE_AUDIT_QUEUE = "site-audit";
export const SITE_AUDIT_JOB = "audit-homepage";

/** The job payload: what producers send and the worker validates. No secrets, nothing else. */
export const auditJobSchema = z.strictObject({
  placeId: z.string().min(1),
  url: z.url(),
  country: z.string().length(2).nullable(),
  /** A site_unreachable check's second attempt: how the first ended (audit-site.ts, confirmationOf). */
  firstAttempt: z.strictObject({ at: z.string(), result: z.string() }).optional(),
});
export type AuditJob = z.infer<typeof auditJobSchema>;

const signal = z.boolean().nullable();
/**
 * A job's result: the audit the worker stored, so the producer need not read it back. Loose
 * objects: a signal or evidence field added later passes through a producer that does not know it.
 */
const auditJobResultSchema = z.object({
  place_id: z.string(),
  url: z.string(),
  outcome: z.enum(["ok", "failed"]),
  failure: z.string().nullable(),
  signals: z.looseObject({
    no_mobile_viewport: signal,
    legacy_site_tech: signal,
    stale_copyright: signal,
    last_media_year: z.number().nullable(),
    stale_content: signal,
    no_french_version: signal,
    not_mobile_friendly: signal,
    outdated_website: signal,
  }),
  evidence: z.looseObject({}),
  audited_at: z.coerce.date(),
});

/** The audit in a job's return value; undefined for a result of another shape (an older worker's). */
function auditFromJobResult(result: unknown): SiteAudit | undefined {
  const parsed = auditJobResultSchema.safeParse(result);
  if (!parsed.success) return undefined;
  // Evidence is our own analysis's output, passed through Redis as JSON: its fields are the ones
  // AuditEvidence declares (zod checked the object, the analysis wrote the fields).
  return { ...parsed.data, evidence: parsed.data.evidence as AuditEvidence };
}

/** Same place and URL, same job: concurrent searches share one audit. A second attempt has its own. */
export function auditJobId(target: Pick<AuditTarget, "placeId" | "url" | "firstAttempt">): string {
  const id = `audit-${createHash("sha256").update(`${target.placeId}\n${target.url}`).digest("hex").slice(0, 32)}`;
  return target.firstAttempt === undefined ? id : `${id}-second`;
}

export interface QueueSettings {
  redisUrl: string;
  /** BullMQ key prefix; tests give each run its own. */
  prefix: string;
}

/** BullMQ's largest priority (2^21 - 1). */
const MAX_PRIORITY = 2_097_151;

/** How long close() waits for BullMQ to close its connections. */
const CLOSE_TIMEOUT_MS = 3_000;

/** ioredis states of a connection that has not been ready yet since it was made. */
const FIRST_CONNECT_STATES = new Set(["wait", "connecting", "connect"]);

/**
 * The queue gauges' counts over a fail-fast connection (`enableOfflineQueue: false`). A read that
 * comes while the connection is still being made (a scrape right after start) waits for it (the
 * scrape's own timeout bounds that); a connection lost after it was ready fails at once, so a Redis
 * outage empties the gauges instead of hanging or queueing the scrape.
 */
export async function readQueueCounts(queue: Queue, connection: Redis): Promise<AuditQueueCounts> {
  if (FIRST_CONNECT_STATES.has(connection.status)) await queue.waitUntilReady();
  if (connection.status !== "ready") throw new Error(`Redis connection is ${connection.status}`);
  // Jobs with a priority (every audit job) wait in BullMQ's "prioritized" state, not "waiting".
  const counts = await queue.getJobCounts("waiting", "prioritized", "delayed", "active");
  return {
    waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
    delayed: counts.delayed ?? 0,
    active: counts.active ?? 0,
  };
}

/**
 * Job options. A completed job is kept a while so that a second search finds it done. A job that
 * failed every attempt is our pipeline's failure (the site's own failures are completed jobs that
 * cached a failed audit), so it is removed at once: kept under its place-derived id, it would be
 * what the next search's `add` returns, and that place would never be audited again while it stays.
 */
const JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: "exponential", delay: 1000 },
  removeOnComplete: { age: 600, count: 10_000 },
  removeOnFail: true,
} as const;

/**
 * Queues the second attempt of a site_unreachable check, `delayMs` from now, behind every
 * search's candidates (the lowest priority). Nobody waits for it; it stores its audit like any.
 */
export async function queueSecondAttempt(queue: Queue, target: AuditTarget, delayMs: number): Promise<void> {
  const payload = auditJobSchema.parse({
    placeId: target.placeId,
    url: target.url,
    country: target.country,
    firstAttempt: target.firstAttempt,
  });
  await queue.add(SITE_AUDIT_JOB, payload, {
    ...JOB_OPTIONS,
    jobId: auditJobId(target),
    delay: delayMs,
    priority: MAX_PRIORITY,
  });
}

/**
 * Distributed mode: enqueue one BullMQ job per place (job id from place and URL), wait for it until
 * the deadline, and answer with the audit the job returned (the one the worker stored in the cache).
 */
export function createQueueAuditor(
  settings: QueueSettings & {
    db: Db;
    /**
     * Runs a check in this process while Redis is unreachable (no job can be queued or heard of).
     * Unset: such a check answers null at once, and the search says `truncated`.
     */
    whileRedisIsAway?: SiteAuditor;
    logger: RedisLogger;
  },
): SiteAuditor & { queue: Queue } {
  // Producers fail fast when Redis is away (BullMQ's production advice) instead of queueing commands.
  const producer = createRedisConnection(settings.redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  const listener = createRedisConnection(settings.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue<AuditJob>(SITE_AUDIT_QUEUE, { connection: producer, prefix: settings.prefix });
  const events = new QueueEvents(SITE_AUDIT_QUEUE, { connection: listener, prefix: settings.prefix });
  logRedisConnection(producer, settings.logger, "audit queue", [queue]);
  logRedisConnection(listener, settings.logger, "audit events", [events]);
  // Every audit being waited on holds one "closing" listener on the queue (BullMQ's
  // waitUntilFinished, removed when it settles): a search waits on up to 25 at once, and several
  // searches run at once, so Node's default of 10 would print a false leak warning.
  queue.setMaxListeners(0);
  const ready = events.waitUntilReady();

  return {
    queue,
    async audit(target, deadline, options) {
      const payload = auditJobSchema.parse({
        placeId: target.placeId,
        url: target.url,
        country: target.country,
      });
      // Redis unreachable: no job can be queued, or its end heard of. The check runs in this
      // process (bounded), or answers like a check that ran out of budget, so the search says
      // `truncated` instead of leaving the place out as if it had been checked and did not match.
      const withoutRedis = () => settings.whileRedisIsAway?.audit(target, deadline, options) ?? null;
      if (producer.status !== "ready" || listener.status !== "ready") return withoutRedis();
      await ready;
      let job: Awaited<ReturnType<typeof queue.add>>;
      try {
        job = await queue.add(SITE_AUDIT_JOB, payload, {
          ...JOB_OPTIONS,
          jobId: auditJobId(target),
          // Lower runs first: the first candidates of every search before anyone's later ones.
          priority: Math.min(MAX_PRIORITY, 1 + (options?.rank ?? 0)),
        });
      } catch {
        return withoutRedis(); // the producer fails fast when the connection is lost
      }
      let result: unknown;
      for (let retried = false; ; retried = true) {
        const wait = deadline - Date.now();
        if (wait <= 0) return null;
        try {
          result = await job.waitUntilFinished(events, wait);
          break;
        } catch (error) {
          if (error instanceof Error && /timed out/i.test(error.message)) return null;
          // `add` gave back an old failed job under this id (one kept by an older release, whose
          // jobs were not removed on failure): run it again rather than skip the place. retry() is
          // atomic: of two searches finding it, one moves it back to waiting, and both wait on it.
          if (retried || (await job.getState().catch(() => "unknown")) !== "failed") throw error;
          await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true }).catch(() => {});
        }
      }
      // The worker returns the audit it stored (of this job's URL: the job id is the place and the
      // URL). A job finished by an older worker only says how it went: its audit is read back.
      const returned = auditFromJobResult(result);
      if (returned) return returned;
      const audits = await readCurrentAudits(settings.db, [{ placeId: target.placeId, website: target.url }]);
      return audits.get(target.placeId) ?? null;
    },
    queueCounts: () => readQueueCounts(queue, producer),
    async close() {
      // BullMQ waits for a connection before closing it: with Redis unreachable, forever. Bounded,
      // so that a shutdown during a Redis outage still ends (and exits 0) instead of hanging.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        (async () => {
          await events.close();
          await queue.close();
        })(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
        }),
      ]);
      clearTimeout(timer);
      producer.disconnect();
      listener.disconnect();
      await settings.whileRedisIsAway?.close();
    },
  };
}
