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

/** A key read back from storage or a client: one of today's keys, or one this code does not know. */
export const isFactKey = (value: string): value is FactKey =>
  (FACT_KEYS_IN_ORDER as readonly string[]).includes(value);

/**
 * What each key means, as clients read it (the `facts_used` description of `/openapi.json` is
 * built from this, so a new key cannot be left out of it).
 */
export const FACT_MEANINGS_FOR_CLIENTS: Record<FactKey, string> = {
  site_unreachable:
    "the website does not load: two visits a few seconds apart both ended in no such domain, a refused connection, or an HTTP 5xx, 404 or 410 at the homepage",
  parked_domain: 'the web address shows a parking or "domain for sale" page instead of the business\'s site',
  social_profile_only:
    "the website listed is a social profile or link page (Facebook, Instagram, Linktree, ...)",
  no_https:
    "the site is not secure: it has no working HTTPS, or its certificate is invalid (expired, for another host, self-signed)",
  no_website: "no website found for the business",
  no_mobile_viewport: "the homepage has no viewport meta tag",
  stale_copyright: "the footer copyright year is years out of date",
  legacy_site_tech: "legacy technology: old jQuery, table layouts, Flash, deprecated HTML tags",
  no_french_version: "a Canadian business whose site has no French version",
  low_review_count: "fewer than 10 provider reviews",
  not_mobile_friendly: "the site is not mobile-friendly (collapsed flag, no more specific signal)",
  outdated_website: "the site looks outdated (collapsed flag, no more specific signal)",
};

/** The spec's threshold: fewer provider reviews than this is a fact. */
export const LOW_REVIEW_COUNT_BELOW = 10;
