import type { Db } from "../db/database.ts";
import type { AnalysisPool } from "./analysis-pool.ts";
import { type AuditDeps, type AuditTarget, auditSite } from "./audit-site.ts";
import { createAuditCacheWriter } from "./cache.ts";
import type { EmailStatusCheck } from "./email-status.ts";
import type { FetchHomepageOptions } from "./fetch-homepage.ts";
import type { HttpsAnswers } from "./https-answers.ts";
import type { SiteAudit } from "./types.ts";

const ANALYSIS_TIMEOUT_MS = 5_000;

export type RunAudit = (target: AuditTarget) => Promise<SiteAudit>;

export interface AuditRunnerDeps {
  db: Db;
  pool: AnalysisPool;
  fetch: FetchHomepageOptions;
  now?: () => Date;
  onStage?: AuditDeps["onStage"];
  /** Whether the contact address found can receive mail (DNS only); absent: not checked. */
  emailStatus?: EmailStatusCheck;
  /** The https answers known per host (audit-site.ts); absent: every check asks. */
  httpsAnswers?: HttpsAnswers;
}

/**
 * One audit end to end: fetch, analyse on the pool, check the contact address's mail domain in
 * DNS (bounded: a DNS that does not answer gives `unknown`), store in the per-place cache (the
 * audits that finish together in one statement: `createAuditCacheWriter`).
 */
export function createAuditRunner(deps: AuditRunnerDeps): RunAudit {
  const now = deps.now ?? (() => new Date());
  const cache = createAuditCacheWriter(deps.db);
  return async (target) => {
    const audit = await auditSite(target, {
      fetch: deps.fetch,
      // A hostile page (tens of thousands of nested tags) must not hold an analysis thread forever.
      analyze: (input) => deps.pool.analyze(input, { signal: AbortSignal.timeout(ANALYSIS_TIMEOUT_MS) }),
      now,
      ...(deps.onStage ? { onStage: deps.onStage } : {}),
      ...(deps.httpsAnswers ? { httpsAnswers: deps.httpsAnswers } : {}),
    });
    if (audit.outcome === "ok" && deps.emailStatus) {
      const email = audit.signals.email ?? null;
      audit.signals.email_status = email === null ? null : await deps.emailStatus(email, target.url);
    }
    await cache.save(audit);
    return audit;
  };
}

export function auditUserAgent(publicUrl: string): string {
  return `LeadDiscoveryAudit/1.0 (+${publicUrl}/v1/docs#website-audits)`;
}
