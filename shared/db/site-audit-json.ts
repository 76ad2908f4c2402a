/**
 * The JSON kept in `site_audits` (schema.ts): what an audit found (`signals`) and what each finding
 * was based on (`evidence`). The audit computes them (shared/audit/); they live here, below both
 * the audit and the database, so that the table's shape needs nothing from the audit. The audit's
 * modules name them through shared/audit/types.ts and contact-email.ts.
 *
 * Loaded by the piscina task through plain Node type stripping: types only.
 */

/** Where an address was found on the page. */
export type EmailSource = "mailto" | "json_ld" | "microdata" | "cloudflare" | "text";

/** Why the choice fell on the address. */
export type EmailChosenBy = "own_domain" | "role_address" | "contact_context";

/** Why an address seen on the page was refused. */
export type EmailRejection =
  | "invalid"
  | "too_long"
  | "placeholder"
  | "platform"
  | "automated"
  | "site_credit";

/** How the contact address was chosen (contact-email.ts). */
export interface EmailEvidence {
  /** Every source the chosen address was found in, strongest first; empty when none was chosen. */
  email_found_in: EmailSource[];
  email_chosen_by: EmailChosenBy | null;
  /** The other acceptable addresses seen (not chosen), at most contact-email.ts's MAX_LISTED. */
  email_other_candidates: Array<{ address: string; source: EmailSource }>;
  /** Addresses seen and refused, with why, at most contact-email.ts's MAX_LISTED. */
  email_rejected: Array<{ address: string; reason: EmailRejection }>;
}

export type EmailStatus = "deliverable" | "risky" | "undeliverable" | "unknown";

/**
 * Why an address got its `email_status` (email-status.ts): deliverable for `own_domain`; risky
 * for `free_mail` or `other_domain`; undeliverable for `disposable`, `not_public` (a reserved or
 * private name such as `.example`, never looked up), `no_domain`, `null_mx` or `no_mail`; unknown
 * for `dns_failed`.
 */
export type EmailStatusReason =
  | "own_domain"
  | "free_mail"
  | "other_domain"
  | "disposable"
  | "not_public"
  | "no_domain"
  | "null_mx"
  | "no_mail"
  | "dns_failed";

/**
 * The audit of one place's homepage, as computed by the analysis and kept in the
 * per-place cache (`site_audits`). Every boolean is null when it could not be
 * determined (fetch failed, or the signal does not apply).
 */
export interface AuditSignals {
  /** The page has no `<meta name="viewport">` at all. */
  no_mobile_viewport: boolean | null;
  /** Old jQuery (1.x/2.x), Flash, non-conforming tags or a table layout. */
  legacy_site_tech: boolean | null;
  /** Newest copyright year is at least 2 years before the current year; null when no year. */
  stale_copyright: boolean | null;
  /** Newest year found in dated media paths (WordPress, Drupal, Ghost); null if none. */
  last_media_year: number | null;
  /** last_media_year is at least 2 years before the current year (false when last_media_year is null). */
  stale_content: boolean | null;
  /** Canadian business whose page shows no French version; null when the business is not Canadian. */
  no_french_version: boolean | null;
  /** Collapsed flag: no viewport, a viewport that is not width=device-width / scale >= 1, or Flash. */
  not_mobile_friendly: boolean | null;
  /** Collapsed flag: legacy_site_tech or stale_copyright. */
  outdated_website: boolean | null;
  /**
   * The business's contact address read from the page (lower-cased), null when none qualifies.
   * Absent in audits made before addresses were resolved.
   */
  email?: string | null;
  // The pitch facts (DESIGN "Pitch facts"). Absent in audits made before they were read.
  /**
   * Two attempts a few seconds apart both ended in no such domain, a refused connection, or an
   * HTTP 5xx/404/410 at the homepage: true (a failed audit); the page was read: false; else null.
   */
  site_unreachable?: boolean | null;
  /** The homepage is a parking or for-sale page. */
  parked_domain?: boolean | null;
  /** The listed website is a social profile or link page (decided from the URL, never fetched). */
  social_profile_only?: boolean | null;
  /**
   * The homepage ends on http:// and https:// to the same host fails or leads back to http, or
   * its certificate is invalid; null when the https check could not tell (a timeout, a bot block).
   */
  no_https?: boolean | null;
  /**
   * The page says it does not want unsolicited email or marketing (English or French wording).
   * Absent in audits made before it was read.
   */
  solicitation_refused?: boolean | null;
  /**
   * Whether the contact address can receive mail, from DNS only (see email-status.ts); null
   * without an address. Absent in audits made before it was checked.
   */
  email_status?: EmailStatus | null;
}

/** One attempt of a site_unreachable check: when, and how it ended (`no_such_domain`, `connection_refused`, `http_503`...). */
export interface FetchAttempt {
  at: string;
  result: string;
}

/** What the https check of no_https found. */
type CertificateProblem = "expired" | "wrong_host" | "self_signed" | "untrusted";

/** What each signal read from the page was based on: short snippets, never whole pages. */
export interface AnalysisEvidence extends Partial<EmailEvidence> {
  viewport?: string | null;
  jquery_version?: string | null;
  legacy_tags?: string[];
  flash?: string[];
  table_layout?: string | null;
  copyright_text?: string | null;
  copyright_year?: number | null;
  media_paths?: string[];
  french_version?: string | null;
  canadian_by?: "address" | "tld" | "postal_code" | null;
  /** The Canadian postal code found in the page text, when that is what made the business Canadian. */
  canadian_postal_code?: string | null;
  /** parked_domain: the parking service or the for-sale wording found. */
  parking_marker?: string | null;
  /** The sentence that refuses unsolicited email or marketing, as shown. */
  solicitation_text?: string | null;
  /** The page (after redirects) the contact address was read from; null without one. */
  email_page_url?: string | null;
}

/** What each signal was based on: the page's evidence, and what the fetches themselves showed. */
export interface AuditEvidence extends AnalysisEvidence {
  /** site_unreachable: each attempt's error or status (one while the second is pending, two once decided). */
  attempts?: FetchAttempt[];
  /** social_profile_only: the profile's host and its platform's name. */
  social_profile_host?: string | null;
  social_platform?: string | null;
  /** no_https: the homepage's final URL, how the https:// request ended, and the certificate's problem. */
  final_url?: string | null;
  https_result?: string | null;
  certificate_problem?: CertificateProblem | null;
  /**
   * When this address was first seen on this website: the first of the consecutive checks that
   * found it (kept by `saveAudit` while later checks find the same address). ISO 8601.
   */
  email_first_seen_at?: string | null;
  /** Why the address got its email_status; absent in audits made before the reason was kept. */
  email_status_reason?: EmailStatusReason | null;
}
