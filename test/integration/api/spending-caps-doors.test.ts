/**
 * Spending caps through every door that spends, over real HTTP (issue 28 item 4): caps set by a
 * member in the console (a connected app's on the connected-apps page, a key's at creation and
 * later on its caps page, refused input shown beside its field with what was typed), an OAuth
 * grant's search through MCP refused at its cap with nothing saved or charged while another key
 * of the workspace still works, `get_credit_balance` reporting what the grant may still spend, and
 * a capped key's draft refused before the model is asked (the fake OpenAI server on loopback
 * counts no call). Runs on PostgreSQL and on PGlite (test/integration/api/ is in both projects).
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect } from "vitest";
import { adminRequest, createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { csrfOf, signedUpMember } from "../../support/console.ts";
import { seedLead } from "../../support/drafting.ts";
import { type FakeGooglePlacesServer, syntheticPlaces } from "../../support/fake-google-places.ts";
import { type FakeOpenAiServer, startFakeOpenAi } from "../../support/fake-openai.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { modelCatalogue } from "../../support/model-catalogue.ts";
import {
  authorizeUrl,
  type HttpTestApp,
  memberSession,
  obtainTokens,
  openConsentPage,
  pkcePair,
  redirectParams,
  registerTestClient,
  startHttpTestApp,
  submitConsent,
} from "../../support/oauth.ts";
import { buyCredits, ledgerState, uniqueLocation } from "../../support/searches.ts";

let places: FakeGooglePlacesServer;
let openai: FakeOpenAiServer;
let t: HttpTestApp;

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  openai = await startFakeOpenAi();
  t = await startHttpTestApp({
    ...places.env,
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_MODEL: "fake-drafting-model",
    OPENAI_BASE_URL: openai.baseURL,
    RATE_LIMIT_READ_PER_MIN: "1000",
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
  });
}, 180_000);
afterAll(async () => {
  await t?.close();
  await openai?.close();
});

/** The workspace's first member in the console, over real HTTP. */
async function consoleOf(ws: TestWorkspace): Promise<HttpConsoleBrowser> {
  const browser = new HttpConsoleBrowser(t.baseUrl);
  const [name = "", value = ""] = (await memberSession(t.app, ws)).split("=");
  browser.cookies.set(name, value);
  return browser;
}

function program(location: string, count: number): void {
  const prefix = location.replaceAll(" ", "-");
  places.setPlaces(
    `plumber in ${location}`,
    syntheticPlaces(count, { prefix }).map((place, index) => ({ ...place, userRatingCount: 10 + index })),
  );
}

function postJson(path: string, key: string, body: unknown) {
  return fetch(`${t.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function spendRows(ws: TestWorkspace) {
  return t.database.db
    .selectFrom("credit_spends")
    .select(["api_key_id", "grant_id", "credits"])
    .where("workspace_id", "=", ws.workspaceId)
    .orderBy("spent_at")
    .execute();
}

const textOf = (result: CallToolResult) => (result.content[0]?.type === "text" ? result.content[0].text : "");
const nextUtcMidnight = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
};
/** The row of the table whose first cell starts with `name`, tags stripped, spaces collapsed. */
const rowText = (page: string, name: string) =>
  (new RegExp(`<tr>\\s*<td[^>]*>${name}[\\s\\S]*?</tr>`).exec(page)?.[0] ?? "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");

describe("a connected app (OAuth grant) capped in the console, through MCP", () => {
  test("its search past the total cap is an insufficient_credits tool error, nothing saved or charged; another key still works", async () => {
    const ws = await createWorkspace(t.app, { name: "Capped assistant agency" });
    await buyCredits(t, ws, 100);
    const browser = await consoleOf(ws);
    const tokens = await obtainTokens(t.baseUrl, {
      session: `ld_session=${browser.cookies.get("ld_session")}`,
      workspaceId: ws.workspaceId,
      clientName: "Capped assistant",
    });
    const grant = await t.database.db
      .selectFrom("oauth_grants")
      .select("id")
      .where("workspace_id", "=", ws.workspaceId)
      .executeTakeFirstOrThrow();

    // The connected-apps page: the app with what it spent (nothing, no cap), then its caps page.
    const apps = await browser.get("/app/account/apps");
    expect(rowText(apps.body, "Capped assistant")).toContain("0 (no cap) 0 (no cap)");
    const capsPath = `/app/account/apps/${grant.id}/caps`;
    expect(apps.body).toContain(`href="${capsPath}"`);
    // A cap that is not a whole number: the page again, 400, the error beside the field, the text kept.
    const refused = await browser.submit(capsPath, capsPath, {
      daily_credit_cap: "10",
      total_credit_cap: "3.5",
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(
      /id="caps-total-cap" name="total_credit_cap" value="3.5"[^>]* aria-describedby="caps-total-cap-hint caps-total-cap-error" aria-invalid="true"><p class="field-error" id="caps-total-cap-error">Enter a whole number/,
    );
    expect(refused.body).toContain('name="daily_credit_cap" value="10"');
    expect(
      await t.database.db
        .selectFrom("oauth_grants")
        .select(["daily_credit_cap", "total_credit_cap"])
        .where("id", "=", grant.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ daily_credit_cap: null, total_credit_cap: null });
    // Without the form's CSRF token: refused, nothing set.
    expect((await browser.post(capsPath, { daily_credit_cap: "1", total_credit_cap: "1" })).status).toBe(403);
    const saved = await browser.submit(capsPath, capsPath, { daily_credit_cap: "10", total_credit_cap: "3" });
    expect(saved.status, saved.body.slice(0, 300)).toBe(303);
    expect(saved.location).toBe("/app/account/apps?done=caps_saved");

    const client = new Client({ name: "caps-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
      }),
    );
    try {
      const balance = async () =>
        ((await client.callTool({ name: "get_credit_balance", arguments: {} })) as CallToolResult)
          .structuredContent;
      expect(await balance()).toEqual({
        balance: 110,
        spendable: 3,
        spending_caps: {
          applies_to: "oauth_grant",
          daily: { cap: 10, spent_today: 0, remaining: 10, resets_at: nextUtcMidnight() },
          total: { cap: 3, spent_total: 0, remaining: 3 },
        },
      });

      const first = uniqueLocation("Grantville");
      program(first, 2);
      const found = (await client.callTool({
        name: "search_leads",
        arguments: { queries: [{ location: first, category: "plumber" }], max_results: 5 },
      })) as CallToolResult;
      expect(found.isError ?? false, textOf(found)).toBe(false);
      expect(found.structuredContent).toMatchObject({ credits_spent: 2 });
      expect(await balance()).toMatchObject({
        balance: 108,
        spendable: 1,
        spending_caps: { daily: { spent_today: 2, remaining: 8 }, total: { spent_total: 2, remaining: 1 } },
      });

      // Two new places, one credit left under the cap: refused, nothing saved or charged.
      const second = uniqueLocation("Grantville");
      program(second, 2);
      const before = await ledgerState(t, ws);
      const refusedSearch = (await client.callTool({
        name: "search_leads",
        arguments: { queries: [{ location: second, category: "plumber" }], max_results: 5 },
      })) as CallToolResult;
      expect(refusedSearch.isError).toBe(true);
      expect(textOf(refusedSearch)).toMatch(
        /^insufficient_credits: This connected app has a total credit cap of 3 and has spent 2; this needs 2 credits\. Nothing was saved or charged\./,
      );
      expect(textOf(refusedSearch)).toContain(
        "To go on within the cap, lower max_results to 1 or fewer (places already charged in this workspace are free).",
      );
      expect(refusedSearch._meta?.error).toMatchObject({ code: "insufficient_credits" });
      expect(refusedSearch.structuredContent).toBeUndefined();
      expect(await ledgerState(t, ws)).toEqual(before);
      expect(await spendRows(ws)).toEqual([{ api_key_id: null, grant_id: grant.id, credits: 2 }]);

      // The workspace's own key, uncapped, finds the same places and is charged for them.
      const other = await postJson("/v1/searches", ws.key, {
        queries: [{ location: second, category: "plumber" }],
        max_results: 5,
      });
      expect(other.status).toBe(200);
      expect(((await other.json()) as { credits_spent: number }).credits_spent).toBe(2);
      const after = await ledgerState(t, ws);
      expect(after.balance).toBe(106);
      expect(after.leads).toHaveLength(4);
      expect(await spendRows(ws)).toEqual([
        { api_key_id: null, grant_id: grant.id, credits: 2 },
        { api_key_id: ws.keyId, grant_id: null, credits: 2 },
      ]);
      // The grant may still spend 1 (total cap), and the page says what it spent against its caps.
      expect(await balance()).toMatchObject({ balance: 106, spendable: 1 });
      const listed = await browser.get("/app/account/apps?done=caps_saved");
      expect(listed.body).toContain("Spending caps saved.");
      expect(rowText(listed.body, "Capped assistant")).toContain("2 of 10 2 of 3");

      // The operator sees the same through the admin API, and clears the total cap there.
      const grants = await adminRequest(t.app, "GET", `/admin/workspaces/${ws.workspaceId}/oauth-grants`);
      expect(grants.statusCode).toBe(200);
      expect(grants.json()).toEqual({
        oauth_grants: [
          expect.objectContaining({
            id: grant.id,
            client_name: "Capped assistant",
            daily_credit_cap: 10,
            total_credit_cap: 3,
            spent_today: 2,
            spent_total: 2,
          }),
        ],
      });
      const cleared = await adminRequest(
        t.app,
        "PATCH",
        `/admin/workspaces/${ws.workspaceId}/oauth-grants/${grant.id}`,
        { total_credit_cap: null },
      );
      expect(cleared.statusCode, cleared.body).toBe(200);
      expect(cleared.json()).toMatchObject({ daily_credit_cap: 10, total_credit_cap: null, spent_total: 2 });
      const unknown = await adminRequest(
        t.app,
        "PATCH",
        `/admin/workspaces/${ws.workspaceId}/oauth-grants/00000000-0000-4000-8000-000000000000`,
        { total_credit_cap: 1 },
      );
      expect(unknown.statusCode).toBe(404);
      const third = uniqueLocation("Grantville");
      program(third, 2);
      const again = (await client.callTool({
        name: "search_leads",
        arguments: { queries: [{ location: third, category: "plumber" }], max_results: 5 },
      })) as CallToolResult;
      expect(again.isError ?? false, textOf(again)).toBe(false);
      expect(await balance()).toMatchObject({
        balance: 104,
        spendable: 6,
        spending_caps: { daily: { spent_today: 4, remaining: 6 }, total: null },
      });
    } finally {
      await client.close();
    }

    // Another member of the workspace does not see this person's app, and cannot set its caps.
    const other = await signedUpMember(t.app, ws.workspaceId, "other@capped.test", "Other Member");
    const othersApps = await other.get("/app/account/apps");
    expect(othersApps.body).not.toContain("Capped assistant");
    expect((await other.get(capsPath)).statusCode).toBe(404);
    const foreign = await other.post(capsPath, {
      csrf_token: csrfOf(othersApps.body),
      daily_credit_cap: "1000",
      total_credit_cap: "1000",
    });
    expect(foreign.statusCode).toBe(404);
    expect(
      await t.database.db
        .selectFrom("oauth_grants")
        .select(["daily_credit_cap", "total_credit_cap"])
        .where("id", "=", grant.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ daily_credit_cap: 10, total_credit_cap: null });
  });
});

describe("caps chosen on the consent page", () => {
  test("a mistyped cap shows the page again with the request open, then the approved grant carries the caps", async () => {
    const ws = await createWorkspace(t.app, { name: "Consent caps agency" });
    const session = await memberSession(t.app, ws);
    const redirectUri = "http://127.0.0.1:9/callback";
    const client = await registerTestClient(t.baseUrl, {
      redirect_uris: [redirectUri],
      client_name: "Careful assistant",
    });
    const page = await openConsentPage(
      authorizeUrl(t.baseUrl, {
        clientId: client.client_id,
        redirectUri,
        challenge: pkcePair().challenge,
        state: "s",
      }),
      session,
    );
    expect(page.html).toContain("Spending caps (optional)");
    expect(page.html).toContain('name="daily_credit_cap" value=""');

    const refused = await submitConsent(t.baseUrl, page, {
      decision: "approve",
      workspace_id: ws.workspaceId,
      daily_credit_cap: "five",
      total_credit_cap: "40",
    });
    expect(refused.status).toBe(400);
    const body = await refused.text();
    expect(body).toMatch(
      /name="daily_credit_cap" value="five"[^>]*aria-invalid="true"><p class="field-error" id="consent-daily-cap-error">Enter a whole number/,
    );
    expect(body).toContain('name="total_credit_cap" value="40"');
    expect(body).toContain(`name="request_id" value="${page.requestId}"`);
    const grants = () =>
      t.database.db
        .selectFrom("oauth_grants")
        .select(["daily_credit_cap", "total_credit_cap"])
        .where("workspace_id", "=", ws.workspaceId)
        .execute();
    expect(await grants()).toEqual([]);

    const approved = await submitConsent(t.baseUrl, page, {
      decision: "approve",
      workspace_id: ws.workspaceId,
      daily_credit_cap: "5",
      total_credit_cap: "",
    });
    expect(approved.status).toBe(303);
    expect(redirectParams(approved).searchParams.get("code")).toMatch(/./);
    expect(await grants()).toEqual([{ daily_credit_cap: 5, total_credit_cap: null }]);
  });
});

describe("drafts of a capped key started together", () => {
  test("with 1 credit left under its daily cap, eight parallel drafts hold once and ask the model once; seven answer 402 while it writes", async () => {
    const ws = await createWorkspace(t.app, { name: "Parallel drafts agency" });
    await buyCredits(t, ws, 100);
    const created = await adminRequest(t.app, "POST", `/admin/workspaces/${ws.workspaceId}/api-keys`, {
      name: "burst",
      created_by: ws.memberId,
      daily_credit_cap: 1,
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id: keyId, key } = created.json() as { id: string; key: string };
    const leads = await Promise.all(Array.from({ length: 8 }, () => seedLead(t, ws)));

    // The one generation is held open until every other request has answered: a 402 that waited
    // for the model (or a second generation) would keep this test from finishing.
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    openai.reset();
    openai.respondWith((request) => ({
      kind: "afterGate",
      gate,
      answer: modelCatalogue.wellBehaved(request),
    }));
    const settled: number[] = [];
    let othersAnswered = () => {};
    const others = new Promise<void>((resolve) => {
      othersAnswered = resolve;
    });
    const requests = leads.map((leadId) =>
      postJson(`/v1/leads/${leadId}/outreach-draft`, key, { locale: "en" }).then(async (response) => {
        const body = (await response.json()) as { error?: { code: string; message: string } };
        settled.push(response.status);
        if (settled.length === leads.length - 1) othersAnswered();
        return { status: response.status, body };
      }),
    );
    await others;
    expect(settled).toEqual(Array(7).fill(402));
    expect(openai.completionCalls()).toBe(1);
    const holds = await t.database.db
      .selectFrom("credit_holds")
      .select(["api_key_id", "credits"])
      .where("workspace_id", "=", ws.workspaceId)
      .execute();
    expect(holds).toEqual([{ api_key_id: keyId, credits: 1 }]);
    openGate();

    const answers = await Promise.all(requests);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(7).fill(402)]);
    for (const answer of answers.filter((each) => each.status === 402)) {
      expect(answer.body.error?.code).toBe("insufficient_credits");
      expect(answer.body.error?.message).toMatch(
        /^This API key has a daily credit cap of 1 and has spent [01] today/,
      );
    }
    expect(openai.completionCalls()).toBe(1);
    const after = await ledgerState(t, ws);
    expect(after.balance).toBe(109);
    expect(await spendRows(ws)).toEqual([{ api_key_id: keyId, grant_id: null, credits: 1 }]);
    expect(
      await t.database.db
        .selectFrom("credit_holds")
        .select("id")
        .where("workspace_id", "=", ws.workspaceId)
        .execute(),
    ).toEqual([]);
  });
});

describe("an API key capped in the console", () => {
  test("created with a daily cap, its draft past it is refused before the model is asked; raising the cap lets it draft", async () => {
    const ws = await createWorkspace(t.app, { name: "Capped key agency" });
    await buyCredits(t, ws, 100);
    const browser = await consoleOf(ws);
    const keysPath = `/app/w/${ws.workspaceId}/keys`;

    // Refused creation: both errors beside their fields, what was typed kept, no key made.
    const refused = await browser.submit(keysPath, keysPath, {
      name: "  ",
      daily_credit_cap: "one",
      total_credit_cap: "1 000",
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain("Nothing was saved: check the fields marked below.");
    expect(refused.body).toMatch(/id="key-name-error">Give the key a name\./);
    expect(refused.body).toMatch(
      /name="daily_credit_cap" value="one"[^>]*aria-invalid="true"><p class="field-error"/,
    );
    expect(refused.body).toMatch(
      /name="total_credit_cap" value="1 000"[^>]*aria-describedby="key-total-cap-hint">/,
    );
    const keyCount = async () =>
      (
        await t.database.db
          .selectFrom("api_keys")
          .select("id")
          .where("workspace_id", "=", ws.workspaceId)
          .execute()
      ).length;
    expect(await keyCount()).toBe(1);

    const created = await browser.submit(keysPath, keysPath, {
      name: "Drafting bot",
      daily_credit_cap: "1",
      total_credit_cap: "1 000",
    });
    expect(created.status).toBe(303);
    const key = /ldk_[A-Za-z0-9_-]{43}/.exec((await browser.get(created.location ?? "")).body)?.[0] ?? "";
    expect(key).not.toBe("");
    const stored = await t.database.db
      .selectFrom("api_keys")
      .select(["id", "daily_credit_cap", "total_credit_cap"])
      .where("workspace_id", "=", ws.workspaceId)
      .where("name", "=", "Drafting bot")
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ daily_credit_cap: 1, total_credit_cap: 1000 });

    openai.reset();
    openai.respondWith(modelCatalogue.wellBehaved);
    const firstLead = await seedLead(t, ws);
    const secondLead = await seedLead(t, ws);
    const draft = (leadId: string, withKey: string) =>
      postJson(`/v1/leads/${leadId}/outreach-draft`, withKey, { locale: "en" });
    expect((await draft(firstLead, key)).status).toBe(200);
    expect(openai.completionCalls()).toBe(1);

    const before = await ledgerState(t, ws);
    const capped = await draft(secondLead, key);
    expect(capped.status).toBe(402);
    const { error } = (await capped.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("insufficient_credits");
    expect(error.message).toContain("This API key has a daily credit cap of 1 and has spent 1 today (UTC)");
    expect(error.message).toContain(`The cap resets at ${nextUtcMidnight()}.`);
    // The model was not asked; no draft, no hold, no charge.
    expect(openai.completionCalls()).toBe(1);
    expect(await ledgerState(t, ws)).toEqual(before);
    const drafts = await t.database.db
      .selectFrom("drafts")
      .select("lead_id")
      .where("workspace_id", "=", ws.workspaceId)
      .execute();
    expect(drafts.map((row) => row.lead_id)).toEqual([firstLead]);
    const holds = await t.database.db
      .selectFrom("credit_holds")
      .select("id")
      .where("workspace_id", "=", ws.workspaceId)
      .execute();
    expect(holds).toEqual([]);

    // The keys page: spent against each cap.
    const listed = await browser.get(keysPath);
    expect(rowText(listed.body, "Drafting bot")).toMatch(/ 1 of 1 1 of 1000 /);

    // Raised later on the key's caps page (a refused value first, kept beside its error).
    const capsPath = `${keysPath}/${stored.id}/caps`;
    expect(listed.body).toContain(`href="${capsPath}"`);
    const negative = await browser.submit(capsPath, capsPath, {
      daily_credit_cap: "-5",
      total_credit_cap: "1000",
    });
    expect(negative.status).toBe(400);
    expect(negative.body).toMatch(/name="daily_credit_cap" value="-5"[^>]*aria-invalid="true">/);
    expect(
      (await browser.submit(capsPath, capsPath, { daily_credit_cap: "", total_credit_cap: "1000" })).location,
    ).toBe(`${keysPath}?done=caps_saved`);
    expect((await draft(secondLead, key)).status).toBe(200);
    expect(openai.completionCalls()).toBe(2);
    expect(rowText((await browser.get(keysPath)).body, "Drafting bot")).toMatch(/ 2 \(no cap\) 2 of 1000 /);

    // In French: the same page's words, a no-break space before the colon.
    expect(
      (await browser.submit("/app/account", "/app/account/profile", { name: "Luc", language: "fr" })).status,
    ).toBe(303);
    const french = await browser.submit(capsPath, capsPath, { daily_credit_cap: "x", total_credit_cap: "" });
    expect(french.status).toBe(400);
    expect(french.body).toContain("Plafond par jour");
    expect(french.body).toContain("enregistré\u00a0: vérifiez les champs signalés ci-dessous.");
    expect(french.body).toContain("Saisissez un nombre entier de crédits");
  });
});
