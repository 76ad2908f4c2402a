import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  allowedNumbers,
  detectLanguage,
  findDraftProblems,
  findLinkOrEmail,
  unverifiedNumbers,
} from "../../../shared/drafting/check-draft.ts";
import type { DraftRequest } from "../../../shared/drafting/generator.ts";
import { renderTemplateDraft } from "../../../shared/drafting/template-generator.ts";

const REQUEST: DraftRequest = {
  locale: "en",
  business: { name: "Studio 54 Plumbing", category: "Plumber", city: "Ottawa" },
  facts: [
    { key: "legacy_site_tech", details: { jquery_version: "1.8.2" } },
    { key: "not_mobile_friendly", details: { viewport_width: 960, initial_scale: 0.5 } },
  ],
  sender: { name: "Claire Dubois", company: "Pixel & Pine Studio", offer: "Sites live in 2 weeks" },
};

describe("numbers: only the verified facts' values", () => {
  const allowed = allowedNumbers(REQUEST);

  it.each([
    ["jQuery 1.8.2", []],
    ["jQuery 1.8", []],
    ["a fixed width of 960 pixels", []],
    ["opens at a scale of 0,5", []],
    ["Studio 54 Plumbing", []],
    ["a 15-minute call", []],
    ["live in 2 weeks", []],
    ["your site has not changed since 2009", ["2009"]],
    ["your 47 reviews", ["47"]],
    ["loads 30% slower, 3 times", ["30", "3"]],
    ["jQuery 1.9.1", ["1.9.1"]],
  ])("%s -> %j", (text, expected) => {
    expect(unverifiedNumbers(text, allowed)).toEqual(expected);
  });
});

describe("links and email addresses", () => {
  it.each([
    ["see https://portfolio.example/work.", "https://portfolio.example/work."],
    ["see www.portfolio.example", "www.portfolio.example"],
    ["visit pixelpine.studio for examples", "pixelpine.studio"],
    ["write to hello@pixel-pine.ca", "hello@pixel-pine.ca"],
    ["your site runs jQuery 1.8.2 and Node.js", null],
    ["a <font> tag", null],
  ])("%s", (text, found) => {
    expect(findLinkOrEmail(text)).toBe(found);
  });
});

describe("language: franc restricted to English and French", () => {
  const goldens = readdirSync(new URL("./golden/", import.meta.url)).filter((file) => file.endsWith(".txt"));

  it.each(goldens)("the template golden %s is detected in its own language", (file) => {
    const locale = file.endsWith(".fr.txt") ? "fr" : "en";
    const text = readFileSync(new URL(`./golden/${file}`, import.meta.url), "utf8");
    expect(detectLanguage(text)).toBe(locale);
  });

  it("says nothing about a text too short to judge", () => {
    expect(detectLanguage("Merci, à bientôt.")).toBe("und");
    expect(detectLanguage("Your website on phones")).toBe("und");
  });

  it("tells a short model paragraph apart", () => {
    expect(
      detectLanguage(
        "Votre page d'accueil n'a pas de balise viewport, et les visiteurs doivent zoomer pour la lire.",
      ),
    ).toBe("fr");
    expect(
      detectLanguage("Your homepage has no viewport tag, so visitors on a phone have to zoom in to read it."),
    ).toBe("en");
  });
});

describe("findDraftProblems", () => {
  const good = renderTemplateDraft(REQUEST);

  it("passes a template draft, a business name with digits and a domain-like name included", () => {
    expect(findDraftProblems(good, REQUEST)).toEqual([]);
    const domainName: DraftRequest = { ...REQUEST, business: { ...REQUEST.business, name: "Plumbing4U.ca" } };
    expect(findDraftProblems(renderTemplateDraft(domainName), domainName)).toEqual([]);
  });

  it("names each problem", () => {
    const cases: [string, string][] = [
      [good.body.replace("\nPixel & Pine Studio", ""), "it does not end with the signature"],
      [good.body.replace("Sites live in 2 weeks", "Sites"), "it does not carry the offer"],
      [good.body.replaceAll("Studio 54 Plumbing", "your business"), "it does not name the business"],
      [
        good.body.replace("Hello,", "Hello, see www.pixel.example."),
        "it contains a link or an email address",
      ],
      [
        good.body.replace("Hello,", "Hello, since 2009,"),
        "it states numbers that are not among the verified facts: 2009",
      ],
    ];
    for (const [body, problem] of cases)
      expect(findDraftProblems({ ...good, body }, REQUEST)).toContain(problem);
    const french = renderTemplateDraft({ ...REQUEST, locale: "fr" });
    expect(findDraftProblems(french, REQUEST)).toContain("it does not end with the signature");
    expect(findDraftProblems({ ...good, facts_used: ["no_website"] }, REQUEST)).toContain(
      "facts_used names a fact that was not given",
    );
  });
});
