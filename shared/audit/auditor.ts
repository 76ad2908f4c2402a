import type { AuditQueueCounts } from "../metrics.ts";
import type { AuditTarget } from "./audit-site.ts";
import type { SiteAudit } from "./types.ts";

export interface AuditRequestOptions {
  /**
   * The candidate's rank among those this search sends to a live check (0 = its first). Audits
   * wait in rank order across searches, so every search's first candidates run before any
   * search's later ones: a 25-site search is not stuck behind another's 300 candidates.
   */
  rank?: number;
}

/**
 * Audits homepages for the search scan. Implementations dedupe by place (concurrent searches
 * share one audit), store every finished audit in the cache, and keep running after the
 * caller stopped waiting.
 */
export interface SiteAuditor {
  /** The audit, or null when `deadline` (epoch ms) passes first; the audit itself goes on. */
  audit(target: AuditTarget, deadline: number, options?: AuditRequestOptions): Promise<SiteAudit | null>;
  /** Jobs waiting, delayed and running now, for the queue gauges (metrics). */
  queueCounts?(): Promise<AuditQueueCounts>;
  close(): Promise<void>;
}
