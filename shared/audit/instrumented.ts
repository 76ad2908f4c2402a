import { type AuditJobMetrics, secondsSince } from "../metrics.ts";
import type { AuditTarget } from "./audit-site.ts";
import type { SiteAudit } from "./types.ts";

/** Counts and times audits: `failed` is a site that could not be read, `error` an audit that threw. */
export function instrumentAuditRunner(
  run: (target: AuditTarget) => Promise<SiteAudit>,
  metrics: AuditJobMetrics,
): (target: AuditTarget) => Promise<SiteAudit> {
  return async (target) => {
    const started = performance.now();
    metrics.auditsInFlight(1);
    try {
      const audit = await run(target);
      metrics.auditJobFinished(audit.outcome === "ok" ? "ok" : "failed", secondsSince(started));
      return audit;
    } catch (error) {
      metrics.auditJobFinished("error", secondsSince(started));
      throw error;
    } finally {
      metrics.auditsInFlight(-1);
    }
  };
}
