// The console's CSV export is an operation (DESIGN.md "One operation layer, three doors"; issue 27
// item 4): it spends the member's console read budget and writes the operation's log line, as
// the lead page and the other reads do.
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggerOptions } from "../../../shared/logger.ts";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { signedUpMember } from "../../support/console.ts";
import { seedLeads } from "../../support/seed.ts";

const logLines: Record<string, unknown>[] = [];
let harness: TestApp;
beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  harness = await startTestApp(
    { RATE_LIMIT_CONSOLE_READ_PER_MIN: "2" },
    {},
    { logger: pino(loggerOptions("info", "api"), sink) },
  );
});
afterAll(async () => harness?.close());

describe("the console's CSV export", () => {
  it("is the export operation: one log line each, and the console's read budget spent", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Export Agency" });
    await seedLeads(harness.database.db, workspace.workspaceId, [
      { place_id: "export-1", name: "Export One" },
    ]);
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "export@agency.test");
    const path = `/app/w/${workspace.workspaceId}/leads.csv`;

    const first = await browser.get(path);
    expect(first.statusCode).toBe(200);
    expect(first.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(first.body.split("\r\n")[1]).toContain("Export One");
    expect((await browser.get(path)).statusCode).toBe(200);
    // A budget of 2 a minute: the third download is refused before anything is read.
    const third = await browser.get(path);
    expect(third.statusCode).toBe(429);
    expect(Number(third.headers["retry-after"])).toBeGreaterThan(0);

    const exports = logLines.filter((line) => line.operation === "export_leads");
    expect(
      exports.map((line) => [line.outcome, line.principal, line.workspace_id, line.credits_spent]),
    ).toEqual([
      ["ok", "console_member", workspace.workspaceId, 0],
      ["ok", "console_member", workspace.workspaceId, 0],
    ]);
  });
});
