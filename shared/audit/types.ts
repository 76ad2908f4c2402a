import type { AnalysisEvidence, AuditEvidence, AuditSignals } from "../db/site-audit-json.ts";

// What the audit stores lives below the audit and the database alike (site-audit-json.ts).
export type {
  AnalysisEvidence,
  AuditEvidence,
  AuditSignals,
  EmailStatus,
  EmailStatusReason,
  FetchAttempt,
} from "../db/site-audit-json.ts";

type AuditOutcome = "ok" | "failed";

/** One row of the per-place audit cache. */
export interface SiteAudit {
  place_id: string;
  url: string;
  outcome: AuditOutcome;
  /** Why the fetch or analysis failed (e.g. "blocked_address", "timeout", "too_large", "not_html"). */
  failure: string | null;
  signals: AuditSignals;
  evidence: AuditEvidence;
  audited_at: Date;
}

export const UNKNOWN_SIGNALS: AuditSignals = {
  no_mobile_viewport: null,
  legacy_site_tech: null,
  stale_copyright: null,
  last_media_year: null,
  stale_content: null,
  no_french_version: null,
  not_mobile_friendly: null,
  outdated_website: null,
  email: null,
  site_unreachable: null,
  parked_domain: null,
  social_profile_only: null,
  no_https: null,
  solicitation_refused: null,
  email_status: null,
};

/** Input of one analysis task (runs in the piscina pool). */
export interface AnalyzeInput {
  /** Raw response body bytes (decoded inside the task with the declared charset). */
  body: Uint8Array;
  /** The response's Content-Type header, if any (may carry `charset=`). */
  contentType: string | null;
  /** Final URL of the page after redirects. */
  url: string;
  /** ISO 3166-1 alpha-2 country of the place from the provider's address, if known. */
  country: string | null;
  /** The current time in epoch milliseconds (injectable so year rules can be tested). */
  now: number;
  /** false skips the contact email (the benchmark's baseline only); default true. */
  findContactEmail?: boolean;
  /** false skips the parked-domain check (the benchmark's baseline only); default true. */
  findParkedDomain?: boolean;
  /** false reads the page as before DESIGN "Audit precision" (the benchmark's baseline only); default true. */
  auditPrecision?: boolean;
}

export interface AnalyzeOutput {
  signals: AuditSignals;
  evidence: AnalysisEvidence;
}
