import { withoutDatabaseDeadline } from "../db/database.ts";
import type { AuditTarget } from "./audit-site.ts";
import type { SiteAuditor } from "./auditor.ts";
import type { RunAudit } from "./run-audit.ts";
import type { SiteAudit } from "./types.ts";

/**
 * Embedded mode (no Redis): audits run in this process, at most `concurrency` at a time, one per
 * place and URL however many searches ask; an audit outlives the search that stopped waiting.
 */
export function createInProcessAuditor(
  run: RunAudit,
  options: { concurrency: number },
): SiteAuditor & Required<Pick<SiteAuditor, "queueCounts">> {
  const running = new Map<string, Promise<SiteAudit>>();
  const queue: (() => void)[] = [];
  let active = 0;

  const acquire = () =>
    new Promise<void>((resolve) => {
      if (active < options.concurrency) {
        active += 1;
        resolve();
      } else {
        queue.push(resolve);
      }
    });
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else active -= 1;
  };

  const start = (target: AuditTarget) => {
    const key = `${target.placeId}\n${target.url}`;
    const existing = running.get(key);
    if (existing) return existing;
    const audit = (async () => {
      await acquire();
      try {
        // The audit outlives the search that started it: the search's database deadline is not its own.
        return await withoutDatabaseDeadline(() => run(target));
      } finally {
        release();
        running.delete(key);
      }
    })();
    running.set(key, audit);
    return audit;
  };

  return {
    async audit(target, deadline) {
      const audit = start(target);
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
      return { waiting: queue.length, delayed: 0, active };
    },
    async close() {
      await Promise.allSettled(running.values());
    },
  };
}
