import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  allowedNumbers,
  detectLanguage,
  findDraftProblems,
  findLinkOrEmail,
  findTextProblems,
  unverifiedNumbers,
} from "../../../shared/drafting/check-draft.ts";
import { assembleBody } from "../../../shared/drafting/email-frame.ts";
import type { FactKey } from "../../../shared/drafting/facts.ts";
import type { DraftRequest } from "../../../shared/drafting/generator.ts";
import { renderTemplateDraft } from "../../../shared/drafting/template-generator.ts";

const REQUEST: DraftRequest = {
  locale: "en",
  business: { name: "Studio 54 Plumbing", category: "Plumber", city: "Ottawa" },
  facts: [
    { key: "legacy_site_tech", details: { jquery_version: "1.8.2" } },
    { key: "not_mobile_friendly", details: { viewport_width: 960, initial_scale: 0.5 } },
  ],
  sender: {
    name: "Claire Dubois",
    company: "Pixel & Pine Studio",
    offer: "Sites live in 2 weeks",
    postalAddress: "215 Bank Street, Ottawa ON K2P 1W8",
  },
  emailFoundOnWebsite: true,
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
      [good.body.replace("\nPixel & Pine Studio", ""), "it does not carry the signature"],
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
    expect(findDraftProblems(french, REQUEST)).toContain("it does not carry the signature");
    expect(findDraftProblems({ ...good, facts_used: ["no_website"] }, REQUEST)).toContain(
      "facts_used names a fact that was not given",
    );
  });
});

/**
 * The end of every draft (signature, postal address, where the address was found, opt-out) is the
 * service's: a draft from either drafter that drops or alters any of it is refused. The LLM
 * drafter's draft is the model's part inside the same frame (assembleBody), as llm-generator.ts
 * builds it.
 */
describe("findDraftProblems: the postal address, the source sentence and the opt-out", () => {
  const modelPart =
    "Your site still runs on jQuery 1.8.2, an old version that no longer gets security fixes. On a phone, it opens at a fixed width of 960 pixels.";
  const drafts = (request: DraftRequest) => ({
    template: renderTemplateDraft(request),
    llm: {
      subject: "Studio 54 Plumbing's website",
      body: assembleBody(request, modelPart, ["legacy_site_tech", "not_mobile_friendly"]),
      facts_used: ["legacy_site_tech", "not_mobile_friendly"] as FactKey[],
    },
  });
  const french: DraftRequest = { ...REQUEST, locale: "fr" };
  const frenchPart =
    "Votre site utilise encore jQuery 1.8.2, une ancienne version qui ne reçoit plus de correctifs de sécurité. Sur un téléphone, la page s'affiche avec une largeur fixe de 960 pixels.";

  const alterations: Array<[string, (body: string) => string, string]> = [
    [
      "drops the postal address",
      (body) => body.replace("\n215 Bank Street, Ottawa ON K2P 1W8", ""),
      "postal address",
    ],
    [
      "alters the postal address",
      (body) => body.replace("215 Bank Street", "12 Main Street"),
      "postal address",
    ],
    ["drops the opt-out", (body) => body.replace(/ If you'd rather not hear from me[^\n]*$/, ""), "opt out"],
    [
      "alters the opt-out",
      (body) => body.replace("just reply and let me know", "write to unsubscribe@pixel.example"),
      "opt out",
    ],
    [
      "drops the source sentence",
      (body) => body.replace("I'm writing to the address listed on your website. ", ""),
      "found",
    ],
    ["adds a line after the notice", (body) => `${body}\nP.S. See you soon.`, "in that order"],
    ["moves the notice above the signature", (body) => moveNoticeUp(body), "in that order"],
  ];

  for (const drafter of ["template", "llm"] as const) {
    it(`passes the ${drafter} drafter's draft in both languages`, () => {
      expect(findDraftProblems(drafts(REQUEST)[drafter], REQUEST)).toEqual([]);
      const fr =
        drafter === "template"
          ? renderTemplateDraft(french)
          : {
              subject: "Studio 54 Plumbing : votre site",
              body: assembleBody(french, frenchPart, ["legacy_site_tech", "not_mobile_friendly"]),
              facts_used: ["legacy_site_tech", "not_mobile_friendly"] as FactKey[],
            };
      expect(findDraftProblems(fr, french)).toEqual([]);
    });

    it.each(alterations)(`refuses a ${drafter} draft that %s`, (_what, alter, reason) => {
      const draft = drafts(REQUEST)[drafter];
      const altered = { ...draft, body: alter(draft.body) };
      expect(altered.body).not.toBe(draft.body);
      const problems = findDraftProblems(altered, REQUEST);
      expect(problems.join("; ")).toContain(reason);
    });

    it(`refuses a ${drafter} draft that claims the address came from the website when it did not, and the reverse`, () => {
      const notFound: DraftRequest = { ...REQUEST, emailFoundOnWebsite: false };
      expect(findDraftProblems(drafts(REQUEST)[drafter], notFound).join("; ")).toContain("opt-out");
      expect(findDraftProblems(drafts(notFound)[drafter], REQUEST).join("; ")).toContain("found");
    });
  }

  it("refuses a model part that writes its own opt-out, in English or French", () => {
    for (const [part, request] of [
      [`${modelPart} Reply STOP to unsubscribe.`, REQUEST],
      [`${modelPart} You can opt out at any time.`, REQUEST],
      [`${frenchPart} Répondez STOP pour vous désabonner.`, french],
      [`${frenchPart} Pour ne plus recevoir nos offres, écrivez-nous.`, french],
    ] as const) {
      expect(findTextProblems(part, request)).toContain(
        "it writes an opt-out of its own (the service adds the one opt-out)",
      );
    }
    expect(findTextProblems(modelPart, REQUEST)).toEqual([]);
    expect(findTextProblems(frenchPart, french)).toEqual([]);
  });
});

/** The last paragraph (the notice) put before the signature block. */
function moveNoticeUp(body: string): string {
  const paragraphs = body.split("\n\n");
  const notice = paragraphs.pop() ?? "";
  const signature = paragraphs.pop() ?? "";
  return [...paragraphs, notice, signature].join("\n\n");
}
