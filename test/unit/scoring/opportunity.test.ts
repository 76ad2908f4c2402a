/**
 * The opportunity score over DESIGN's table ("Opportunity score"): each dimension, the caps, the
 * tiers, and what is unknown and covered for a lead with no audit, a failed audit, no website and
 * a business outside Canada.
 */
import { describe, expect, it } from "vitest";
import { type AuditSignals, type SiteAudit, UNKNOWN_SIGNALS } from "../../../shared/audit/types.ts";
import { FACT_KEYS_IN_ORDER } from "../../../shared/facts/fact-keys.ts";
import {
  OPPORTUNITY_DIMENSIONS,
  OPPORTUNITY_TABLE,
  type OpportunityInput,
  scoreOpportunity,
  tierOf,
} from "../../../shared/scoring/opportunity.ts";

const NOW = new Date("2026-12-01T12:00:00Z");
const SITE = "https://www.maple-plumbing.ca/";

/** A modern Canadian site with a French version, over https: nothing earns a point. */
const CLEAN: AuditSignals = {
  no_mobile_viewport: false,
  legacy_site_tech: false,
  stale_copyright: false,
  last_media_year: null,
  stale_content: false,
  no_french_version: false,
  not_mobile_friendly: false,
  outdated_website: false,
  email: null,
  site_unreachable: false,
  parked_domain: false,
  social_profile_only: false,
  no_https: false,
  solicitation_refused: false,
  email_status: null,
};

function audit(signals: Partial<AuditSignals>, outcome: "ok" | "failed" = "ok", url = SITE): SiteAudit {
  return {
    place_id: "place-1",
    url,
    outcome,
    failure: outcome === "failed" ? "timeout" : null,
    signals: outcome === "ok" ? { ...CLEAN, ...signals } : { ...UNKNOWN_SIGNALS, ...signals },
    evidence: {},
    audited_at: new Date("2026-11-30T10:00:00Z"),
  };
}

function score(
  overrides: {
    website?: string | null;
    country?: string | null;
    reviews?: number;
    audit?: SiteAudit | null;
  } = {},
) {
  const input: OpportunityInput = {
    place: {
      website: overrides.website === undefined ? SITE : overrides.website,
      country: overrides.country === undefined ? "CA" : overrides.country,
      userRatingCount: overrides.reviews ?? 57,
    },
    audit: overrides.audit === undefined ? audit({}) : overrides.audit,
    now: NOW,
  };
  return scoreOpportunity(input);
}

describe("the table", () => {
  it("is the published one: 40 + 15 + 20 + 10 + 10 + 10 + 10 points, every fact from the facts_used keys", () => {
    expect(OPPORTUNITY_TABLE.map((rule) => [rule.dimension, rule.points])).toEqual([
      ["presence", 40],
      ["security", 15],
      ["mobile", 20],
      ["technology", 10],
      ["freshness", 10],
      ["language", 10],
      ["reviews", 10],
    ]);
    expect(OPPORTUNITY_TABLE.map((rule) => rule.dimension)).toEqual([...OPPORTUNITY_DIMENSIONS]);
    const facts = OPPORTUNITY_TABLE.flatMap((rule) => rule.earnedBy.map(({ fact }) => fact));
    expect(facts.filter((fact) => fact !== "last_media_year").sort()).toEqual([...FACT_KEYS_IN_ORDER].sort());
  });

  it("a clean, fully checked site scores 0, tier low, nothing unknown, coverage 1", () => {
    expect(score()).toEqual({
      score: 0,
      tier: "low",
      reasons: [],
      unknown: [],
      coverage: 1,
      version: "2026-12",
    });
  });
});

describe("each dimension", () => {
  it.each([
    ["no website", { website: null }, [{ fact: "no_website", points: 40 }]],
    [
      "a site down twice (a failed audit)",
      { audit: audit({ site_unreachable: true }, "failed") },
      [{ fact: "site_unreachable", points: 40 }],
    ],
    ["a parked domain", { audit: audit({ parked_domain: true }) }, [{ fact: "parked_domain", points: 40 }]],
    [
      "a social profile for a website (decided from the URL, no audit needed)",
      { website: "https://www.facebook.com/mapleplumbing", audit: null },
      [{ fact: "social_profile_only", points: 30 }],
    ],
    ["no https", { audit: audit({ no_https: true }) }, [{ fact: "no_https", points: 15 }]],
    [
      "no viewport (which also makes it not mobile friendly: counted once)",
      { audit: audit({ no_mobile_viewport: true, not_mobile_friendly: true }) },
      [{ fact: "no_mobile_viewport", points: 20 }],
    ],
    [
      "a fixed-width viewport",
      { audit: audit({ not_mobile_friendly: true }) },
      [{ fact: "not_mobile_friendly", points: 20 }],
    ],
    [
      "legacy technology (which also makes it outdated: counted once)",
      { audit: audit({ legacy_site_tech: true, outdated_website: true }) },
      [{ fact: "legacy_site_tech", points: 10 }],
    ],
    [
      "a stale copyright (outdated, and stale)",
      { audit: audit({ stale_copyright: true, outdated_website: true }) },
      [
        { fact: "outdated_website", points: 10 },
        { fact: "stale_copyright", points: 10 },
      ],
    ],
    [
      "homepage media 3 years old",
      { audit: audit({ last_media_year: 2023, stale_content: true }) },
      [{ fact: "last_media_year", points: 5 }],
    ],
    [
      "a stale copyright and old media: the dimension counts once, at its higher points",
      { audit: audit({ stale_copyright: true, last_media_year: 2019 }) },
      [{ fact: "stale_copyright", points: 10 }],
    ],
    [
      "no French version",
      { audit: audit({ no_french_version: true }) },
      [{ fact: "no_french_version", points: 10 }],
    ],
    ["few reviews", { reviews: 9 }, [{ fact: "low_review_count", points: 10 }]],
  ] as const)("%s", (_case, overrides, reasons) => {
    const opportunity = score(overrides);
    expect(opportunity.reasons).toEqual(reasons);
    expect(opportunity.score).toBe(reasons.reduce((total, reason) => total + reason.points, 0));
  });

  it("media 2 years old earn nothing (stale_content says 2; the score asks 3), nor 10 reviews", () => {
    expect(
      score({ audit: audit({ last_media_year: 2024, stale_content: true }), reviews: 10 }).reasons,
    ).toEqual([]);
  });

  it("a missing review count is 0 reviews", () => {
    expect(score({ reviews: Number.NaN }).reasons).toEqual([{ fact: "low_review_count", points: 10 }]);
  });
});

describe("the cap and the tiers", () => {
  it("everything a site of its own can earn: 75 (presence earns nothing for a site that answers)", () => {
    const worst = score({
      reviews: 0,
      audit: audit({
        no_https: true,
        no_mobile_viewport: true,
        not_mobile_friendly: true,
        legacy_site_tech: true,
        outdated_website: true,
        stale_copyright: true,
        no_french_version: true,
      }),
    });
    // 15 + 20 + 10 + 10 + 10 + 10.
    expect(worst.score).toBe(75);
    expect(worst.tier).toBe("high");
    // No website and few reviews: 40 + 10, the site's dimensions do not apply.
    expect(score({ website: null, reviews: 2 })).toMatchObject({ score: 50, tier: "medium", coverage: 1 });
  });

  it("a dimension counts at most once, and the sum stays within 100", () => {
    // Every fact of every dimension at once: each dimension still adds only its first fact.
    const everything = score({
      reviews: 0,
      audit: audit({
        no_https: true,
        no_mobile_viewport: true,
        not_mobile_friendly: true,
        legacy_site_tech: true,
        outdated_website: true,
        stale_copyright: true,
        last_media_year: 2001,
        no_french_version: true,
      }),
    });
    expect(everything.reasons.map((reason) => reason.fact)).toEqual([
      "no_https",
      "no_mobile_viewport",
      "legacy_site_tech",
      "stale_copyright",
      "no_french_version",
      "low_review_count",
    ]);
    // The table's points add up to 115; a place earns presence only without a site of its own
    // (the site's dimensions then do not apply), so no place reaches the cap of 100 today.
    expect(OPPORTUNITY_TABLE.reduce((total, rule) => total + rule.points, 0)).toBe(115);
    expect(everything.score).toBeLessThanOrEqual(100);
  });

  it.each([
    [60, 1, "high"],
    [60, 0.1, "high"],
    [59, 1, "medium"],
    [30, 0.1, "medium"],
    [29, 0.5, "low"],
    [0, 0.5, "low"],
    [29, 0.49, "unchecked"],
    [0, 0, "unchecked"],
  ] as const)("score %d with coverage %d is %s", (points, coverage, tier) => {
    expect(tierOf(points, coverage)).toBe(tier);
  });

  it("tiers from real inputs: high, medium, low", () => {
    expect(
      score({
        audit: audit({
          no_https: true,
          no_mobile_viewport: true,
          no_french_version: true,
          legacy_site_tech: true,
        }),
        reviews: 3,
      }),
    ).toMatchObject({ score: 65, tier: "high" });
    expect(score({ audit: audit({ no_mobile_viewport: true, no_https: true }) })).toMatchObject({
      score: 35,
      tier: "medium",
    });
    expect(score({ audit: audit({ no_https: true }) })).toMatchObject({
      score: 15,
      tier: "low",
      coverage: 1,
    });
  });
});

describe("unknown and coverage", () => {
  it("a lead with no audit (a plain search): the site's dimensions unknown, never fine, and not low", () => {
    const opportunity = score({ audit: null, reviews: 57 });
    expect(opportunity).toEqual({
      score: 0,
      tier: "unchecked",
      reasons: [],
      unknown: ["presence", "security", "mobile", "technology", "freshness", "language"],
      // Only the reviews (10 of 115 points) were checked.
      coverage: 0.09,
      version: "2026-12",
    });
    // Few reviews: 10 points, still unchecked rather than low.
    expect(score({ audit: null, reviews: 1 })).toMatchObject({
      score: 10,
      tier: "unchecked",
      coverage: 0.09,
    });
  });

  it("a failed audit that did not prove the site down: presence checked, the page's dimensions unknown", () => {
    const opportunity = score({ audit: audit({}, "failed") });
    expect(opportunity.unknown).toEqual(["security", "mobile", "technology", "freshness", "language"]);
    // presence 40 + reviews 10 of 115.
    expect(opportunity.coverage).toBe(0.43);
    expect(opportunity.tier).toBe("unchecked");
    // Its https check may still have answered (the fetch's own fact).
    expect(score({ audit: audit({ no_https: true }, "failed") })).toMatchObject({
      reasons: [{ fact: "no_https", points: 15 }],
      unknown: ["mobile", "technology", "freshness", "language"],
      coverage: 0.57,
    });
  });

  it("no website: presence and reviews apply, both checked", () => {
    expect(score({ website: null, audit: null })).toEqual({
      score: 40,
      tier: "medium",
      reasons: [{ fact: "no_website", points: 40 }],
      unknown: [],
      coverage: 1,
      version: "2026-12",
    });
    // An audit row of the website it no longer lists is not read.
    expect(score({ website: null, audit: audit({ no_https: true }) }).reasons).toEqual([
      { fact: "no_website", points: 40 },
    ]);
  });

  it("a site down, parked or a social profile: the page's dimensions do not apply", () => {
    for (const opportunity of [
      score({ audit: audit({ site_unreachable: true }, "failed") }),
      score({ audit: audit({ parked_domain: true, no_mobile_viewport: true, no_french_version: true }) }),
      score({ website: "https://linktr.ee/mapleplumbing", audit: null }),
    ]) {
      expect(opportunity.unknown).toEqual([]);
      expect(opportunity.coverage).toBe(1);
      expect(opportunity.tier).toBe(opportunity.score >= 30 ? "medium" : "low");
    }
  });

  it("a business outside Canada: language does not apply", () => {
    const american = score({
      country: "US",
      website: "https://www.maple-plumbing.com/",
      audit: audit({ no_french_version: null }, "ok", "https://www.maple-plumbing.com/"),
    });
    expect(american).toMatchObject({ score: 0, tier: "low", unknown: [], coverage: 1 });
    // Never audited: five site dimensions unknown, language not among them; 10 of 105 points checked.
    const unaudited = score({ country: "US", website: "https://www.maple-plumbing.com/", audit: null });
    expect(unaudited.unknown).toEqual(["presence", "security", "mobile", "technology", "freshness"]);
    expect(unaudited.coverage).toBe(0.1);
    // A .ca site outside Canada by its address: the address decides, as in the audit.
    expect(score({ country: "US", audit: audit({ no_french_version: null }) }).unknown).toEqual([]);
  });

  it("no country from the provider: a .ca site is Canadian until the page says otherwise", () => {
    expect(score({ country: null, audit: null }).unknown).toContain("language");
    expect(score({ country: null, website: "https://maple.example/", audit: null }).unknown).not.toContain(
      "language",
    );
    // The page was read and the audit found nothing Canadian: the dimension does not apply.
    const notCanadian = score({
      country: null,
      website: "https://maple.example/",
      audit: audit({ no_french_version: null }, "ok", "https://maple.example/"),
    });
    expect(notCanadian).toMatchObject({ unknown: [], coverage: 1 });
    // The page showed a Canadian postal code, and no French version.
    const canadian = score({
      country: null,
      website: "https://maple.example/",
      audit: audit({ no_french_version: true }, "ok", "https://maple.example/"),
    });
    expect(canadian.reasons).toEqual([{ fact: "no_french_version", points: 10 }]);
  });

  it("a re-audit moves the score (computed when read, nothing stored)", () => {
    const before = score({ audit: audit({ no_mobile_viewport: true }) });
    const after = score({ audit: audit({ no_mobile_viewport: false }) });
    expect([before.score, after.score]).toEqual([20, 0]);
  });
});
