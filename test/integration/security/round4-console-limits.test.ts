/**
 * The console's own limits (issue 31 item 9), over real HTTP against the listening app: a
 * person's clicks are counted in the console's per-member budget (RATE_LIMIT_CONSOLE_*), apart
 * from the API key limits (RATE_LIMIT_READ_PER_MIN stays at its default of 30), and the page over
 * the budget says, in the member's language, how long to wait.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, createWorkspace, type SiblingApp, startSiblingApp } from "../../support/app.ts";
import { signedUpMember } from "../../support/console.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { seedLeads } from "../../support/seed.ts";

let t: HttpTestApp;

beforeAll(async () => {
  t = await startHttpTestApp();
});
afterAll(() => t?.close());

async function memberWithLeads(app: HttpTestApp | SiblingApp, baseUrl: string, count: number, email: string) {
  const ws = await createWorkspace(app.app, { name: "Fast agency" });
  const joined = await signedUpMember(app.app, ws.workspaceId, email);
  const member = new HttpConsoleBrowser(baseUrl);
  for (const [name, value] of joined.cookies) member.cookies.set(name, value);
  const leadIds = await seedLeads(
    t.database.db,
    ws.workspaceId,
    Array.from({ length: count }, (_, index) => ({
      place_id: `${email}-fast-${index}`,
      name: `Fast business ${index}`,
      website: null,
    })),
  );
  const bought = await adminRequest(app.app, "POST", `/admin/workspaces/${ws.workspaceId}/credit-purchases`, {
    credits: 100,
  });
  expect(bought.statusCode, bought.body).toBeLessThan(300);
  return { ws, member, leadIds };
}

describe("item 9: the console's own per-member budget", () => {
  it("a person opens 60 lead pages and drafts 12 leads in a minute without a refusal", async () => {
    const { ws, member, leadIds } = await memberWithLeads(t, t.baseUrl, 60, "fast@agency.test");
    const started = Date.now();
    const statuses: number[] = [];
    for (const leadId of leadIds)
      statuses.push((await member.get(`/app/w/${ws.workspaceId}/leads/${leadId}`)).status);
    for (const leadId of leadIds.slice(0, 12)) {
      const page = `/app/w/${ws.workspaceId}/leads/${leadId}`;
      const drafted = await member.submit(page, `${page}/draft`, {});
      statuses.push(drafted.status);
    }
    expect(statuses.filter((status) => status >= 400)).toEqual([]);
    expect(statuses).toHaveLength(72);
    // Observed, not asserted: how long the 72 actions (and 12 form pages) took here.
    console.info(`60 lead pages and 12 drafts in ${Date.now() - started} ms`);
    // The operation layer still counts them, in the console's bucket: the API key's is untouched.
    const api = await fetch(`${t.baseUrl}/v1/credits`, { headers: ws.auth });
    expect(api.status).toBe(200);
    expect(Number(api.headers.get("ratelimit-remaining"))).toBe(29);
  });

  it("over its budget, the page says in French how long to wait", async () => {
    const tight = await startSiblingApp(t.database.db, { RATE_LIMIT_CONSOLE_READ_PER_MIN: "3" });
    try {
      const port = await new Promise<number>((resolve) => {
        tight.app.listen({ port: 0, host: "127.0.0.1" }).then(() => {
          const address = tight.app.server.address();
          resolve(typeof address === "object" && address ? address.port : 0);
        });
      });
      const baseUrl = `http://127.0.0.1:${port}`;
      const { ws, member, leadIds } = await memberWithLeads(tight, baseUrl, 4, "lent@agence.test");
      await t.database.db
        .updateTable("accounts")
        .set({ language: "fr" })
        .where("email", "=", "lent@agence.test")
        .execute();
      const answers = [];
      for (const leadId of leadIds)
        answers.push(await member.get(`/app/w/${ws.workspaceId}/leads/${leadId}`));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
      const refused = answers[3];
      expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused?.body).toMatch(/Attendez \d+ secondes, puis rechargez cette page/);
      expect(refused?.body).not.toContain("API key");
      expect(refused?.body).toContain('lang="fr"');
    } finally {
      await tight.close();
    }
  });
});
