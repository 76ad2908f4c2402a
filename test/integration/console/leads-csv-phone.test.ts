/**
 * The leads CSV carries each lead's phone (issue 33 item 6), in its own column after the website,
 * as the places provider gave it (national format), empty when the business has none.
 */
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { signedUpMember } from "../../support/console.ts";
import { seedLeads } from "../../support/seed.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe("GET /app/w/:id/leads.csv", () => {
  it("has a phone column after the website, with each lead's number or nothing", async () => {
    const workspace = await createWorkspace(t.app);
    await seedLeads(t.database.db, workspace.workspaceId, [
      { place_id: "csv-phone-called", name: "Plomberie Gagnon", phone: "(613) 555-0142" },
      { place_id: "csv-phone-none", name: "Vitres sans fil", phone: null },
    ]);
    const browser = await signedUpMember(t.app, workspace.workspaceId, "phone@csv-agency.test");
    const answer = await browser.get(`/app/w/${workspace.workspaceId}/leads.csv`);
    expect(answer.statusCode).toBe(200);
    const [header, ...rows] = parse(answer.body) as string[][];
    expect(header?.slice(0, 7)).toEqual(["id", "name", "category", "address", "website", "phone", "email"]);
    const phoneOf = new Map(rows.map((row) => [row[1], row[header?.indexOf("phone") ?? -1]]));
    expect(phoneOf.get("Plomberie Gagnon")).toBe("(613) 555-0142");
    expect(phoneOf.get("Vitres sans fil")).toBe("");
  });
});
