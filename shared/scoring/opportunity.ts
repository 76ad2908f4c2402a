/**
 * The opportunity score (DESIGN "Opportunity score"): how much a business's web presence needs
 * work, from the place's provider data and the cached audit of its current website, in published
 * points per dimension. Computed when read, never stored, so a re-audit moves it. Pure: the
 * current year comes from `now`.
 *
 * What the peers got wrong shapes it: a dimension nobody checked is listed in `unknown` and counts
 * toward neither the score nor the coverage (an unchecked site never looks perfect, nor bad), and
 * every point is a reason a person can read.
 */
import { socialProfileOf } from "../audit/social-profiles.ts";
import type { SiteAudit } from "../audit/types.ts";
import { type FactKey, LOW_REVIEW_COUNT_BELOW } from "../facts/fact-keys.ts";

export const OPPORTUNITY_VERSION = "2026-12";

/** The dimensions, in the published table's order. */
export const OPPORTUNITY_DIMENSIONS = [
  "presence",
  "security",
  "mobile",
  "technology",
  "freshness",
  "language",
  "reviews",
] as const;
export type OpportunityDimension = (typeof OPPORTUNITY_DIMENSIONS)[number];

/** What earns a reason: a `facts_used` key, or the homepage's old media (`last_media_year`). */
export type OpportunityFact = FactKey | "last_media_year";

export const OPPORTUNITY_TIERS = ["high", "medium", "low", "unchecked"] as const;
export type OpportunityTier = (typeof OPPORTUNITY_TIERS)[number];

/** Who a dimension applies to, as the published table says it. */
export type Applicability = "every place" | "own site" | "Canadian own site";

export interface DimensionRule {
  dimension: OpportunityDimension;
  /** The dimension's points: the most it adds, and its weight in `coverage`. */
  points: number;
  /** The facts that earn it, first match wins, with what each earns. */
  earnedBy: readonly { fact: OpportunityFact; points: number }[];
  appliesTo: Applicability;
}

/** Homepage media this many years old or more earn the freshness dimension's lesser points. */
export const OLD_MEDIA_YEARS = 3;

/** The published table (`/v1/docs` prints it from here). */
export const OPPORTUNITY_TABLE: readonly DimensionRule[] = [
  {
    dimension: "presence",
    points: 40,
    earnedBy: [
      { fact: "no_website", points: 40 },
      { fact: "site_unreachable", points: 40 },
      { fact: "parked_domain", points: 40 },
      { fact: "social_profile_only", points: 30 },
    ],
    appliesTo: "every place",
  },
  { dimension: "security", points: 15, earnedBy: [{ fact: "no_https", points: 15 }], appliesTo: "own site" },
  {
    dimension: "mobile",
    points: 20,
    earnedBy: [
      { fact: "no_mobile_viewport", points: 20 },
      { fact: "not_mobile_friendly", points: 20 },
    ],
    appliesTo: "own site",
  },
  {
    dimension: "technology",
    points: 10,
    earnedBy: [
      { fact: "legacy_site_tech", points: 10 },
      { fact: "outdated_website", points: 10 },
    ],
    appliesTo: "own site",
  },
  {
    dimension: "freshness",
    points: 10,
    earnedBy: [
      { fact: "stale_copyright", points: 10 },
      { fact: "last_media_year", points: 5 },
    ],
    appliesTo: "own site",
  },
  {
    dimension: "language",
    points: 10,
    earnedBy: [{ fact: "no_french_version", points: 10 }],
    appliesTo: "Canadian own site",
  },
  {
    dimension: "reviews",
    points: 10,
    earnedBy: [{ fact: "low_review_count", points: 10 }],
    appliesTo: "every place",
  },
];

export const MAX_OPPORTUNITY_SCORE = 100;
export const HIGH_TIER_FROM = 60;
export const MEDIUM_TIER_FROM = 30;
/** Below the medium tier, a score is "low" only when at least this share of the points was checked. */
export const LOW_TIER_MIN_COVERAGE = 0.5;

interface OpportunityReason {
  fact: OpportunityFact;
  points: number;
}

export interface Opportunity {
  score: number;
  tier: OpportunityTier;
  reasons: OpportunityReason[];
  unknown: OpportunityDimension[];
  coverage: number;
  version: typeof OPPORTUNITY_VERSION;
}

export interface OpportunityInput {
  place: {
    website: string | null;
    /** ISO 3166-1 alpha-2 country of the address, when the provider gave one. */
    country: string | null;
    /** The provider's review count; absent means 0. */
    userRatingCount: number;
  };
  /** The cached audit of the place's current website (`readCurrentAudits`); null when never audited. */
  audit: SiteAudit | null;
  now: Date;
}

/** One dimension's reading: not applicable, applicable but never checked, or checked with its finding. */
type Reading =
  | { state: "not_applicable" }
  | { state: "unknown" }
  | { state: "checked"; facts: ReadonlySet<OpportunityFact> };

const checked = (...facts: (OpportunityFact | false)[]): Reading => ({
  state: "checked",
  facts: new Set(facts.filter((fact): fact is OpportunityFact => fact !== false)),
});
const UNKNOWN: Reading = { state: "unknown" };
const NOT_APPLICABLE: Reading = { state: "not_applicable" };

/** The score of one place, with its reasons, what was never checked and the share that was. */
export function scoreOpportunity(input: OpportunityInput): Opportunity {
  const readings = readDimensions(input);
  const reasons: OpportunityReason[] = [];
  const unknown: OpportunityDimension[] = [];
  let applicablePoints = 0;
  let checkedPoints = 0;
  for (const rule of OPPORTUNITY_TABLE) {
    const reading = readings[rule.dimension];
    if (reading.state === "not_applicable") continue;
    applicablePoints += rule.points;
    if (reading.state === "unknown") {
      unknown.push(rule.dimension);
      continue;
    }
    checkedPoints += rule.points;
    // A dimension counts at most once: its first fact found.
    const earned = rule.earnedBy.find(({ fact }) => reading.facts.has(fact));
    if (earned) reasons.push({ fact: earned.fact, points: earned.points });
  }
  const score = Math.min(
    MAX_OPPORTUNITY_SCORE,
    reasons.reduce((total, reason) => total + reason.points, 0),
  );
  // Every place has at least the presence and reviews dimensions: never a division by zero.
  const coverage = Math.round((checkedPoints / applicablePoints) * 100) / 100;
  return { score, tier: tierOf(score, coverage), reasons, unknown, coverage, version: OPPORTUNITY_VERSION };
}

export function tierOf(score: number, coverage: number): OpportunityTier {
  if (score >= HIGH_TIER_FROM) return "high";
  if (score >= MEDIUM_TIER_FROM) return "medium";
  return coverage >= LOW_TIER_MIN_COVERAGE ? "low" : "unchecked";
}

function readDimensions(input: OpportunityInput): Record<OpportunityDimension, Reading> {
  const { place, now } = input;
  const website = place.website !== null && place.website.trim() !== "" ? place.website : null;
  // An old audit row of a place that now lists no website says nothing about it.
  const audit = website === null ? null : input.audit;
  const signals = audit?.signals ?? null;
  const pageRead = audit?.outcome === "ok" ? audit.signals : null;

  const social = socialProfileOf(website) !== null;
  const unreachable = signals?.site_unreachable === true;
  const parked = pageRead?.parked_domain === true;
  const reviews = checked(
    normalizeReviewCount(place.userRatingCount) < LOW_REVIEW_COUNT_BELOW && "low_review_count",
  );

  // Presence: decided by no website, by the URL (a social profile is never fetched), or by an
  // audit of any outcome (a failed one that did not prove the site down says it answered once).
  let presence: Reading;
  if (website === null) presence = checked("no_website");
  else if (unreachable) presence = checked("site_unreachable");
  else if (parked) presence = checked("parked_domain");
  else if (social) presence = checked("social_profile_only");
  else presence = audit === null ? UNKNOWN : checked();

  // The site's own dimensions apply to a site of the business's own: not none, not a profile on a
  // platform, not a site that is down or parked (nothing on such a page is the business's).
  if (website === null || social || unreachable || parked) {
    return {
      presence,
      security: NOT_APPLICABLE,
      mobile: NOT_APPLICABLE,
      technology: NOT_APPLICABLE,
      freshness: NOT_APPLICABLE,
      language: NOT_APPLICABLE,
      reviews,
    };
  }

  const currentYear = now.getUTCFullYear();
  const oldMedia =
    pageRead?.last_media_year != null && currentYear - pageRead.last_media_year >= OLD_MEDIA_YEARS;
  return {
    presence,
    security: signals?.no_https == null ? UNKNOWN : checked(signals.no_https && "no_https"),
    mobile:
      pageRead?.no_mobile_viewport == null
        ? UNKNOWN
        : checked(
            pageRead.no_mobile_viewport && "no_mobile_viewport",
            pageRead.not_mobile_friendly === true && "not_mobile_friendly",
          ),
    technology:
      pageRead?.legacy_site_tech == null
        ? UNKNOWN
        : checked(
            pageRead.legacy_site_tech && "legacy_site_tech",
            pageRead.outdated_website === true && "outdated_website",
          ),
    freshness:
      pageRead === null
        ? UNKNOWN
        : checked(pageRead.stale_copyright === true && "stale_copyright", oldMedia && "last_media_year"),
    language: languageReading(website, place.country, pageRead),
    reviews,
  };
}

/**
 * The French version applies to Canadian businesses, decided as the audit decides it: the address
 * country first, else a `.ca` site (or, once the page was read, a Canadian postal code on it).
 */
function languageReading(
  website: string,
  country: string | null,
  pageRead: SiteAudit["signals"] | null,
): Reading {
  const countryCode = country?.trim().toUpperCase() ?? "";
  if (countryCode !== "" && countryCode !== "CA") return NOT_APPLICABLE;
  if (pageRead !== null && pageRead.no_french_version != null) {
    return checked(pageRead.no_french_version && "no_french_version");
  }
  // Read, and not Canadian by the audit's own reading: the rule does not apply.
  if (pageRead !== null && countryCode === "") return NOT_APPLICABLE;
  if (countryCode === "CA" || hostOf(website)?.endsWith(".ca") === true) return UNKNOWN;
  return NOT_APPLICABLE;
}

function hostOf(url: string): string | null {
  return URL.canParse(url) ? new URL(url).hostname.toLowerCase().replace(/\.$/, "") : null;
}

function normalizeReviewCount(count: number): number {
  return Number.isFinite(count) && count > 0 ? Math.floor(count) : 0;
}
