import { type Job, Queue, UnrecoverableError, Worker, type WorkerOptions } from "bullmq";
import type { Logger } from "pino";
import { confirmationOf } from "../shared/audit/audit-site.ts";
import { type AuditStack, createAuditStack } from "../shared/audit/audit-stack.ts";
import {
  type AuditJob,
  auditJobSchema,
  queueSecondAttempt,
  SITE_AUDIT_QUEUE,
} from "../shared/audit/queue.ts";
import type { Config } from "../shared/config.ts";
import { describeUrl, openDatabase, waitFor } from "../shared/db/startup.ts";
import { createMetrics, type Metrics } from "../shared/metrics.ts";
import { createRedisConnection, logRedisConnection, REDIS_RECONNECT_MAX_MS } from "../shared/redis.ts";
import { type CapacityMetrics, createCapacityMetrics } from "./capacity-metrics.ts";
import { startWorkerMetricsServer, type WorkerMetricsServer } from "./metrics-server.ts";

/** How often a worker looks for jobs whose worker died, at most (see `stalledCheckMs`). */
const MAX_STALLED_CHECK_MS = 5_000;

/**
 * BullMQ moves a dead worker's job back to waiting at the first stalled check that finds its lock
 * expired, and the lock expires at most `lockMs` after the worker died (it is renewed every half
 * of it). With checks every `lockMs`, as BullMQ's defaults have it, that is up to twice the lock;
 * with checks every few seconds, up to the lock plus those seconds.
 */
export function stalledCheckMs(lockMs: number): number {
  return Math.max(250, Math.min(MAX_STALLED_CHECK_MS, Math.floor(lockMs / 2)));
}

export interface AuditWorker {
  readonly metricsPort: number;
  /** Finishes the jobs in progress (jobs not started stay queued for other workers), then closes all. */
  close(): Promise<void>;
}

/**
 * The audit worker: BullMQ consumer over the shared audit stack, with its metrics endpoint. Waits
 * for PostgreSQL and Redis (bounded, logged); a StartupError says what never came up.
 */
export async function buildWorker(config: Config, logger: Logger): Promise<AuditWorker> {
  const { redisUrl } = config;
  if (!redisUrl || config.database.kind !== "postgres") {
    throw new Error("the audit worker needs REDIS_URL and DATABASE_URL");
  }
  // Workers block on Redis: BullMQ requires maxRetriesPerRequest null on their connection.
  const connection = createRedisConnection(redisUrl, { maxRetriesPerRequest: null });
  logRedisConnection(connection, logger, "audit worker");
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(config, logger);
  } catch (error) {
    connection.disconnect();
    throw error;
  }
  const { db } = database;
  const metrics = createMetrics({
    onCollectError: (error) => logger.warn({ err: error }, "could not read the audit queue counts"),
  });
  const stack = createAuditStack(config, { db, metrics });
  const capacity = createCapacityMetrics(() => stack.usage());
  // Second attempts of site_unreachable checks are queued from here, on a connection of their own
  // that fails fast (the worker's own blocks): a lost one leaves the first attempt's failed audit.
  const producer = createRedisConnection(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  const secondAttempts = new Queue<AuditJob>(SITE_AUDIT_QUEUE, {
    connection: producer,
    prefix: config.queuePrefix,
  });
  logRedisConnection(producer, logger, "second attempts", [secondAttempts]);
  let metricsServer: WorkerMetricsServer | undefined;
  try {
    await waitFor(`Redis at ${describeUrl(redisUrl)}`, config.startupWaitMs, logger, async () => {
      if (connection.status !== "ready") throw new Error(`connection is ${connection.status}`);
      await connection.ping();
    });
    metricsServer = await startWorkerMetricsServer({
      metrics,
      port: config.workerMetricsPort,
      host: config.host,
      redisUrl,
      queuePrefix: config.queuePrefix,
      logger,
      more: capacity,
    });
    const worker = new Worker<AuditJob>(
      SITE_AUDIT_QUEUE,
      (job) => runAuditJob({ config, logger, metrics, stack, capacity, secondAttempts }, job),
      workerOptions(config, connection),
    );
    worker.on("error", (error) => logger.error({ err: error }, "worker error"));
    worker.on("failed", (job, error) =>
      logger.warn({ job_id: job?.id, attempts: job?.attemptsMade, err: error }, "audit job failed"),
    );
    await stack.ready();
    await worker.waitUntilReady();
    logger.info(
      {
        concurrency: config.audit.concurrency,
        threads: stack.analysisThreads,
        fetch_loops: stack.fetchLoops,
        fetches_per_host: config.audit.fetchesPerHost,
        fetches_per_ip: config.audit.fetchesPerIp,
        lock_ms: config.audit.jobLockMs,
        stalled_check_ms: stalledCheckMs(config.audit.jobLockMs),
      },
      "audit worker ready",
    );
    const server = metricsServer;
    return {
      metricsPort: server.port,
      async close() {
        await worker.close();
        await secondAttempts.close();
        producer.disconnect();
        await server.close();
        capacity.close();
        await stack.close();
        connection.disconnect();
        await database.close();
      },
    };
  } catch (error) {
    await secondAttempts.close().catch(() => {});
    producer.disconnect();
    await metricsServer?.close();
    await stack.close();
    connection.disconnect();
    await database.close();
    throw error;
  }
}

/** What one audit job needs from the worker that runs it. */
interface JobParts {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  stack: AuditStack;
  capacity: CapacityMetrics;
  secondAttempts: Queue<AuditJob>;
}

/** One job: the audit run and stored, its second attempt queued when it needs one, one log line. */
async function runAuditJob(parts: JobParts, job: Job<AuditJob>) {
  const { config, logger, metrics, stack, capacity, secondAttempts } = parts;
  const parsed = auditJobSchema.safeParse(job.data);
  if (!parsed.success) {
    throw new UnrecoverableError(`invalid audit job payload: ${parsed.error.message}`);
  }
  // The first attempt only: a retry's wait is its backoff, not the queue's.
  if (job.attemptsStarted <= 1 && job.processedOn) {
    metrics.auditQueueWait(Math.max(0, job.processedOn - job.timestamp) / 1000);
  }
  const started = performance.now();
  const audit = await stack.run(parsed.data);
  capacity.auditFinished();
  const second = confirmationOf(parsed.data, audit);
  if (second !== null) {
    await queueSecondAttempt(secondAttempts, second, config.audit.unreachableRetryMs).catch(
      (error: unknown) =>
        logger.warn({ err: error, place_id: audit.place_id }, "could not queue the second attempt"),
    );
  }
  logger.info(
    {
      job_id: job.id,
      place_id: audit.place_id,
      outcome: audit.outcome,
      failure: audit.failure,
      ms: Math.round(performance.now() - started),
    },
    "audit finished",
  );
  // The whole audit: the search waiting on it needs no second read of the cache.
  return audit;
}

function workerOptions(config: Config, connection: WorkerOptions["connection"]): WorkerOptions {
  return {
    connection,
    prefix: config.queuePrefix,
    // Audits mostly wait on the network: hundreds in flight, parsing bounded by the thread pool.
    concurrency: config.audit.concurrency,
    lockDuration: config.audit.jobLockMs,
    stalledInterval: stalledCheckMs(config.audit.jobLockMs),
    maxStalledCount: 2,
    // A fetch of the next job that failed on a lost connection is retried after this (BullMQ's
    // default is 15 s): the worker takes jobs again as soon as its connection is back.
    runRetryDelay: REDIS_RECONNECT_MAX_MS,
  };
}
