import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { signedUpMember } from "../../support/console.ts";

let harness: TestApp;
beforeAll(async () => {
  harness = await startTestApp();
});
afterAll(async () => harness?.close());

describe("smoke", () => {
  it("renders every page", async () => {
    const ws = await createWorkspace(harness.app);
    const browser = await signedUpMember(harness.app, ws.workspaceId, "a@agency.test");
    for (const page of ["", "/keys", "/members", "/settings", "/leads", "/credits", "/leads.csv"]) {
      const response = await browser.get(`/app/w/${ws.workspaceId}${page}`);
      expect(response.statusCode, `${page}: ${response.body.slice(0, 400)}`).toBe(200);
    }
    expect((await browser.get("/app/account")).statusCode).toBe(200);
  });
});
