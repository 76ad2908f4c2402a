import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findDraftProblems, middleOf } from "../../../shared/drafting/check-draft.ts";
import type { FactKey, VerifiedFact } from "../../../shared/drafting/facts.ts";
import type { Draft, DraftLocale, DraftRequest, DraftSender } from "../../../shared/drafting/generator.ts";
import { factsStatedIn } from "../../../shared/drafting/stated-facts.ts";
import { createTemplateGenerator, renderTemplateDraft } from "../../../shared/drafting/template-generator.ts";
import { isApiError } from "../../../shared/errors.ts";

const BUSINESS = { name: "Maple Leaf Plumbing", category: "Plumber", city: "Ottawa" };

/** One workspace's sender; its offer is written in the workspace's language, as a user would. */
const SENDER: Record<DraftLocale, DraftSender> = {
  en: {
    name: "Claire Dubois",
    company: "Pixel & Pine Studio",
    offer: "Websites for local trades, live in two weeks",
    postalAddress: "215 Bank Street, Suite 4\nOttawa ON K2P 1W8",
  },
  fr: {
    name: "Claire Dubois",
    company: "Pixel & Pine Studio",
    offer: "Des sites web pour les artisans locaux, en ligne en deux semaines",
    postalAddress: "215, rue Bank, bureau 4\nOttawa (Ontario) K2P 1W8",
  },
};
const UNSET_SENDER: DraftSender = { name: null, company: null, offer: null, postalAddress: null };

const FACT_EXAMPLES: Record<FactKey, VerifiedFact> = {
  site_unreachable: { key: "site_unreachable", details: { problem: "server_error" } },
  parked_domain: { key: "parked_domain", details: {} },
  social_profile_only: { key: "social_profile_only", details: { platform: "Facebook" } },
  no_https: { key: "no_https", details: {} },
  no_website: { key: "no_website", details: {} },
  no_mobile_viewport: { key: "no_mobile_viewport", details: {} },
  stale_copyright: { key: "stale_copyright", details: { copyright_year: 2016 } },
  legacy_site_tech: { key: "legacy_site_tech", details: { jquery_version: "1.8.2" } },
  no_french_version: { key: "no_french_version", details: {} },
  low_review_count: { key: "low_review_count", details: { review_count: 4 } },
  not_mobile_friendly: { key: "not_mobile_friendly", details: { viewport_width: 960 } },
  outdated_website: { key: "outdated_website", details: {} },
};

interface GoldenCase {
  file: string;
  facts: VerifiedFact[];
  /** What is unset: the sender's name, company and postal address; the offer; the town. */
  unset?: ("sender" | "offer" | "town")[];
}

/** The pairs DESIGN.md's order makes common (the first two facts of typical places). */
const COMMON_PAIRS: [FactKey, FactKey][] = [
  ["site_unreachable", "low_review_count"],
  ["parked_domain", "low_review_count"],
  ["social_profile_only", "low_review_count"],
  ["no_https", "no_mobile_viewport"],
  ["no_https", "stale_copyright"],
  ["no_website", "low_review_count"],
  ["no_mobile_viewport", "stale_copyright"],
  ["no_mobile_viewport", "legacy_site_tech"],
  ["stale_copyright", "legacy_site_tech"],
  ["stale_copyright", "no_french_version"],
  ["legacy_site_tech", "no_french_version"],
  ["no_french_version", "low_review_count"],
  ["low_review_count", "not_mobile_friendly"],
  ["low_review_count", "outdated_website"],
];

const GOLDEN_CASES: GoldenCase[] = [
  ...Object.values(FACT_EXAMPLES).map((fact) => ({ file: fact.key, facts: [fact] })),
  ...COMMON_PAIRS.map(([first, second]) => ({
    file: `${first}+${second}`,
    facts: [FACT_EXAMPLES[first], FACT_EXAMPLES[second]],
  })),
  // Each way a site can be down, each certificate problem and each kind of old technology words its own sentence.
  ...(["no_such_domain", "connection_refused", "not_found"] as const).map((problem) => ({
    file: `site_unreachable-${problem}`,
    facts: [{ key: "site_unreachable" as const, details: { problem } }],
  })),
  ...(["expired", "wrong_host", "self_signed"] as const).map((problem) => ({
    file: `no_https-${problem}`,
    facts: [{ key: "no_https" as const, details: { certificate_problem: problem } }],
  })),
  ...(
    [
      ["flash", { flash: "yes" }],
      ["tables", { table_layout: "yes" }],
      ["tags", { obsolete_tags: "center,font" }],
      ["unnamed", {}],
    ] as const
  ).map(([kind, details]) => ({
    file: `legacy_site_tech-${kind}`,
    facts: [{ key: "legacy_site_tech" as const, details: { ...details } }],
  })),
  {
    file: "social_profile_only-linktree",
    facts: [{ key: "social_profile_only", details: { platform: "Linktree" } }],
  },
  // Town, offer and sender unset, one at a time and together.
  ...(
    [
      ["unset-sender", ["sender"]],
      ["unset-offer", ["offer"]],
      ["unset-town", ["town"]],
      ["unset-all", ["sender", "offer", "town"]],
    ] as const
  ).flatMap(([file, unset]) => [
    {
      file: `${file}.no_website+low_review_count`,
      facts: [FACT_EXAMPLES.no_website, FACT_EXAMPLES.low_review_count],
      unset: [...unset],
    },
    {
      file: `${file}.no_mobile_viewport+stale_copyright`,
      facts: [FACT_EXAMPLES.no_mobile_viewport, FACT_EXAMPLES.stale_copyright],
      unset: [...unset],
    },
    { file: `${file}.site_unreachable`, facts: [FACT_EXAMPLES.site_unreachable], unset: [...unset] },
  ]),
];

function request(
  locale: DraftLocale,
  facts: VerifiedFact[],
  options: Partial<GoldenCase> & { variant?: number } = {},
): DraftRequest {
  const unset = options.unset ?? [];
  const sender = unset.includes("sender")
    ? { ...UNSET_SENDER, offer: SENDER[locale].offer }
    : { ...SENDER[locale] };
  if (unset.includes("offer")) sender.offer = null;
  return {
    locale,
    business: { ...BUSINESS, city: unset.includes("town") ? null : BUSINESS.city },
    facts,
    sender,
    // A business without a website has no address of ours; the others' was read from their site.
    emailFoundOnWebsite: !facts.some((fact) => fact.key === "no_website"),
    variant: options.variant ?? 0,
  };
}

const asEmailFile = (draft: Draft): string => `${draft.subject}\n\n${draft.body}\n`;

const readGolden = (file: string, locale: DraftLocale): string =>
  readFileSync(new URL(`./golden/${file}.${locale}.txt`, import.meta.url), "utf8");

describe("template drafter: the offer", () => {
  it.each(["en", "fr"] as const)("is a sentence of the body, not a third signature line (%s)", (locale) => {
    const golden = readGolden("no_mobile_viewport+stale_copyright", locale);
    const offer = SENDER[locale].offer ?? "";
    const [signature, notice] = golden.trimEnd().split("\n\n").slice(-2);
    expect(signature?.split("\n")).toEqual([
      locale === "en" ? "Best regards," : "Bien cordialement,",
      "Claire Dubois",
      "Pixel & Pine Studio",
      ...(SENDER[locale].postalAddress ?? "").split("\n"),
    ]);
    expect(notice).toMatch(
      locale === "en" ? /^I'm writing to the address listed/ : /^Je vous écris à l'adresse/,
    );
    // The offer opens a sentence of the closing paragraph, before the ask.
    const closing = golden.split("\n\n").find((paragraph) => paragraph.startsWith(offer));
    expect(closing).toMatch(
      locale === "en"
        ? /^[^\n]+: that [^\n]+\. [^\n]+15-minute[^\n]+\?$/
        : /^[^\n]+\u00a0: c'est [^\n]+\. [^\n]+15 minutes[^\n]+\u00a0\?$/,
    );
  });
});

describe("template drafter: golden emails", () => {
  GOLDEN_CASES.forEach((goldenCase, index) => {
    for (const locale of ["en", "fr"] as const) {
      it(`${goldenCase.file} (${locale}) matches golden/${goldenCase.file}.${locale}.txt`, async () => {
        // Each case its own variant, so the goldens show the wordings neighbours get.
        const draftRequest = request(locale, goldenCase.facts, { ...goldenCase, variant: index });
        const draft = await createTemplateGenerator().generate(draftRequest);
        // After a deliberate change, regenerate with the -u flag (README, "Tests"):
        // `npx vitest run test/unit/drafting/template-generator.test.ts -u`; review the diff.
        await expect(asEmailFile(draft)).toMatchFileSnapshot(`./golden/${goldenCase.file}.${locale}.txt`);
        expect(draft.facts_used).toEqual(goldenCase.facts.map((fact) => fact.key));
        // The same checker every LLM draft passes: names the business, only given facts and
        // numbers, the signature and the offer, the requested language.
        expect(findDraftProblems(draft, draftRequest)).toEqual([]);
        // facts_used is exactly what the text states: each fact recognised in the body's middle.
        expect(factsStatedIn(middleOf(draft, draftRequest), goldenCase.facts, locale)).toEqual(
          draft.facts_used,
        );
      });
    }
  });

  it("covers each fact in both languages", () => {
    const singleFactFiles = GOLDEN_CASES.filter(
      (goldenCase) => goldenCase.facts.length === 1 && !/[-.]/.test(goldenCase.file),
    ).map((c) => c.file);
    expect(singleFactFiles.sort()).toEqual(Object.keys(FACT_EXAMPLES).sort());
    for (const unset of ["sender", "offer", "town"] as const) {
      expect(
        GOLDEN_CASES.some((goldenCase) => goldenCase.unset?.length === 1 && goldenCase.unset[0] === unset),
      ).toBe(true);
    }
  });
});

describe("template drafter", () => {
  it("names the generator", () => {
    expect(createTemplateGenerator().name).toBe("template");
  });

  it("puts a pitch fact first whatever order the facts come in", () => {
    const draft = renderTemplateDraft(request("en", [FACT_EXAMPLES.stale_copyright, FACT_EXAMPLES.no_https]));
    expect(draft.facts_used).toEqual(["no_https", "stale_copyright"]);
    expect(draft.subject).toBe('Maple Leaf Plumbing\'s website shows as "Not secure"');
  });

  it("is deterministic and does not depend on the order facts are given in", () => {
    const facts = [FACT_EXAMPLES.stale_copyright, FACT_EXAMPLES.no_mobile_viewport];
    const first = renderTemplateDraft(request("fr", facts));
    expect(renderTemplateDraft(request("fr", facts))).toEqual(first);
    expect(renderTemplateDraft(request("fr", [...facts].reverse()))).toEqual(first);
    expect(first.facts_used).toEqual(["no_mobile_viewport", "stale_copyright"]);
  });

  it("uses at most two facts even when given more", () => {
    const draft = renderTemplateDraft(
      request("en", [
        FACT_EXAMPLES.low_review_count,
        FACT_EXAMPLES.stale_copyright,
        FACT_EXAMPLES.no_french_version,
      ]),
    );
    expect(draft.facts_used).toEqual(["stale_copyright", "no_french_version"]);
    expect(draft.body).not.toContain("review");
  });

  it.each(["en", "fr"] as const)("states only the facts it lists, recognisably (%s)", (locale) => {
    // The two phone facts are worded alike on purpose (both say what a phone shows).
    const phoneFacts: FactKey[] = ["no_mobile_viewport", "not_mobile_friendly"];
    const allFacts = Object.values(FACT_EXAMPLES);
    for (const fact of allFacts) {
      const draftRequest = request(locale, [fact]);
      const draft = renderTemplateDraft(draftRequest);
      const stated = factsStatedIn(middleOf(draft, draftRequest), allFacts, locale);
      const expected = phoneFacts.includes(fact.key) ? phoneFacts : [fact.key];
      expect(stated, `${fact.key} email`).toEqual(expected);
    }
  });

  it("has one ask, names the business, and writes French with accents and vous", () => {
    for (const fact of Object.values(FACT_EXAMPLES)) {
      const en = renderTemplateDraft(request("en", [fact]));
      const fr = renderTemplateDraft(request("fr", [fact]));
      expect(`${en.subject}\n${en.body}`).toContain("Maple Leaf Plumbing");
      expect(`${fr.subject}\n${fr.body}`).toContain("Maple Leaf Plumbing");
      expect(en.body.match(/\?/g)).toHaveLength(1);
      expect(fr.body.match(/\?/g)).toHaveLength(1);
      expect(en.body).toContain("15-minute call");
      expect(fr.body).toContain("15 minutes");
      expect(fr.body).toMatch(/[éèàêç]/);
      expect(fr.body).toMatch(/\b(vous|votre|vos)\b/);
      expect(fr.body).not.toMatch(/\b(tu|ton|ta|tes)\b/);
      // French typography: a no-break space before "?" and ":", never a plain one.
      expect(fr.body).not.toMatch(/ [?:!;]/);
    }
  });

  it("puts placeholders where the sender is unset and omits an unset offer", () => {
    const en = renderTemplateDraft({ ...request("en", [FACT_EXAMPLES.no_website]), sender: UNSET_SENDER });
    expect(en.body).toMatch(
      /\n\nBest regards,\n\[Your name\]\n\[Your company\]\n\[Your postal address\]\n\nIf you'd rather not hear from me, [^\n]+$/,
    );
    const fr = renderTemplateDraft({
      ...request("fr", [FACT_EXAMPLES.no_website]),
      sender: { name: "Claire Dubois", company: "   ", offer: "", postalAddress: " \n " },
    });
    expect(fr.body).toMatch(
      /\n\nBien cordialement,\nClaire Dubois\n\[Votre entreprise\]\n\[Votre adresse postale\]\n\nSi vous préférez ne plus recevoir [^\n]+$/,
    );
  });

  it.each(["en", "fr"] as const)(
    "ends with the postal address and one opt-out sentence, and says where the address was found only when it was (%s)",
    (locale) => {
      const found = renderTemplateDraft(request(locale, [FACT_EXAMPLES.stale_copyright]));
      const notFound = renderTemplateDraft({
        ...request(locale, [FACT_EXAMPLES.stale_copyright]),
        emailFoundOnWebsite: false,
      });
      const address = (SENDER[locale].postalAddress ?? "").split("\n").at(-1) ?? "";
      const source =
        locale === "en"
          ? "I'm writing to the address listed on your website."
          : "Je vous écris à l'adresse indiquée sur votre site web.";
      const optOut = /(?:rather not hear from me|ne plus recevoir de messages de ma part)[^\n]*$/;
      for (const draft of [found, notFound]) {
        const [lastLine, blank, ...rest] = draft.body.split("\n").reverse();
        expect(lastLine).toMatch(optOut);
        expect(blank).toBe("");
        expect(rest[0]).toBe(address);
        expect(draft.body.match(/rather not hear|ne plus recevoir/g)).toHaveLength(1);
      }
      expect(found.body.split("\n").at(-1)?.startsWith(source)).toBe(true);
      expect(notFound.body).not.toContain(source);
    },
  );

  it("keeps a long postal address to four lines", () => {
    const draft = renderTemplateDraft({
      ...request("en", [FACT_EXAMPLES.stale_copyright]),
      sender: {
        ...SENDER.en,
        postalAddress: "Pixel & Pine\n\n215 Bank Street\nSuite 4\nOttawa ON\nK2P 1W8\nCanada",
      },
    });
    expect(draft.body).toContain("\nPixel & Pine\n215 Bank Street\nSuite 4\nOttawa ON, K2P 1W8, Canada\n\n");
  });

  it("keeps sender values and the business name on one line", () => {
    const draft = renderTemplateDraft({
      locale: "en",
      business: { name: "Maple Leaf\nPlumbing", category: "Plumber", city: null },
      facts: [FACT_EXAMPLES.no_website],
      sender: { name: "Claire\n\nDubois", company: "Pixel & Pine", offer: null, postalAddress: null },
      emailFoundOnWebsite: false,
    });
    expect(draft.subject).toBe("A website for Maple Leaf Plumbing");
    expect(draft.body).toContain("\nClaire Dubois\nPixel & Pine");
  });

  it("words each kind of legacy technology and review count", () => {
    const legacy = (details: VerifiedFact["details"], locale: DraftLocale = "en") =>
      renderTemplateDraft(request(locale, [{ key: "legacy_site_tech", details }])).body;
    expect(legacy({ flash: "yes" })).toContain("Parts of your website still rely on Flash");
    expect(legacy({ table_layout: "yes" })).toContain("an older technique (HTML tables)");
    // One technical name, once, in parentheses.
    const tags = legacy({ obsolete_tags: "font,center,marquee" });
    expect(tags).toContain("(the <font> tag)");
    expect(tags).not.toMatch(/<center>|<marquee>/);
    expect(legacy({ jquery_version: "2.1.4" }).match(/jQuery/g)).toHaveLength(1);
    expect(legacy({})).toContain("older web technology");
    expect(legacy({ flash: "yes" }, "fr")).toContain("Une partie de votre site repose encore sur Flash");
    expect(legacy({ obsolete_tags: "font,center" }, "fr")).toContain("(la balise <font>)");

    const reviews = (review_count: number, locale: DraftLocale = "en") =>
      renderTemplateDraft(request(locale, [{ key: "low_review_count", details: { review_count } }])).body;
    expect(reviews(0)).toContain("Maple Leaf Plumbing doesn't have any online reviews yet");
    expect(reviews(1)).toContain("has only 1 online review so far");
    expect(reviews(0, "fr")).toContain("n'a pas encore d'avis en ligne");
    expect(reviews(1, "fr")).toContain("ne compte pour l'instant qu'un seul avis en ligne");

    const copyright = renderTemplateDraft(request("en", [{ key: "stale_copyright", details: {} }]));
    expect(copyright.subject).toBe("The date at the bottom of Maple Leaf Plumbing's website");
    expect(copyright.body).toContain("a few years out of date");
  });

  it("elides French 'que' before a vowel and forms English possessives of names ending in s", () => {
    const fr = renderTemplateDraft(
      request("fr", [
        FACT_EXAMPLES.no_mobile_viewport,
        { key: "legacy_site_tech", details: { flash: "yes" } },
      ]),
    );
    expect(fr.body).toContain("J'ai aussi remarqué qu'une partie de votre site");
    const en = renderTemplateDraft({
      ...request("en", [FACT_EXAMPLES.outdated_website]),
      business: { name: "Smith Brothers", category: "Plumber", city: "Ottawa" },
    });
    expect(en.subject).toBe("A fresh look for Smith Brothers' website");
  });

  it("refuses to draft without a fact", async () => {
    const attempt = createTemplateGenerator().generate(request("en", []));
    await expect(attempt).rejects.toSatisfy(
      (error: unknown) => isApiError(error) && error.code === "insufficient_audit_data",
    );
  });
});
