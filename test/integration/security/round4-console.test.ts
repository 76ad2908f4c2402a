/**
 * The console and query findings of the round-4 outside review (issue 31), each over real HTTP
 * against the listening app: a console action answers once (item 10), integers are decimal digits
 * only (item 11), the CSV export is safe split on `,` or `;` (item 3).
 */
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { signedUpMember } from "../../support/console.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { type CapturedLogs, captureLogs } from "../../support/log-capture.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { seedLeads } from "../../support/seed.ts";

let t: HttpTestApp;
let logs: CapturedLogs;
let workspace: TestWorkspace;
let member: HttpConsoleBrowser;

beforeAll(async () => {
  logs = captureLogs("warn");
  t = await startHttpTestApp({}, { logger: logs.logger });
  workspace = await createWorkspace(t.app, { name: "Round four agency" });
  const joined = await signedUpMember(t.app, workspace.workspaceId, "owner@round4.test");
  member = new HttpConsoleBrowser(t.baseUrl);
  for (const [name, value] of joined.cookies) member.cookies.set(name, value);
});
afterAll(() => t?.close());

describe("item 10: a console action that shows its result once answers once", () => {
  it("a new key and an invite each redirect to the page that shows them, and nothing logs a second reply", async () => {
    const keysPage = `/app/w/${workspace.workspaceId}/keys`;
    const created = await member.submit(keysPage, keysPage, { name: "CRM sync" });
    expect(created.status).toBe(303);
    expect(created.location).toMatch(/\/keys\?flash=[A-Za-z0-9_-]{22}$/);
    const shown = await member.get(created.location ?? "");
    expect(shown.status).toBe(200);
    expect(shown.body).toMatch(/ldk_[A-Za-z0-9_-]+/);

    const membersPage = `/app/w/${workspace.workspaceId}/members`;
    const invited = await member.submit(membersPage, `${membersPage}/invite`, {
      email: "colleague@round4.test",
      name: "",
    });
    expect(invited.status).toBe(303);
    expect((await member.get(invited.location ?? "")).body).toContain("colleague@round4.test");

    // Fastify logs a second answer to one request as "Reply was already sent" (a 500 with a stack).
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs.mentioning("already sent")).toEqual([]);
    expect(logs.lines.filter((line) => Number(line.level) >= 40)).toEqual([]);
  });
});

describe("item 11: integers in query strings and forms are decimal digits only", () => {
  const otherSyntaxes = ["1e1", "0x10", "0b11", "0o7", "+3", " 3", "3 ", "3.0", "1_0", "Infinity", ""];

  it("GET /v1/leads answers 400 invalid_request for each other number syntax of limit, 200 for digits", async () => {
    for (const limit of otherSyntaxes) {
      const response = await fetch(`${t.baseUrl}/v1/leads?limit=${encodeURIComponent(limit)}`, {
        headers: workspace.auth,
      });
      expect(response.status, `limit=${JSON.stringify(limit)}`).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    }
    const digits = await fetch(`${t.baseUrl}/v1/leads?limit=10`, { headers: workspace.auth });
    expect(digits.status).toBe(200);
  });

  it("the console's search form refuses each other number syntax of max_results before searching", async () => {
    const searchPage = `/app/w/${workspace.workspaceId}/search`;
    for (const maxResults of otherSyntaxes) {
      const answer = await member.submit(searchPage, searchPage, {
        location_1: "Montreal",
        category_1: "plumber",
        max_results: maxResults,
      });
      expect(answer.status, `max_results=${JSON.stringify(maxResults)}`).toBe(400);
      expect(answer.body).toContain("most leads to return");
    }
  });
});

describe("item 3: the CSV export is safe in every locale", () => {
  const hostile = [
    "Acme;=1+1;",
    "Acme,=1+1,",
    "Plomberie; +33 1 23;-2+3;@SUM(A1)",
    "Tab;\t=1",
    'Quoted;"=1+1";',
    "Lines\n=1+1\r\n-2\r\r=3",
  ];

  it("no cell of the export, parsed as RFC 4180 with `,` or with `;`, starts with = + - @ tab or CR", async () => {
    const leadIds = await seedLeads(
      t.database.db,
      workspace.workspaceId,
      hostile.map((name, index) => ({
        place_id: `csv-hostile-${index}`,
        name,
        category: "=HYPERLINK(1);-1",
      })),
    );
    // The draft columns too: a subject and a body written by a model from a hostile page.
    for (const [index, leadId] of leadIds.entries()) {
      await t.database.db
        .insertInto("drafts")
        .values({
          workspace_id: workspace.workspaceId,
          lead_id: leadId,
          locale: "en",
          generator: "test",
          subject: `Hello;=cmd|' /C calc'!A0;${index}`,
          body: `Hi,\n- a bullet\n=1+1\n+1;-1,@x\r\n\t=tab`,
          facts_used: JSON.stringify([]),
        })
        .execute();
    }
    const exported = await member.get(`/app/w/${workspace.workspaceId}/leads.csv`);
    expect(exported.status).toBe(200);
    for (const delimiter of [",", ";"]) {
      const cells = (
        parse(exported.body, {
          delimiter,
          relax_quotes: true,
          relax_column_count: true,
          skip_records_with_error: true,
        }) as string[][]
      ).flat();
      expect(cells.length, delimiter).toBeGreaterThan(hostile.length * 3);
      const live = cells.filter((cell) => /^[=+\-@\t\r]/.test(cell));
      expect(live, `cells split on ${delimiter}`).toEqual([]);
      // The same on the raw text, for a reader that splits on the character without any quoting rule.
      const rawCells = exported.body.split(/\r\n|\n|\r/).flatMap((line) => line.split(delimiter));
      expect(
        rawCells.filter((cell) => /^"?[=+\-@\t]/.test(cell)),
        `raw split on ${delimiter}`,
      ).toEqual([]);
    }
    // The export is still one row per lead with its values intact (after the apostrophes).
    const rows = parse(exported.body, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => row.name).sort()).toEqual(
      hostile.map((name) => name.replace(/(?<=^|[,;\r\n"])(?=[=+\-@\t\r])/g, "'")).sort(),
    );
  });
});
