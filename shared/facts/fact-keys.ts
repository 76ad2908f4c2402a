/**
 * The verified facts' keys (`facts_used`), the one list every part names them from: the drafters,
 * the opportunity score and the docs. Below both drafting and scoring, so that neither imports the
 * other to name a fact.
 */

/**
 * The `facts_used` keys, in the order DESIGN.md picks them: the pitch facts (a site that is down,
 * parked, only a social profile, not secure) first, then the spec's keys.
 */
export const FACT_KEYS_IN_ORDER = [
  "site_unreachable",
  "parked_domain",
  "social_profile_only",
  "no_https",
  "no_website",
  "no_mobile_viewport",
  "stale_copyright",
  "legacy_site_tech",
  "no_french_version",
  "low_review_count",
  "not_mobile_friendly",
  "outdated_website",
] as const;

export type FactKey = (typeof FACT_KEYS_IN_ORDER)[number];

/** The spec's threshold: fewer provider reviews than this is a fact. */
export const LOW_REVIEW_COUNT_BELOW = 10;
