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

/** Audits one homepage without storing it; `onStage` hears this audit's stage times. */
export type CheckSite = (target: AuditTarget, onStage?: AuditDeps["onStage"]) => Promise<SiteAudit>;

export interface SiteCheckDeps {
  pool: AnalysisPool;
  fetch: FetchHomepageOptions;
  now?: () => Date;
  onStage?: AuditDeps["onStage"];
  /** Whether the contact address found can receive mail (DNS only); absent: not checked. */
  emailStatus?: EmailStatusCheck;
  /** The https answers known per host (audit-site.ts); absent: every check asks. */
  httpsAnswers?: HttpsAnswers;
}

export interface AuditRunnerDeps extends SiteCheckDeps {
  db: Db;
}

/**
 * One audit, not stored: fetch, analyse on the pool, check the contact address's mail domain in
 * DNS (bounded: a DNS that does not answer gives `unknown`). Runs where its fetches run: on the
 * caller's event loop, or in a fetch loop (fetch-loops.ts).
 */
export function createSiteCheck(deps: SiteCheckDeps): CheckSite {
  const now = deps.now ?? (() => new Date());
  return async (target, onStage = deps.onStage) => {
    const audit = await auditSite(target, {
      fetch: deps.fetch,
      // A hostile page (tens of thousands of nested tags) must not hold an analysis thread forever.
      analyze: (input) => deps.pool.analyze(input, { signal: AbortSignal.timeout(ANALYSIS_TIMEOUT_MS) }),
      now,
      ...(onStage ? { onStage } : {}),
      ...(deps.httpsAnswers ? { httpsAnswers: deps.httpsAnswers } : {}),
    });
    if (audit.outcome === "ok" && deps.emailStatus) {
      const email = audit.signals.email ?? null;
      const verdict = email === null ? null : await deps.emailStatus(email, target.url);
      audit.signals.email_status = verdict?.status ?? null;
      if (verdict !== null) audit.evidence.email_status_reason = verdict.reason;
    }
    return audit;
  };
}

/**
 * Each audit stored in the per-place cache once checked (the audits that finish together in one
 * statement: `createAuditCacheWriter`), then returned.
 */
export function storingAudits(db: Db, check: RunAudit): RunAudit {
  const cache = createAuditCacheWriter(db);
  return async (target) => {
    const audit = await check(target);
    await cache.save(audit);
    return audit;
  };
}

/** One audit end to end on this event loop: `createSiteCheck`, then stored (`storingAudits`). */
export function createAuditRunner(deps: AuditRunnerDeps): RunAudit {
  const check = createSiteCheck(deps);
  return storingAudits(deps.db, (target) => check(target));
}

export function auditUserAgent(publicUrl: string): string {
  return `LeadDiscoveryAudit/1.0 (+${publicUrl}/v1/docs#website-audits)`;
}
