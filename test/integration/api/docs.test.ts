import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorStatus } from "../../../shared/errors.ts";
import { createWorkspace, startSiblingApp, startTestApp, type TestApp } from "../../support/app.ts";

/** The error table of the spec, plus DESIGN.md's cross-origin refusal. */
const ERROR_CODES = [
  "invalid_request",
  "invalid_api_key",
  "insufficient_credits",
  "lead_not_unlocked",
  "lead_not_found",
  "place_not_found",
  "not_found",
  "request_too_large",
  "insufficient_audit_data",
  "rate_limited",
  "internal_error",
  "generation_failed",
  "rate_limit_unavailable",
  "cross_origin_forbidden",
] as const;

const FACT_KEYS = [
  "no_website",
  "no_french_version",
  "low_review_count",
  "stale_copyright",
  "no_mobile_viewport",
  "legacy_site_tech",
  "not_mobile_friendly",
  "outdated_website",
];

let t: TestApp;
let markdown: string;

beforeAll(async () => {
  t = await startTestApp();
  const response = await t.app.inject({ url: "/v1/docs" });
  expect(response.statusCode).toBe(200);
  markdown = response.body;
});
afterAll(() => t?.close());

/** A second app on the same database with its own config. */
async function docsWith(env: Record<string, string>): Promise<{ markdown: string; openapi: unknown }> {
  const sibling = await startSiblingApp(t.database.db, env);
  try {
    const docs = await sibling.app.inject({ url: "/v1/docs" });
    expect(docs.statusCode).toBe(200);
    const openapi = await sibling.app.inject({ url: "/openapi.json" });
    return { markdown: docs.body, openapi: openapi.json() };
  } finally {
    await sibling.close();
  }
}

/** The markdown table row(s) mentioning `needle`. */
const rowsWith = (text: string, needle: string) =>
  text.split("\n").filter((line) => line.startsWith("|") && line.includes(needle));

describe("GET /v1/docs", () => {
  it("needs no authentication and answers text/markdown", async () => {
    const response = await t.app.inject({ url: "/v1/docs" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/markdown/);
    expect(response.headers["x-request-id"]).toEqual(expect.any(String));
  });

  it("is the same with a key, and does not count against the key's rate limit", async () => {
    const ws = await createWorkspace(t.app);
    const response = await t.app.inject({ url: "/v1/docs", headers: ws.auth });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(markdown);
    expect(response.headers["ratelimit-limit"]).toBeUndefined();
  });

  it("is a real reference, not a placeholder", () => {
    expect(markdown.length).toBeGreaterThan(5_000);
    expect(markdown).toMatch(/^# /);
    expect(markdown.trim()).not.toBe("# placeholder");
    expect(markdown).not.toMatch(/\bTODO\b|\bTBD\b|\bFIXME\b/);
    // Every template placeholder was filled in.
    expect(markdown).not.toMatch(/\{\{[^}]*\}\}/);
  });

  it("names every path of the OpenAPI document", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThanOrEqual(7);
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const method of Object.keys(operations)) {
        expect(markdown, `${method.toUpperCase()} ${path}`).toContain(`${method.toUpperCase()} ${path}`);
      }
    }
  });

  it("names every error code of the spec's error table, with its status, in a table", () => {
    for (const code of ERROR_CODES) {
      const rows = rowsWith(markdown, `\`${code}\``).filter((row) => row.includes(String(errorStatus[code])));
      expect(rows.length, `a table row for ${code} (${errorStatus[code]})`).toBeGreaterThan(0);
    }
  });

  it("documents the check order", () => {
    const order = [
      "cross_origin_forbidden",
      "not_found",
      "invalid_api_key",
      "rate_limited",
      "request_too_large",
      "invalid_request",
      "lead_not_found",
      "insufficient_credits",
    ];
    const section = markdown.slice(markdown.indexOf("Check order"));
    expect(section.length).toBeLessThan(markdown.length);
    const positions = order.map((code) => section.indexOf(`${code}`));
    for (const position of positions) expect(position).toBeGreaterThanOrEqual(0);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("lists every facts_used key, in the order drafts pick them", () => {
    for (const key of FACT_KEYS) expect(markdown).toContain(`\`${key}\``);
    const orderLine = markdown.slice(markdown.indexOf("first two in this order"));
    const order = [
      "no_website",
      "no_mobile_viewport",
      "stale_copyright",
      "legacy_site_tech",
      "no_french_version",
      "low_review_count",
      "not_mobile_friendly",
    ];
    const positions = order.map((key) => orderLine.indexOf(`\`${key}\``));
    for (const position of positions) expect(position).toBeGreaterThanOrEqual(0);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("publishes the opportunity score's points table, as the score computes it", () => {
    const section = markdown.slice(markdown.indexOf("## Opportunity score"));
    expect(section.length).toBeLessThan(markdown.length);
    for (const [dimension, points, appliesTo] of [
      ["presence", 40, "every place"],
      ["security", 15, "places with a site of their own"],
      ["mobile", 20, "places with a site of their own"],
      ["technology", 10, "places with a site of their own"],
      ["freshness", 10, "places with a site of their own"],
      ["language", 10, "Canadian places with a site of their own"],
      ["reviews", 10, "every place"],
    ] as const) {
      const row = rowsWith(section, `| ${dimension} |`)[0];
      expect(row, dimension).toMatch(new RegExp(`\\| ${points} \\| ${appliesTo} \\|$`));
    }
    expect(rowsWith(section, "| presence |")[0]).toContain(
      "`no_website`, `site_unreachable` or `parked_domain` 40; else `social_profile_only` 30",
    );
    expect(rowsWith(section, "| freshness |")[0]).toContain(
      "`stale_copyright` 10; else homepage media 3+ years old",
    );
    for (const field of ["score", "tier", "reasons", "unknown", "coverage", "version"]) {
      expect(rowsWith(section, `| \`${field}\` |`).length, field).toBe(1);
    }
    expect(markdown).not.toContain("{{");
  });

  it("documents the outreach_status values and the cursor form", () => {
    for (const status of ["new", "drafted", "sent", "skipped"]) {
      expect(rowsWith(markdown, `\`${status}\``).length, status).toBeGreaterThan(0);
    }
    expect(markdown).toContain("<added_at>|<lead_id>");
  });

  it("documents every request field", () => {
    for (const field of [
      "limit",
      "cursor",
      "queries",
      "location",
      "category",
      "filters",
      "min_rating",
      "no_website",
      "not_mobile_friendly",
      "outdated_website",
      "stale_content",
      "max_results",
      "locale",
    ]) {
      expect(rowsWith(markdown, `\`${field}\``).length, field).toBeGreaterThan(0);
    }
  });

  it("documents every response field", () => {
    for (const field of [
      "id",
      "place_id",
      "name",
      "address",
      "website",
      "email",
      "outreach_status",
      "added_at",
      "next_cursor",
      "no_website_flag",
      "not_mobile_friendly_flag",
      "outdated_website_flag",
      "last_media_year",
      "balance",
      "spendable",
      "spending_caps",
      "resets_at",
      "results",
      "credits_spent",
      "truncated",
      "has_website",
      "is_mobile_friendly",
      "is_outdated",
      "subject",
      "body",
      "facts_used",
      "opportunity",
    ]) {
      expect(markdown, field).toContain(`\`${field}\``);
    }
  });

  it("says how a lead's email is resolved and that it may be null, as /openapi.json does", async () => {
    const openapi = (await t.app.inject({ url: "/openapi.json" })).json() as {
      components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
    };
    const description = openapi.components.schemas.LeadSummary?.properties.email?.description;
    expect(description).toMatch(/`null`/);
    const [row] = rowsWith(markdown, "| `email` |");
    expect(row).toContain(description);
    const section = markdown.slice(markdown.indexOf("### Contact email"));
    expect(section.length).toBeGreaterThan(500);
    for (const source of [
      "mailto:",
      "JSON-LD",
      'itemprop="email"',
      "[at]",
      "data-cfemail",
      "Public Suffix List",
    ]) {
      expect(section, source).toContain(source);
    }
  });

  it("states the default rate limits in force", () => {
    expect(rowsWith(markdown, "30 requests per minute").length).toBeGreaterThan(0);
    expect(rowsWith(markdown, "5 requests per minute").length).toBeGreaterThan(0);
    expect(markdown).toContain("Retry-After: 60");
  });
});

describe("the rate limits follow the configuration", () => {
  it("states RATE_LIMIT_READ_PER_MIN and RATE_LIMIT_SEARCH_PER_MIN, as /openapi.json does", async () => {
    const { markdown: custom, openapi } = await docsWith({
      RATE_LIMIT_READ_PER_MIN: "47",
      RATE_LIMIT_SEARCH_PER_MIN: "3",
    });
    const readRows = rowsWith(custom, "47 requests per minute");
    const searchRows = rowsWith(custom, "3 requests per minute");
    expect(readRows.length).toBeGreaterThan(0);
    expect(searchRows.length).toBeGreaterThan(0);
    expect(readRows.join("\n")).toContain("/v1/leads");
    expect(searchRows.join("\n")).toContain("POST /v1/searches");
    expect(custom).not.toContain("30 requests per minute");
    expect(custom).not.toMatch(/\{\{[^}]*\}\}/);
    const description = (openapi as { info: { description: string } }).info.description;
    expect(description).toContain("47 requests per minute");
    expect(description).toContain("3 requests per minute");
  });
});

describe("the app's own limits in /v1/docs follow the configuration (issue 31)", () => {
  it("states the console's per-member budget and the do-not-contact list's size in force", async () => {
    const prose = markdown.replace(/\s+/g, " ");
    expect(prose).toContain(
      "(300 lead pages, drafts, marks and do-not-contact changes and 20 searches a minute per member)",
    );
    expect(prose).toContain("holds at most 20,000 entries on this server");
    const { markdown: custom } = await docsWith({
      RATE_LIMIT_CONSOLE_READ_PER_MIN: "120",
      RATE_LIMIT_CONSOLE_SEARCH_PER_MIN: "7",
      SUPPRESSIONS_MAX_PER_WORKSPACE: "5000",
    });
    const customProse = custom.replace(/\s+/g, " ");
    expect(customProse).toContain(
      "(120 lead pages, drafts, marks and do-not-contact changes and 7 searches a minute per member)",
    );
    expect(customProse).toContain("holds at most 5,000 entries on this server");
    expect(custom).not.toMatch(/\{\{[^}]*\}\}/);
  });
});

describe("lawful outreach in /v1/docs", () => {
  it("documents spending caps: what counts, the UTC day, the 402 naming the cap, where they are set and read", () => {
    const section = markdown.slice(markdown.indexOf("### Spending caps"), markdown.indexOf("## Errors"));
    expect(section.length).toBeGreaterThan(500);
    for (const phrase of [
      "Daily cap",
      "Total cap",
      "00:00 UTC",
      "What counts",
      "not capped",
      "`402 insufficient_credits`",
      "has a daily credit cap of",
      "has a total credit cap of",
      "Nothing was saved or charged",
      "`get_credit_balance`",
      "`GET /v1/credits`",
      "API keys page",
      "Connected apps page",
      "admin API",
    ]) {
      expect(section, phrase).toContain(phrase);
    }
    expect(rowsWith(markdown, "`insufficient_credits`").join("\n")).toContain("spending cap");
  });

  it("documents the suppression list, its effects and the 403 of the draft route", () => {
    expect(markdown).toContain("## Suppression list (do not contact)");
    for (const kind of ["`email`", "`domain`", "`place`"])
      expect(rowsWith(markdown, kind).length, kind).toBeGreaterThan(0);
    expect(markdown.replace(/\s+/g, " ")).toMatch(/never returns, charges or counts toward `max_results`/);
    expect(rowsWith(markdown, "`lead_not_unlocked`").join("\n")).toMatch(/suppression list/);
    expect(markdown.replace(/\s+/g, " ")).toContain(
      "`403 lead_not_unlocked` (the lead is on the suppression list)",
    );
  });

  it("documents the draft's compliance lines, email_status and email_source", () => {
    const prose = markdown.replace(/\s+/g, " ");
    expect(prose).toContain("[Your postal address]");
    expect(prose).toContain("If you'd rather not hear from me");
    expect(prose).toContain("Si vous préférez ne plus recevoir de messages de ma part");
    for (const field of [
      "`email_status`",
      "`email_source`",
      "`first_seen_at`",
      "`last_seen_at`",
      "`solicitation_refused`",
      "`found_in`",
    ]) {
      expect(rowsWith(markdown, field).length, field).toBeGreaterThan(0);
    }
    for (const status of ["`deliverable`", "`risky`", "`undeliverable`", "`unknown`"]) {
      expect(rowsWith(markdown, status).length, status).toBeGreaterThan(0);
    }
  });
});
