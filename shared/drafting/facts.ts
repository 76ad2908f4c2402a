/**
 * Verified facts: what a draft may say about a business.
 *
 * A fact comes either from the provider's place data (no website, few reviews) or from the
 * cached homepage audit. The audit's evidence was read from a website, so it is untrusted
 * input: nothing from it is copied as text. Only numbers, dotted version numbers and tag names
 * from a fixed list reach a fact's details, and from there a template or an LLM prompt.
 */
import { NON_CONFORMING_TAGS } from "../audit/non-conforming-tags.ts";
import { socialProfileOf } from "../audit/social-profiles.ts";
import type { AuditEvidence, AuditSignals, SiteAudit } from "../audit/types.ts";
import { FACT_KEYS_IN_ORDER, type FactKey, LOW_REVIEW_COUNT_BELOW } from "../facts/fact-keys.ts";
import { LIVE_FILTER_NAMES } from "../search/schemas.ts";

// The list lives below drafting and scoring alike; its drafting users read it from here.
export { FACT_KEYS_IN_ORDER, type FactKey };

/** The spec's limit of `facts_used` entries per draft. */
export const MAX_FACTS_PER_DRAFT = 2;

/**
 * One thing verified about a business. `details` holds small structured values a draft may
 * quote (a year, a version, a count); never free text from the website.
 */
export interface VerifiedFact {
  key: FactKey;
  details: Record<string, string | number>;
}

export interface FactInput {
  place: {
    name: string;
    website: string | null;
    /** Not needed by the rules today: the audit already decided whether the business is Canadian. */
    country: string | null;
    userRatingCount: number;
  };
  /** The cached audit of the place's homepage; null when it was never audited. */
  audit: SiteAudit | null;
}

/** How many obsolete tag names a fact carries: enough to be specific, short enough to quote. */
const MAX_LEGACY_TAGS_IN_DETAILS = 3;

const VERSION_PATTERN = /^\d+(\.\d+)*$/;

/** Copyright years outside this range cannot be a real website's notice; they are dropped. */
const PLAUSIBLE_COPYRIGHT_YEARS = { min: 1990, max: 2100 } as const;

/**
 * Every verified fact about the place, in DESIGN.md's order, without the cap of two.
 * Exported for tests and for callers that want to show everything known.
 */
export function collectVerifiedFacts(input: FactInput): VerifiedFact[] {
  const { place, audit } = input;
  const hasWebsite = place.website !== null && place.website.trim() !== "";
  const found = new Map<FactKey, VerifiedFact>();
  const add = (key: FactKey, details: Record<string, string | number> = {}): void => {
    found.set(key, { key, details });
  };

  if (!hasWebsite) add("no_website");

  const reviewCount = normalizeReviewCount(place.userRatingCount);
  if (reviewCount < LOW_REVIEW_COUNT_BELOW) add("low_review_count", { review_count: reviewCount });

  // Read from the URL itself, as the audit does: no fetch, so no audit needed either.
  const social = hasWebsite ? socialProfileOf(place.website) : null;
  if (social !== null) add("social_profile_only", { platform: social.platform });

  // A place with no website has no audit facts, even if an old audit row is still cached: the
  // draft would otherwise criticise a site the business no longer lists.
  const siteAudit = hasWebsite ? audit : null;
  // The fetch's own facts hold whatever the page said, failed audits included (a site down twice).
  if (siteAudit?.signals.site_unreachable === true)
    add("site_unreachable", unreachableDetails(siteAudit.evidence));
  if (siteAudit?.outcome === "ok" && siteAudit.signals.parked_domain === true) add("parked_domain");
  // Not the business's own site (down, parked, a profile): nothing about its page is worth saying.
  const ownSite = !found.has("site_unreachable") && !found.has("parked_domain") && social === null;
  if (ownSite && siteAudit?.signals.no_https === true) add("no_https", httpsDetails(siteAudit.evidence));

  // A failed audit proves nothing about the page (DESIGN.md: a failed fetch leaves signals
  // unknown, never "bad").
  if (ownSite && siteAudit !== null && siteAudit.outcome === "ok") {
    const audit = siteAudit;
    const signals = audit.signals;
    const evidence = audit.evidence ?? {};

    if (signals.no_mobile_viewport === true) add("no_mobile_viewport");
    if (signals.stale_copyright === true) add("stale_copyright", staleCopyrightDetails(evidence));
    if (signals.legacy_site_tech === true) add("legacy_site_tech", legacyTechDetails(evidence));
    if (signals.no_french_version === true) add("no_french_version");
    if (signals.not_mobile_friendly === true && !isMobileUnfriendlinessExplained(signals, evidence)) {
      add("not_mobile_friendly", viewportDetails(evidence));
    }
    if (signals.outdated_website === true && !isOutdatednessExplained(signals)) add("outdated_website");
  }

  return FACT_KEYS_IN_ORDER.flatMap((key) => {
    const fact = found.get(key);
    return fact === undefined ? [] : [fact];
  });
}

/** The facts a draft may use: at most two, in DESIGN.md's order. Pure. */
export function selectFacts(input: FactInput): VerifiedFact[] {
  return collectVerifiedFacts(input).slice(0, MAX_FACTS_PER_DRAFT);
}

/**
 * Prepares facts handed to a drafter: DESIGN.md's order, one per key, at most two. Drafters
 * apply it so a caller passing facts in another order still gets the same draft.
 */
export function factsForDraft(facts: readonly VerifiedFact[]): VerifiedFact[] {
  const byKey = new Map<FactKey, VerifiedFact>();
  for (const fact of facts) if (!byKey.has(fact.key)) byKey.set(fact.key, fact);
  return FACT_KEYS_IN_ORDER.flatMap((key) => {
    const fact = byKey.get(key);
    return fact === undefined ? [] : [fact];
  }).slice(0, MAX_FACTS_PER_DRAFT);
}

/** What the last attempt of a site_unreachable check ended in, as one of four fixed words. */
function unreachableDetails(evidence: AuditEvidence): Record<string, string> {
  const last = evidence.attempts?.at(-1)?.result ?? "";
  if (last === "no_such_domain" || last === "connection_refused") return { problem: last };
  if (/^http_5\d\d$/.test(last)) return { problem: "server_error" };
  if (last === "http_404" || last === "http_410") return { problem: "not_found" };
  return {};
}

const CERTIFICATE_PROBLEMS = new Set(["expired", "wrong_host", "self_signed", "untrusted"]);

function httpsDetails(evidence: AuditEvidence): Record<string, string> {
  const problem = evidence.certificate_problem;
  return typeof problem === "string" && CERTIFICATE_PROBLEMS.has(problem)
    ? { certificate_problem: problem }
    : {};
}

function normalizeReviewCount(count: number): number {
  // The provider omits the field when there are none (DESIGN.md: absent means 0).
  return Number.isFinite(count) && count > 0 ? Math.floor(count) : 0;
}

function staleCopyrightDetails(evidence: AuditEvidence): Record<string, number> {
  const year = evidence.copyright_year;
  // copyright_text is deliberately ignored: it is the website's own words.
  if (
    typeof year === "number" &&
    Number.isInteger(year) &&
    year >= PLAUSIBLE_COPYRIGHT_YEARS.min &&
    year <= PLAUSIBLE_COPYRIGHT_YEARS.max
  ) {
    return { copyright_year: year };
  }
  return {};
}

/**
 * What makes the site legacy, as structured values: an old jQuery version (only 1.x / 2.x,
 * the versions the audit rule calls legacy), Flash, a table layout, obsolete tag names.
 * Presence of Flash / table layout evidence is used as a yes; its snippet is never copied.
 */
function legacyTechDetails(evidence: AuditEvidence): Record<string, string> {
  const details: Record<string, string> = {};
  const version = evidence.jquery_version;
  if (typeof version === "string" && version.length <= 20 && VERSION_PATTERN.test(version)) {
    const major = Number(version.split(".")[0]);
    if (major === 1 || major === 2) details.jquery_version = version;
  }
  if (Array.isArray(evidence.flash) && evidence.flash.length > 0) details.flash = "yes";
  if (typeof evidence.table_layout === "string" && evidence.table_layout.trim() !== "") {
    details.table_layout = "yes";
  }
  const tags = obsoleteTagNames(evidence.legacy_tags);
  if (tags.length > 0) details.obsolete_tags = tags.join(",");
  return details;
}

function obsoleteTagNames(evidenceTags: unknown): string[] {
  if (!Array.isArray(evidenceTags)) return [];
  const names: string[] = [];
  for (const entry of evidenceTags) {
    if (typeof entry !== "string") continue;
    // The evidence may be a bare name ("font") or a snippet ("<font face=...>"): read the
    // leading element name only, and keep it only if it is on the fixed list.
    const match = /^\s*<?\s*([a-zA-Z]+)/.exec(entry);
    const name = match?.[1]?.toLowerCase();
    if (name !== undefined && NON_CONFORMING_TAGS.has(name) && !names.includes(name)) names.push(name);
    if (names.length === MAX_LEGACY_TAGS_IN_DETAILS) break;
  }
  return names;
}

interface ViewportReading {
  /** A fixed pixel width (`width=960`); null when device-width or not stated. */
  fixedWidth: number | null;
  /** The initial-scale value, when stated and numeric. */
  initialScale: number | null;
}

/** Reads only numbers out of the viewport evidence: the snippet itself is never kept. */
function readViewport(viewport: unknown): ViewportReading {
  if (typeof viewport !== "string") return { fixedWidth: null, initialScale: null };
  const widthMatch = /(?:^|[\s,;"'])width\s*=\s*["']?(\d{1,5})(?!\d)/i.exec(viewport);
  const scaleMatch = /initial-scale\s*=\s*["']?(\d{1,2}(?:\.\d{1,3})?)/i.exec(viewport);
  const width = widthMatch?.[1] === undefined ? null : Number(widthMatch[1]);
  const scale = scaleMatch?.[1] === undefined ? null : Number(scaleMatch[1]);
  return {
    fixedWidth: width !== null && width > 0 ? width : null,
    initialScale: scale !== null && Number.isFinite(scale) ? scale : null,
  };
}

function viewportDetails(evidence: AuditEvidence): Record<string, number> {
  const { fixedWidth, initialScale } = readViewport(evidence.viewport);
  const details: Record<string, number> = {};
  if (fixedWidth !== null) details.viewport_width = fixedWidth;
  if (initialScale !== null && initialScale < 1) details.initial_scale = initialScale;
  return details;
}

/**
 * not_mobile_friendly is the collapsed flag (DESIGN.md: no viewport, a viewport that is not
 * width=device-width / scale >= 1, or Flash). It is explained, and so not a fact of its own, when
 * no_mobile_viewport is true, or when Flash (named by legacy_site_tech) is the only cause: the
 * viewport evidence shows neither a fixed width nor a zoomed-out scale.
 */
function isMobileUnfriendlinessExplained(signals: AuditSignals, evidence: AuditEvidence): boolean {
  if (signals.no_mobile_viewport === true) return true;
  const hasFlash = Array.isArray(evidence.flash) && evidence.flash.length > 0;
  if (signals.legacy_site_tech === true && hasFlash) {
    const { fixedWidth, initialScale } = readViewport(evidence.viewport);
    const viewportIsFine = fixedWidth === null && (initialScale === null || initialScale >= 1);
    return viewportIsFine;
  }
  return false;
}

/** outdated_website is legacy_site_tech or stale_copyright: explained when either is verified. */
function isOutdatednessExplained(signals: AuditSignals): boolean {
  return signals.legacy_site_tech === true || signals.stale_copyright === true;
}

type NoFactsReason = "not_audited" | "audit_failed" | "nothing_found";

export interface NoFactsExplanation {
  reason: NoFactsReason;
  /** Client-safe text for the 422 `insufficient_audit_data` message. No website text in it. */
  message: string;
}

/** Client-facing wording of the audit's own failure codes; unknown codes get a generic phrase. */
const AUDIT_FAILURE_WORDING: Record<string, string> = {
  timeout: "the site did not answer in time",
  blocked_address: "the site's address is not publicly reachable",
  too_large: "the homepage was too large to check",
  not_html: "the homepage is not an HTML page",
};

const LIVE_FILTER_HINT = `run a search with a live-website filter (${LIVE_FILTER_NAMES}) that finds this business first`;

/**
 * Why nothing verified gives a basis for a draft, for the 422 message. Call it only when
 * `selectFacts` returned no fact; it distinguishes an audit never made, an audit that failed
 * and an audit that found nothing. Uses only signals, counts and dates: never evidence text.
 */
export function explainNoFacts(input: FactInput): NoFactsExplanation {
  if (collectVerifiedFacts(input).length > 0) {
    throw new Error("explainNoFacts called for a place that has verified facts");
  }
  const reviews = describeReviews(normalizeReviewCount(input.place.userRatingCount));
  const audit = input.audit;

  if (audit === null) {
    return {
      reason: "not_audited",
      message: `Nothing verified about this business gives a basis for a draft: it has ${reviews}, and its homepage has not been audited yet; ${LIVE_FILTER_HINT}, then ask again.`,
    };
  }

  const checkedOn = formatDate(audit.audited_at);
  if (audit.outcome === "failed") {
    const why =
      (audit.failure !== null ? AUDIT_FAILURE_WORDING[audit.failure] : undefined) ??
      "the homepage could not be fetched";
    return {
      reason: "audit_failed",
      message: `Nothing verified about this business gives a basis for a draft: it has ${reviews}, and the last check of its homepage${checkedOn} failed (${why}), so nothing about the site is known; a later search with a live-website filter will check it again.`,
    };
  }

  const findings = describeCleanSignals(audit.signals);
  const siteSummary =
    findings.length > 0
      ? `the site has ${joinWithAnd(findings)}`
      : "the homepage check found no verifiable issue";
  return {
    reason: "nothing_found",
    message: `Nothing verified about this business gives a basis for a draft: ${siteSummary}${checkedOn}, and the business has ${reviews}. Skip this lead.`,
  };
}

function describeCleanSignals(signals: AuditSignals): string[] {
  const findings: string[] = [];
  if (signals.no_mobile_viewport === false) {
    findings.push(signals.not_mobile_friendly === false ? "a mobile-friendly viewport" : "a mobile viewport");
  }
  if (signals.stale_copyright === false) findings.push("a current copyright year");
  else if (signals.stale_copyright === null) findings.push("no dated copyright notice");
  if (signals.legacy_site_tech === false) findings.push("no legacy technology");
  if (signals.no_french_version === false) findings.push("a French version");
  return findings;
}

function describeReviews(count: number): string {
  return count === 1 ? "1 review" : `${count} reviews`;
}

function formatDate(date: Date): string {
  const time = date instanceof Date ? date.getTime() : Number.NaN;
  return Number.isNaN(time) ? "" : ` (checked ${new Date(time).toISOString().slice(0, 10)})`;
}

function joinWithAnd(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
