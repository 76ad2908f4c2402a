/**
 * Migration 0019: email and domain entries stored as written (a lead's "Do not contact" kept the
 * address as the site wrote it, `Info@Café.ca`) are rewritten to the form they are matched in (the
 * domain's ASCII form, lower-cased), or dropped where the workspace has that entry already.
 */
import { domainToASCII } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { up } from "../../../migrations/0019_suppression_ascii_entries.ts";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";

let harness: TestApp;
beforeAll(async () => {
  harness = await startTestApp();
});
afterAll(async () => harness?.close());

it("rewrites entries to their ASCII, lower-cased form, keeping one entry per value", async () => {
  const { db } = harness.database;
  const { workspaceId } = await createWorkspace(harness.app);
  const rows = [
    { kind: "email" as const, value: "Info@Café.ca" },
    { kind: "email" as const, value: "Owner@Bücher.ca" },
    { kind: "email" as const, value: `owner@${domainToASCII("bücher.ca")}` },
    { kind: "email" as const, value: "Plain@Acme.ca" },
    { kind: "domain" as const, value: "gamma.ca" },
    { kind: "place" as const, value: "ChIJ-Keep-Case" },
  ];
  await db
    .insertInto("suppressions")
    .values(rows.map((row) => ({ workspace_id: workspaceId, ...row })))
    .execute();
  await up(db);
  const after = await db
    .selectFrom("suppressions")
    .select(["kind", "value"])
    .where("workspace_id", "=", workspaceId)
    .orderBy("kind")
    .orderBy("value")
    .execute();
  expect(after).toEqual([
    { kind: "domain", value: "gamma.ca" },
    { kind: "email", value: `info@${domainToASCII("café.ca")}` },
    { kind: "email", value: `owner@${domainToASCII("bücher.ca")}` },
    { kind: "email", value: "plain@acme.ca" },
    { kind: "place", value: "ChIJ-Keep-Case" },
  ]);
});
