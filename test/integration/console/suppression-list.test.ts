/**
 * The do-not-contact list at size (issue 31 finding 7, build item 6), over real HTTP (the app
 * listening on 127.0.0.1, a cookie-keeping fetch browser), on PostgreSQL and on PGlite: a CSV
 * import is one INSERT (every row of it shares the statement's command id), the list is capped per
 * workspace (SUPPRESSIONS_MAX_PER_WORKSPACE: an addition past it adds nothing and answers 400, in
 * the console and on the admin API), the page shows 100 entries at a time (keyset, "Next page")
 * and searches the list (`?q=`, kept while paging), in English and in French, and a lead check
 * reads only the entries that could match it. An import of 1,000 lines (about 45 KB) is one request.
 */
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leadPageQuery } from "../../../shared/leads/leads.ts";
import { loadSuppressionsFor } from "../../../shared/suppressions/suppressions.ts";
import {
  ADMIN_TOKEN,
  createWorkspace,
  startSiblingApp,
  startTestApp,
  type TestApp,
} from "../../support/app.ts";
import { inviteByAdmin, PASSWORD, tokenOf } from "../../support/console.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { seedLeads } from "../../support/seed.ts";

const CAP = 260;
let harness: TestApp;
let baseUrl: string;

beforeAll(async () => {
  harness = await startTestApp({
    RATE_LIMIT_READ_PER_MIN: "1000",
    RATE_LIMIT_CONSOLE_READ_PER_MIN: "1000",
    SUPPRESSIONS_MAX_PER_WORKSPACE: String(CAP),
  });
  await harness.app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = `http://127.0.0.1:${(harness.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => harness?.close());

/** A member of a new workspace, joined through an invite and signed in over HTTP. */
async function member(email: string) {
  const workspace = await createWorkspace(harness.app);
  const invitePath = await inviteByAdmin(harness.app, workspace.workspaceId, email);
  const browser = new HttpConsoleBrowser(baseUrl);
  const joined = await browser.submit(invitePath, "/app/invite", {
    token: tokenOf(invitePath),
    name: "Dana List",
    password: PASSWORD,
  });
  if (joined.status !== 303) throw new Error(`join: ${joined.status} ${joined.body.slice(0, 300)}`);
  return { workspace, browser, list: `/app/w/${workspace.workspaceId}/suppressions` };
}

/** `shop-000.ca` ... : domains whose numbers a search can pick out. */
const domain = (n: number) => `shop-${String(n).padStart(3, "0")}.ca`;

const rowsOf = (page: string) =>
  [...page.matchAll(/<tr><td[^>]*>[^<]*<\/td><td[^>]*>([^<]+)<\/td>/g)].map((match) => match[1] ?? "");
const nextLinkOf = (page: string) =>
  /<a href="([^"]+)">(?:Next page|Page suivante)<\/a>/.exec(page)?.[1]?.replaceAll("&amp;", "&") ?? null;

async function entryCount(workspaceId: string): Promise<number> {
  const rows = await harness.database.db
    .selectFrom("suppressions")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .execute();
  return rows.length;
}

describe("the do-not-contact list at size", () => {
  it("imports a CSV in one statement, pages through it 100 at a time and searches it; past the cap nothing is added (400)", async () => {
    const { workspace, browser, list } = await member("list-owner@agency.test");
    const csv = ["domain,reason", ...Array.from({ length: 250 }, (_, n) => `${domain(n)},asked us`)].join(
      "\n",
    );
    const imported = await browser.submit(list, `${list}/import`, { csv });
    expect(imported.status).toBe(303);
    const summary = await browser.get(imported.location ?? "");
    expect(summary.body).toContain("250 entries added, 0 already on the list, 0 lines refused.");
    expect(summary.body).toContain("250 entries on the list, which holds at most 260.");

    // One INSERT: every row carries the same transaction id and the same command id within it.
    const statements = await sql<{ transactions: string; commands: string; rows: string }>`
      select count(distinct xmin::text) as transactions, count(distinct cmin::text) as commands,
             count(*) as rows
      from suppressions where workspace_id = ${workspace.workspaceId}`.execute(harness.database.db);
    const counted = statements.rows[0];
    // (PostgreSQL answers a bigint as a string, PGlite as a number.)
    expect([counted?.transactions, counted?.commands, counted?.rows].map(Number)).toEqual([1, 1, 250]);

    // 100 a page, newest first, then the next 100 and the last 50: each entry once.
    const seen: string[] = [];
    let page = await browser.get(list);
    const pages: number[] = [];
    for (;;) {
      expect(page.status).toBe(200);
      const rows = rowsOf(page.body);
      pages.push(rows.length);
      seen.push(...rows);
      const next = nextLinkOf(page.body);
      if (next === null) break;
      expect(next).toMatch(/^\/app\/w\/[0-9a-f-]{36}\/suppressions\?after=/);
      expect(page.body.length).toBeLessThan(100_000);
      page = await browser.get(next);
      expect(page.body).toContain(">First page</a>");
    }
    expect(pages).toEqual([100, 100, 50]);
    expect(new Set(seen).size).toBe(250);
    expect([...seen].sort()).toEqual(Array.from({ length: 250 }, (_, n) => domain(n)).sort());

    // A search, whatever the case: `shop-12` is in shop-120..129.
    const searched = await browser.get(`${list}?q=${encodeURIComponent("SHOP-12")}`);
    expect(rowsOf(searched.body).sort()).toEqual(Array.from({ length: 10 }, (_, n) => domain(120 + n)));
    expect(searched.body).toContain('name="q" maxlength="300" value="SHOP-12"');
    const reasons = await browser.get(`${list}?q=asked`);
    expect(rowsOf(reasons.body)).toHaveLength(100);
    expect(nextLinkOf(reasons.body)).toMatch(/\?q=asked&after=/);
    const nothing = await browser.get(`${list}?q=${encodeURIComponent("100%_")}`);
    expect(rowsOf(nothing.body)).toEqual([]);
    expect(nothing.body).toContain("No entry contains “100%_”.");
    // A cursor the page never wrote is the first page, not an error.
    expect(rowsOf((await browser.get(`${list}?after=not-a-cursor`)).body)).toHaveLength(100);

    // 5 known and 15 new would make 265 of 260: nothing is added, and the page says why.
    const tooMany = [
      ...Array.from({ length: 5 }, (_, n) => domain(n)),
      ...Array.from({ length: 15 }, (_, n) => `new-${n}.ca`),
    ];
    const refused = await browser.submit(list, `${list}/import`, { csv: tooMany.join("\n") });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain(
      "Nothing was added: this would take the do-not-contact list past its limit",
    );
    expect(await entryCount(workspace.workspaceId)).toBe(250);
    const one = await browser.submit(list, list, { value: "one-more@shop.ca", reason: "" });
    expect(one.status).toBe(303);
    expect(await entryCount(workspace.workspaceId)).toBe(251);

    // The admin API is held to the same cap: 9 more fill it, the next is 400 invalid_request.
    const admin = (body: unknown) =>
      fetch(`${baseUrl}/admin/workspaces/${workspace.workspaceId}/suppressions`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    for (let n = 0; n < 9; n += 1) expect((await admin({ domain: `admin-${n}.ca` })).status).toBe(201);
    expect((await admin({ domain: domain(3) })).status).toBe(200);
    const full = await admin({ domain: "admin-past-the-cap.ca" });
    expect(full.status).toBe(400);
    const error = ((await full.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain("at most 260 entries; it has 260");
    expect(await entryCount(workspace.workspaceId)).toBe(CAP);
  });

  it("two imports at once cannot pass the cap together: one is added whole, the other not at all", async () => {
    const { workspace, browser, list } = await member("both-at-once@agency.test");
    const second = new HttpConsoleBrowser(baseUrl);
    for (const [name, value] of browser.cookies) second.cookies.set(name, value);
    // 150 + 150 new entries against a cap of 260.
    const importOf = (prefix: string) =>
      Array.from({ length: 150 }, (_, n) => `${prefix}-${n}.ca`).join("\n");
    const answers = await Promise.all([
      browser.submit(list, `${list}/import`, { csv: importOf("first") }),
      second.submit(list, `${list}/import`, { csv: importOf("second") }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 400]);
    const rows = await harness.database.db
      .selectFrom("suppressions")
      .select("value")
      .where("workspace_id", "=", workspace.workspaceId)
      .execute();
    expect(rows).toHaveLength(150);
    expect(new Set(rows.map((row) => row.value.split("-")[0])).size).toBe(1);
  });

  it("counts one entry and one line in the singular, in English and in French, and names the skipped status as the leads do", async () => {
    const { browser, list } = await member("singular@agence.test");
    const imported = await browser.submit(list, `${list}/import`, { csv: "one.ca\nnot an entry here" });
    expect(imported.status).toBe(303);
    const english = await browser.get(imported.location ?? "");
    expect(english.body).toContain("1 entry added, 0 already on the list, 1 line refused.");
    expect(english.body).toContain("1 entry on the list, which holds at most 260.");
    expect(english.body).toContain("their leads read “Skipped”");
    expect(
      (await browser.submit("/app/account", "/app/account/profile", { name: "Luc", language: "fr" })).status,
    ).toBe(303);
    const french = await browser.get(imported.location ?? "");
    expect(french.body).toContain("1 entrée ajoutée, 0 déjà sur la liste, 1 ligne refusée.");
    expect(french.body).toContain("1 entrée sur la liste, qui en compte au plus 260.");
    expect(french.body).toContain("leurs prospects sont marqués «\u00a0Écarté\u00a0»");
    expect(french.body).not.toContain("ignorés");
    const again = await browser.submit(list, `${list}/import`, { csv: "two.ca\nthree.ca\none.ca" });
    const plural = await browser.get(again.location ?? "");
    expect(plural.body).toContain("2 entrées ajoutées, 1 déjà sur la liste, 0 ligne refusée.");
    expect(plural.body).toContain("3 entrées sur la liste, qui en compte au plus 260.");
  });

  it("is searched and paged in French, and refuses past the cap in French", async () => {
    const { browser, list } = await member("liste@agence.test");
    expect(
      (await browser.submit("/app/account", "/app/account/profile", { name: "Luc", language: "fr" })).status,
    ).toBe(303);
    const csv = Array.from({ length: 120 }, (_, n) => `info@${domain(n)}`).join("\n");
    expect((await browser.submit(list, `${list}/import`, { csv })).status).toBe(303);
    const page = await browser.get(list);
    expect(page.body).toContain("Chercher dans la liste (adresse, domaine, identifiant de lieu ou motif)");
    expect(page.body).toContain("120 entrées sur la liste, qui en compte au plus 260.");
    expect(rowsOf(page.body)).toHaveLength(100);
    const next = nextLinkOf(page.body);
    expect(next).not.toBeNull();
    const second = await browser.get(next ?? "");
    expect(rowsOf(second.body)).toHaveLength(20);
    expect(second.body).toContain(">Première page</a>");
    const none = await browser.get(`${list}?q=absent`);
    expect(none.body).toContain("Aucune entrée ne contient «\u00a0absent\u00a0».");
    const csvPastCap = Array.from({ length: 141 }, (_, n) => `autre-${n}.ca`).join("\n");
    const refused = await browser.submit(list, `${list}/import`, { csv: csvPastCap });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain(
      "Rien n&#39;a été ajouté\u00a0: la liste «\u00a0Ne pas contacter\u00a0» dépasserait sa limite",
    );
  });

  it("takes a 1,000-line CSV (over the app's 16 KB bodies) in one request; a lead is checked against the entries that could match it, not the whole list", async () => {
    const { workspace, browser, list } = await member("lookup@agency.test");
    // A second node on the same database with the default cap (20,000).
    const roomy = await startSiblingApp(harness.database.db, { RATE_LIMIT_CONSOLE_READ_PER_MIN: "1000" });
    try {
      await roomy.app.listen({ port: 0, host: "127.0.0.1" });
      const roomyBrowser = new HttpConsoleBrowser(
        `http://127.0.0.1:${(roomy.app.server.address() as AddressInfo).port}`,
      );
      for (const [name, value] of browser.cookies) roomyBrowser.cookies.set(name, value);
      const csv = [
        ...Array.from({ length: 1_000 }, (_, n) => `other-${n}.ca,asked by phone in November 2026`),
        "acme.ca",
        "owner@gmail.com",
        "ChIJ-lookup-place",
        "gmail.example",
      ].join("\n");
      expect(new URLSearchParams({ csv }).toString().length).toBeGreaterThan(16 * 1024);
      const imported = await roomyBrowser.submit(list, `${list}/import`, { csv });
      expect(imported.status).toBe(303);
      expect(imported.location).toMatch(/\?imported=1004-0-0$/);
    } finally {
      await roomy.close();
    }
    expect(await entryCount(workspace.workspaceId)).toBe(1_004);
    const read = await loadSuppressionsFor(harness.database.db, workspace.workspaceId, [
      { placeId: "ChIJ-lookup-place", website: "https://shop.www.acme.ca/contact", email: "Owner@Gmail.com" },
      { placeId: "ChIJ-not-listed", website: "https://nobody.ca/", email: null },
    ]);
    // The place, the address and the website's registrable domain: 3 of 1,004 entries read.
    expect(read.size).toBe(3);
    expect(read.matches({ placeId: "x", website: "http://acme.ca", email: null })).toBe(true);
    expect(read.coversEmail("owner@gmail.com")).toBe(true);
    expect(read.matches({ placeId: "ChIJ-not-listed", website: "https://nobody.ca/", email: null })).toBe(
      false,
    );
    // The leads list reads, in its one statement, the entries that could match its page (2 here).
    const tag = workspace.workspaceId.slice(0, 8);
    await seedLeads(
      harness.database.db,
      workspace.workspaceId,
      [
        { place_id: `plain-${tag}`, website: `https://plain-${tag}.ca/` },
        { place_id: `acme-${tag}`, website: "https://Shop.ACME.ca./contact" },
        { place_id: "ChIJ-lookup-place", website: null },
      ],
      (index) => new Date(Date.UTC(2026, 10, 1, 12, index)),
    );
    const { rows } = await leadPageQuery(workspace.workspaceId, { limit: 10, after: null }).execute(
      harness.database.db,
    );
    expect(rows[0]?.suppression_entries?.map((entry) => entry.value).sort()).toEqual([
      "ChIJ-lookup-place",
      "acme.ca",
    ]);
    const leads = await fetch(`${baseUrl}/v1/leads`, { headers: workspace.auth });
    const statuses = Object.fromEntries(
      ((await leads.json()) as { leads: { place_id: string; outreach_status: string }[] }).leads.map(
        (lead) => [lead.place_id, lead.outreach_status],
      ),
    );
    expect(statuses).toEqual({
      [`plain-${tag}`]: "new",
      [`acme-${tag}`]: "skipped",
      "ChIJ-lookup-place": "skipped",
    });

    const none = await loadSuppressionsFor(harness.database.db, workspace.workspaceId, [
      { placeId: "ChIJ-nothing", website: null, email: "someone@else.ca" },
    ]);
    expect(none.size).toBe(0);
  });
});
