import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findDraftProblems } from "../../../shared/drafting/check-draft.ts";
import type { FactKey, VerifiedFact } from "../../../shared/drafting/facts.ts";
import type { DraftLocale, DraftRequest } from "../../../shared/drafting/generator.ts";
import { renderTemplateDraft } from "../../../shared/drafting/template-generator.ts";
import { VARIANT_COUNT } from "../../../shared/drafting/variety.ts";
import { MAX_RESULTS } from "../../../shared/search/schemas.ts";
import { sentencesBeyondFixedLines } from "../../support/draft-sentences.ts";

/** SpamAssassin 4's __FOUND_YOU body rule (72_active.cf), worth 1.0 as FOUND_YOU: "I found you…". */
const SPAMASSASSIN_FOUND_YOU = /\b(?:I|we)\sfound\syour?\b/i;

const FACTS: Record<string, VerifiedFact[]> = {
  phones_and_copyright: [
    { key: "no_mobile_viewport", details: {} },
    { key: "stale_copyright", details: { copyright_year: 2016 } },
  ],
  down_and_few_reviews: [
    { key: "site_unreachable", details: { problem: "server_error" } },
    { key: "low_review_count", details: { review_count: 3 } },
  ],
  no_website: [
    { key: "no_website", details: {} },
    { key: "low_review_count", details: { review_count: 0 } },
  ],
  old_code_alone: [{ key: "legacy_site_tech", details: { jquery_version: "1.12.4" } }],
};

const TRADES = ["Plumbing", "Bakery", "Roofing", "Electric", "Landscaping"];
const PLACES = ["Rideau", "Glebe", "Westboro", "Kanata", "Vanier"];

/** A search's worth of neighbours: one town, distinct names, consecutive variants from `firstVariant`. */
function neighbours(locale: DraftLocale, facts: VerifiedFact[], firstVariant: number): DraftRequest[] {
  return Array.from({ length: MAX_RESULTS }, (_, index) => ({
    locale,
    business: {
      name: `${PLACES[index % 5]} ${TRADES[Math.floor(index / 5) % 5]}`,
      category: "Plumber",
      city: "Ottawa",
    },
    facts,
    sender: {
      name: "Claire Dubois",
      company: "Pixel & Pine Studio",
      offer:
        locale === "en"
          ? "Websites for local trades, live in two weeks"
          : "Des sites web pour les artisans locaux",
      postalAddress: "215 Bank Street, Ottawa ON K2P 1W8",
    },
    emailFoundOnWebsite: !facts.some((fact) => fact.key === "no_website"),
    variant: firstVariant + index,
  }));
}

describe("variety: neighbours of one search share no sentence beyond the fixed lines", () => {
  it("has a wording for every lead of the largest search", () => {
    expect(VARIANT_COUNT).toBeGreaterThanOrEqual(MAX_RESULTS);
  });

  for (const locale of ["en", "fr"] as const) {
    for (const [label, facts] of Object.entries(FACTS)) {
      // 37: a workspace whose earlier searches already saved leads; the wording wraps around.
      it(`${MAX_RESULTS} neighbours with the same facts (${label}, ${locale})`, () => {
        const seen = new Map<string, string>();
        for (const draftRequest of neighbours(locale, facts, 37)) {
          const draft = renderTemplateDraft(draftRequest);
          expect(findDraftProblems(draft, draftRequest)).toEqual([]);
          expect(draft.facts_used).toEqual(facts.map((fact) => fact.key) as FactKey[]);
          for (const sentence of sentencesBeyondFixedLines(draft, draftRequest)) {
            const other = seen.get(sentence);
            expect(
              other,
              `"${sentence}" is in both ${other} and ${draftRequest.business.name}`,
            ).toBeUndefined();
            seen.set(sentence, draftRequest.business.name);
          }
        }
      });
    }
  }
});

describe("spam filters' wording", () => {
  const goldens = readdirSync(new URL("./golden/", import.meta.url)).filter((file) => file.endsWith(".txt"));

  it.each(goldens)("golden %s never says 'I found you…' (SpamAssassin FOUND_YOU)", (file) => {
    const text = readFileSync(new URL(`./golden/${file}`, import.meta.url), "utf8");
    expect(text).not.toMatch(SPAMASSASSIN_FOUND_YOU);
  });

  it("no neighbour draft says it either", () => {
    for (const locale of ["en", "fr"] as const) {
      for (const facts of Object.values(FACTS)) {
        for (const draftRequest of neighbours(locale, facts, 0)) {
          expect(renderTemplateDraft(draftRequest).body).not.toMatch(SPAMASSASSIN_FOUND_YOU);
        }
      }
    }
  });
});
