import { describe, expect, it } from "vitest";
import {
  parseSuppressionCsv,
  suppressionDomainSchema,
  suppressionRequestOf,
  suppressionRequestSchema,
} from "../../../shared/suppressions/schemas.ts";
import { suppressionListOf } from "../../../shared/suppressions/suppressions.ts";

const list = suppressionListOf([
  { kind: "email", value: "owner@maple.ca" },
  { kind: "domain", value: "blocked.ca" },
  { kind: "place", value: "ChIJ-Place-1" },
]);
const subject = (overrides: { placeId?: string; website?: string | null; email?: string | null }) => ({
  placeId: "other-place",
  website: null,
  email: null,
  ...overrides,
});

describe("suppression list matching", () => {
  it.each([
    [{ email: "owner@maple.ca" }, true],
    [{ email: "OWNER@Maple.CA" }, true],
    [{ email: "info@maple.ca" }, false],
    [{ email: "info@blocked.ca" }, true],
    [{ email: "info@mail.blocked.ca" }, true],
    [{ email: "info@notblocked.ca" }, false],
    [{ email: "info@blocked.ca.evil.com" }, false],
    [{ website: "https://www.Blocked.ca/contact" }, true],
    [{ website: "https://blocked.ca" }, true],
    [{ website: "https://unblocked.ca" }, false],
    [{ website: "not a url" }, false],
    [{ placeId: "ChIJ-Place-1" }, true],
    [{ placeId: "chij-place-1" }, true],
    [{ placeId: "ChIJ-Place-2" }, false],
    [{}, false],
  ])("%j -> %s", (overrides, expected) => {
    expect(list.matches(subject(overrides))).toBe(expected);
  });

  it("an empty list matches nothing", () => {
    expect(suppressionListOf([]).matches(subject({ email: "a@b.ca" }))).toBe(false);
  });
});

describe("suppression entries as typed", () => {
  it.each([
    ["acme.ca", "acme.ca"],
    ["@Acme.CA", "acme.ca"],
    ["*.acme.ca", "acme.ca"],
    ["https://www.acme.ca/contact?x=1", "acme.ca"],
    ["www.acme.ca", "acme.ca"],
    ["mail.acme.ca", "acme.ca"],
    ["shop.acme.co.uk", "acme.co.uk"],
    ["acme.wixsite.com", "acme.wixsite.com"],
    ["www.intranet.test", "intranet.test"],
    ["acme.ca.", "acme.ca"],
  ])("domain %s -> %s", (typed, stored) => {
    expect(suppressionDomainSchema.parse(typed)).toBe(stored);
  });

  it.each(["localhost", "acme", "acme..ca", "", "a b.ca"])("refuses the domain %j", (typed) => {
    expect(suppressionDomainSchema.safeParse(typed).success).toBe(false);
  });

  it("takes exactly one of email, domain and place_id", () => {
    expect(suppressionRequestSchema.parse({ email: "A@B.ca", reason: " asked " })).toEqual({
      email: "a@b.ca",
      reason: "asked",
    });
    expect(suppressionRequestSchema.safeParse({}).success).toBe(false);
    expect(suppressionRequestSchema.safeParse({ email: "a@b.ca", place_id: "p" }).success).toBe(false);
  });

  it("`@acme.ca` is the domain acme.ca whichever field or form it comes in", () => {
    expect(suppressionRequestSchema.parse({ email: "@Acme.ca" })).toEqual({ domain: "acme.ca" });
    expect(suppressionRequestSchema.parse({ domain: "@www.acme.ca" })).toEqual({ domain: "acme.ca" });
    expect(suppressionRequestOf("@acme.ca")).toEqual({ domain: "acme.ca" });
  });

  it("an IDN domain or address typed in Unicode is stored in its ASCII form, the form a website's host reads", () => {
    expect(suppressionDomainSchema.parse("Café-Ottawa.ca")).toBe("xn--caf-ottawa-d7a.ca");
    expect(suppressionDomainSchema.parse("https://www.café-ottawa.ca/menu")).toBe("xn--caf-ottawa-d7a.ca");
    expect(suppressionDomainSchema.parse("www.xn--caf-ottawa-d7a.ca")).toBe("xn--caf-ottawa-d7a.ca");
    expect(suppressionRequestSchema.parse({ email: "Info@Café-Ottawa.ca" })).toEqual({
      email: "info@xn--caf-ottawa-d7a.ca",
    });
    expect(suppressionRequestOf("café-ottawa.ca")).toEqual({ domain: "xn--caf-ottawa-d7a.ca" });
  });

  it("an entry in ASCII form covers the IDN business's website and addresses, however they are written", () => {
    const list = suppressionListOf([
      { kind: "domain", value: "xn--caf-ottawa-d7a.ca" },
      { kind: "email", value: "owner@xn--bcher-kva.ca" },
    ]);
    expect(list.matches(subject({ website: "https://www.Café-Ottawa.ca/menu" }))).toBe(true);
    expect(list.matches(subject({ website: "https://shop.xn--caf-ottawa-d7a.ca/" }))).toBe(true);
    expect(list.coversEmail("Info@CAFÉ-ottawa.ca")).toBe(true);
    expect(list.coversEmail("Owner@Bücher.ca")).toBe(true);
    expect(list.coversEmail("info@bücher.ca")).toBe(false);
    expect(list.matches(subject({ website: "https://cafe-ottawa.ca/" }))).toBe(false);
  });

  it("matches an entry as stored (one rule for the whole list and the indexed pre-selection)", () => {
    // Migration 0017 rewrote entries kept as typed (`www.acme.ca`); one left so would cover the
    // hosts it names and their subdomains, whichever way the list is read.
    const list = suppressionListOf([{ kind: "domain", value: "www.acme.ca" }]);
    expect(list.matches(subject({ website: "https://shop.www.acme.ca/" }))).toBe(true);
    expect(list.matches(subject({ website: "https://acme.ca/" }))).toBe(false);
  });
});

describe("a pasted CSV of entries", () => {
  it("reads addresses, domains and place ids with optional reasons, skips a header and counts what is no entry", () => {
    const csv = [
      "email,reason",
      "Owner@Maple.ca,asked by phone",
      "blocked.ca",
      "https://www.other.ca/contact;bounced",
      'ChIJN1t_tDeuEmsRUsoyG83frY4,"said ""no thanks"""',
      "",
      "not an address@",
      "two words",
    ].join("\r\n");
    expect(parseSuppressionCsv(csv)).toEqual({
      requests: [
        { email: "owner@maple.ca", reason: "asked by phone" },
        { domain: "blocked.ca" },
        { domain: "other.ca", reason: "bounced" },
        { place_id: "ChIJN1t_tDeuEmsRUsoyG83frY4", reason: 'said "no thanks"' },
      ],
      refused: 2,
    });
  });

  it("keeps a quoted cell whole, separators and all", () => {
    // A spreadsheet's export: an empty last column after a quoted reason (the hand-written
    // splitter kept `asked by phone, then by mail",` there).
    const csv = [
      'owner@maple.ca,"asked by phone, then by mail",',
      'maple.ca;"moved; closed, for good";',
    ].join("\n");
    expect(parseSuppressionCsv(csv)).toEqual({
      requests: [
        { email: "owner@maple.ca", reason: "asked by phone, then by mail" },
        { domain: "maple.ca", reason: "moved; closed, for good" },
      ],
      refused: 0,
    });
  });
});
