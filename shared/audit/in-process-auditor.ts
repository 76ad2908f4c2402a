import { withoutDatabaseDeadline } from "../db/database.ts";
import { type AuditTarget, confirmationOf } from "./audit-site.ts";
import type { SiteAuditor } from "./auditor.ts";
import type { RunAudit } from "./run-audit.ts";
import type { SiteAudit } from "./types.ts";

interface Waiter {
  rank: number;
  start(): void;
}

/**
 * Embedded mode (no Redis): audits run in this process, at most `concurrency` at a time, one per
 * place and URL however many searches ask; an audit outlives the search that stopped waiting.
 * Audits waiting for a slot start in rank order (then arrival): the same fairness as the queue's
 * job priorities.
 */
export function createInProcessAuditor(
  run: RunAudit,
  options: {
    concurrency: number;
    onQueueWait?: (seconds: number) => void;
    /**
     * How long after a first attempt that ended as a down site ends its second attempt runs
     * (site_unreachable). Nobody waits for it: the first attempt's audit answers the search.
     */
    confirmAfterMs: number;
  },
): SiteAuditor & Required<Pick<SiteAuditor, "queueCounts">> {
  const running = new Map<string, Promise<SiteAudit>>();
  const confirmations = new Set<NodeJS.Timeout>();
  const waiting: Waiter[] = [];
  let active = 0;

  const acquire = (rank: number) =>
    new Promise<void>((resolve) => {
      if (active < options.concurrency) {
        active += 1;
        resolve();
        return;
      }
      const waiter: Waiter = { rank, start: resolve };
      // Sorted insert after every waiter of the same rank (arrival order within a rank); a few
      // hundred waiters at most, bounded by the searches in flight.
      let index = waiting.length;
      while (index > 0 && waiting[index - 1]!.rank > rank) index -= 1;
      waiting.splice(index, 0, waiter);
    });
  const release = () => {
    const next = waiting.shift();
    if (next) next.start();
    else active -= 1;
  };

  /** The second attempt, later; it waits behind every search's candidates (the last rank). */
  const confirmLater = (target: AuditTarget) => {
    const timer = setTimeout(() => {
      confirmations.delete(timer);
      start(target, Number.MAX_SAFE_INTEGER).catch(() => {});
    }, options.confirmAfterMs);
    timer.unref();
    confirmations.add(timer);
  };

  const start = (target: AuditTarget, rank: number): Promise<SiteAudit> => {
    const key = `${target.placeId}\n${target.url}${target.firstAttempt ? "\nsecond" : ""}`;
    const existing = running.get(key);
    if (existing) return existing;
    const queued = performance.now();
    const audit = (async () => {
      await acquire(rank);
      options.onQueueWait?.((performance.now() - queued) / 1000);
      try {
        // The audit outlives the search that started it: the search's database deadline is not its own.
        const done = await withoutDatabaseDeadline(() => run(target));
        const second = confirmationOf(target, done);
        if (second !== null) confirmLater(second);
        return done;
      } finally {
        release();
        running.delete(key);
      }
    })();
    running.set(key, audit);
    return audit;
  };

  return {
    async audit(target, deadline, requestOptions) {
      const audit = start(target, requestOptions?.rank ?? 0);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()));
      });
      try {
        return await Promise.race([audit, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async queueCounts() {
      return { waiting: waiting.length, delayed: 0, active };
    },
    async close() {
      // Second attempts not started yet are dropped: the site keeps its first attempt's failed
      // audit, retried after a day like any failure.
      for (const timer of confirmations) clearTimeout(timer);
      confirmations.clear();
      await Promise.allSettled(running.values());
    },
  };
}
