/**
 * Migration 0017: domain entries stored as typed before they were reduced to their registrable
 * domain (`www.acme.ca`, `mail.acme.ca`) are rewritten to it, or dropped where the workspace has it
 * already, since the matcher now reads only the entries whose value is a candidate's parent domain.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { up } from "../../../migrations/0017_suppression_registrable_domains.ts";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";

let harness: TestApp;
beforeAll(async () => {
  harness = await startTestApp();
});
afterAll(async () => harness?.close());

it("rewrites legacy domain entries to their registrable domain, keeping one entry per domain", async () => {
  const { db } = harness.database;
  const { workspaceId } = await createWorkspace(harness.app);
  const legacy = [
    "www.acme.ca",
    "mail.acme.ca",
    "WWW.Beta.ca",
    "shop.acme.wixsite.com",
    "www.intranet.test",
    "gamma.ca",
  ];
  await db
    .insertInto("suppressions")
    .values(legacy.map((value) => ({ workspace_id: workspaceId, kind: "domain" as const, value })))
    .execute();
  await db
    .insertInto("suppressions")
    .values({ workspace_id: workspaceId, kind: "email", value: "info@www.delta.ca" })
    .execute();
  await up(db);
  const rows = await db
    .selectFrom("suppressions")
    .select(["kind", "value"])
    .where("workspace_id", "=", workspaceId)
    .orderBy("value")
    .execute();
  expect(rows).toEqual([
    { kind: "domain", value: "acme.ca" },
    { kind: "domain", value: "acme.wixsite.com" },
    { kind: "domain", value: "beta.ca" },
    { kind: "domain", value: "gamma.ca" },
    { kind: "email", value: "info@www.delta.ca" },
    { kind: "domain", value: "intranet.test" },
  ]);
});
