/**
 * The opportunity score through the API (DESIGN "Opportunity score"): one live search over fake
 * sites of known faults answers its results ordered by score, with the exact points; each lead's
 * detail agrees; a lead from a plain search (no homepage check) lists its site's dimensions as
 * unknown and is tiered "unchecked", never "low".
 */
import { afterAll, describe, expect, it } from "vitest";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import type { FakeGooglePlacesServer, GooglePlaceJson } from "../../support/fake-google-places.ts";
import { type FakeSitesServer, OLD_HOMEPAGE, startFakeSites } from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";

let places: FakeGooglePlacesServer;
let sites: FakeSitesServer;
let t: TestApp;

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  sites = await startFakeSites();
  t = await startTestApp({
    ...places.env,
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    // Generous: every site must be checked on a loaded machine (the search ends when all are).
    SEARCH_CHECK_BUDGET_MS: "30000",
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
  });
});
afterAll(async () => {
  await t?.close();
  await sites?.close();
});

/** A business in Montréal (Canada by its address), with this many reviews. */
function montrealPlace(id: string, website: string | null, reviews: number): GooglePlaceJson {
  return {
    id,
    displayName: { text: `Business ${id}` },
    formattedAddress: "1 rue Principale, Montréal, QC H2X 1Y4, Canada",
    addressComponents: [{ longText: "Canada", shortText: "CA", types: ["country", "political"] }],
    ...(website ? { websiteUri: website } : {}),
    rating: 4.5,
    userRatingCount: reviews,
    primaryTypeDisplayName: { text: "Plumber" },
  };
}

const year = new Date().getUTCFullYear();

/** A fixed 960-pixel viewport: not mobile friendly, though it has one. */
const FIXED_VIEWPORT_FRENCH = `<!DOCTYPE html><html lang="fr"><head><title>Plomberie</title>
<meta name="viewport" content="width=960"></head>
<body><main><h1>Bienvenue</h1></main><footer>&copy; ${year} Plomberie</footer></body></html>`;

/** The same, with a photo uploaded in 2019 (3 or more years old). */
const FIXED_VIEWPORT_OLD_MEDIA = FIXED_VIEWPORT_FRENCH.replace(
  "<h1>Bienvenue</h1>",
  '<h1>Bienvenue</h1><img src="/wp-content/uploads/2019/05/equipe.jpg" alt="">',
);

/** A domain marketplace's lander on the business's old domain (no viewport either). */
const FOR_SALE = `<!DOCTYPE html><html><head><title>Domain for Sale. Buy It Now!</title></head>
<body><h2>plomberie-tremblay.ca</h2><p>Secure checkout. Fast transfer.</p></body></html>`;

interface Opportunity {
  score: number;
  tier: string;
  reasons: { fact: string; points: number }[];
  unknown: string[];
  coverage: number;
  version: string;
}
interface Result {
  id: string;
  place_id: string;
  opportunity: Opportunity;
}

const search = (auth: { authorization: string }, category: string, filters: Record<string, boolean> = {}) =>
  t.app.inject({
    method: "POST",
    url: "/v1/searches",
    headers: auth,
    payload: { queries: [{ location: "Montréal", category }], filters, max_results: 10 },
  });

describe("the opportunity score of search results and lead detail", () => {
  it("a live search answers its results highest score first, with the exact points, and each detail agrees", async () => {
    sites.set("/old-a", { html: OLD_HOMEPAGE });
    sites.set("/old-b", { html: OLD_HOMEPAGE });
    sites.set("/fixed-french", { html: FIXED_VIEWPORT_FRENCH });
    sites.set("/fixed-old-media", { html: FIXED_VIEWPORT_OLD_MEDIA });
    sites.set("/for-sale", { html: FOR_SALE });
    // The provider's order is not the score's.
    places.setPlaces("plumber in Montréal", [
      montrealPlace("for-sale", sites.url("/for-sale"), 40),
      montrealPlace("fixed-french", sites.url("/fixed-french"), 40),
      montrealPlace("old-b", sites.url("/old-b"), 40),
      montrealPlace("fixed-old-media", sites.url("/fixed-old-media"), 3),
      montrealPlace("old-a", sites.url("/old-a"), 40),
    ]);
    const ws = await createWorkspace(t.app);
    const response = await search(ws.auth, "plumber", { not_mobile_friendly: true });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { results: Result[]; truncated: boolean };
    expect(body.truncated).toBe(false);

    const full = (score: number, tier: string, reasons: [string, number][]) => ({
      score,
      tier,
      reasons: reasons.map(([fact, points]) => ({ fact, points })),
      unknown: [],
      coverage: 1,
      version: "2026-12",
    });
    // Every site is served over plain http on loopback: https to the same host fails (no_https).
    expect(body.results.map((result) => [result.place_id, result.opportunity])).toEqual([
      // No viewport, jQuery 1.8, a 2012 copyright, no French version for a Canadian business:
      // 15 + 20 + 10 + 10 + 10. Two alike tie at 65, in the provider's order (b before a).
      [
        "old-b",
        full(65, "high", [
          ["no_https", 15],
          ["no_mobile_viewport", 20],
          ["legacy_site_tech", 10],
          ["stale_copyright", 10],
          ["no_french_version", 10],
        ]),
      ],
      [
        "old-a",
        full(65, "high", [
          ["no_https", 15],
          ["no_mobile_viewport", 20],
          ["legacy_site_tech", 10],
          ["stale_copyright", 10],
          ["no_french_version", 10],
        ]),
      ],
      // A fixed viewport, a 2019 photo, 3 reviews: 15 + 20 + 5 + 10.
      [
        "fixed-old-media",
        full(50, "medium", [
          ["no_https", 15],
          ["not_mobile_friendly", 20],
          ["last_media_year", 5],
          ["low_review_count", 10],
        ]),
      ],
      // Parked: presence 40, and nothing about the page itself counts.
      ["for-sale", full(40, "medium", [["parked_domain", 40]])],
      // A fixed viewport on an otherwise current French site: 15 + 20.
      [
        "fixed-french",
        full(35, "medium", [
          ["no_https", 15],
          ["not_mobile_friendly", 20],
        ]),
      ],
    ]);

    for (const result of body.results) {
      const detail = await t.app.inject({ url: `/v1/leads/${result.id}`, headers: ws.auth });
      expect(detail.statusCode).toBe(200);
      expect((detail.json() as { opportunity: Opportunity }).opportunity, result.place_id).toEqual(
        result.opportunity,
      );
    }
  });

  it("a lead from a plain search lists its site's dimensions as unknown and is unchecked, not low", async () => {
    places.setPlaces("roofer in Montréal", [
      montrealPlace("plain-site", sites.url("/never-fetched"), 40),
      montrealPlace("plain-few-reviews", sites.url("/never-fetched-either"), 2),
      montrealPlace("plain-none", null, 40),
    ]);
    const ws = await createWorkspace(t.app);
    const response = await search(ws.auth, "roofer");
    expect(response.statusCode, response.body).toBe(200);
    const results = (response.json() as { results: Result[] }).results;
    const unchecked = (score: number, reasons: { fact: string; points: number }[]) => ({
      score,
      tier: "unchecked",
      reasons,
      unknown: ["presence", "security", "mobile", "technology", "freshness", "language"],
      // Only the reviews were checked: 10 of 115 points.
      coverage: 0.09,
      version: "2026-12",
    });
    expect(results.map((result) => [result.place_id, result.opportunity])).toEqual([
      [
        "plain-none",
        {
          score: 40,
          tier: "medium",
          reasons: [{ fact: "no_website", points: 40 }],
          unknown: [],
          coverage: 1,
          version: "2026-12",
        },
      ],
      ["plain-few-reviews", unchecked(10, [{ fact: "low_review_count", points: 10 }])],
      ["plain-site", unchecked(0, [])],
    ]);
    // No homepage was fetched: the plain search checked nothing.
    expect(sites.hits("/never-fetched")).toBe(0);
    const detail = await t.app.inject({ url: `/v1/leads/${results[2]!.id}`, headers: ws.auth });
    expect((detail.json() as { opportunity: Opportunity }).opportunity).toEqual(unchecked(0, []));
  });
});
