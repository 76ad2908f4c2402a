/**
 * The console and query findings of the round-4 outside review (issue 31), each over real HTTP
 * against the listening app: a console action answers once (item 10), integers are decimal digits
 * only (item 11).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { signedUpMember } from "../../support/console.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { type CapturedLogs, captureLogs } from "../../support/log-capture.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";

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
      expect(answer.body).toContain("max_results");
    }
  });
});
