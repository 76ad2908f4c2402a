/**
 * Issue 19, finding 9: a place's website is stored only when it is an http(s) URL. Anyone can edit
 * a business listing; a `javascript:` or `data:` link the provider passes on is no website, and no
 * door (the API, MCP, the console's CSV) may hand it to a client as one. Over real HTTP: the
 * service listens on a port, the fake Google Places server answers its provider.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { type FakeGooglePlacesServer, googlePlace } from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { type HttpTestApp, memberSession, obtainTokens, startHttpTestApp } from "../../support/oauth.ts";

const WEBSITES: Record<string, string> = {
  "scheme-javascript": "javascript:alert(document.cookie)",
  "scheme-data": "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
  "scheme-vbscript": "vbscript:msgbox(1)",
  "scheme-ftp": "ftp://files.example/menu.pdf",
  "scheme-mailto": "mailto:owner@business.example",
  "scheme-https": "https://real-bakery.example/",
  "scheme-http": "http://old-bakery.example/",
};

let fake: FakeGooglePlacesServer;
let t: HttpTestApp;
let ws: TestWorkspace;
let mcp: Client;

test.beforeAll(async ({ googlePlaces }) => {
  fake = googlePlaces;
  fake.setPlaces(
    "bakery in Springfield",
    Object.entries(WEBSITES).map(([id, website]) => googlePlace(id, website)),
  );
  t = await startHttpTestApp({
    ...fake.env,
    RATE_LIMIT_READ_PER_MIN: "500",
    RATE_LIMIT_SEARCH_PER_MIN: "100",
  });
  ws = await createWorkspace(t.app, { name: "Scheme agency" });
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
});

interface Lead {
  id: string;
  place_id: string;
  website: string | null;
}

const expected = (placeId: string): string | null =>
  placeId === "scheme-https" || placeId === "scheme-http" ? (WEBSITES[placeId] ?? null) : null;

describe("a website that is not http(s) is no website", () => {
  it("in the search answer, the lead list and each lead's detail (/v1)", async () => {
    const response = await fetch(`${t.baseUrl}/v1/searches`, {
      method: "POST",
      headers: { ...ws.auth, "content-type": "application/json" },
      body: JSON.stringify({ queries: [{ location: "Springfield", category: "bakery" }], max_results: 10 }),
    });
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as { results: (Lead & { has_website: boolean })[] };
    expect(results).toHaveLength(Object.keys(WEBSITES).length);
    for (const result of results) {
      expect(result.website, result.place_id).toBe(expected(result.place_id));
      expect(result.has_website, result.place_id).toBe(expected(result.place_id) !== null);
    }

    const list = (await (await fetch(`${t.baseUrl}/v1/leads?limit=100`, { headers: ws.auth })).json()) as {
      leads: Lead[];
    };
    expect(list.leads).toHaveLength(results.length);
    for (const lead of list.leads) expect(lead.website, lead.place_id).toBe(expected(lead.place_id));

    for (const lead of list.leads) {
      const detail = (await (
        await fetch(`${t.baseUrl}/v1/leads/${lead.id}`, { headers: ws.auth })
      ).json()) as Lead & {
        no_website_flag: boolean;
      };
      expect(detail.website, lead.place_id).toBe(expected(lead.place_id));
      expect(detail.no_website_flag, lead.place_id).toBe(expected(lead.place_id) === null);
    }
  });

  it("through MCP (get_lead, list_leads) and in the console's CSV export", async () => {
    const session = await memberSession(t.app, ws);
    const tokens = await obtainTokens(t.baseUrl, { session, workspaceId: ws.workspaceId });
    mcp = new Client({ name: "scheme-test", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
      }),
    );
    const textOf = (result: unknown): string => {
      const first = (result as CallToolResult).content[0];
      if (first?.type !== "text") throw new Error("expected text content");
      return first.text;
    };
    const listed = JSON.parse(
      textOf(await mcp.callTool({ name: "list_leads", arguments: { limit: 100 } })),
    ) as {
      leads: Lead[];
    };
    expect(listed.leads).toHaveLength(Object.keys(WEBSITES).length);
    for (const lead of listed.leads) {
      expect(lead.website, lead.place_id).toBe(expected(lead.place_id));
      const one = JSON.parse(
        textOf(await mcp.callTool({ name: "get_lead", arguments: { lead_id: lead.id } })),
      ) as Lead;
      expect(one.website, lead.place_id).toBe(expected(lead.place_id));
    }

    const csv = await (
      await fetch(`${t.baseUrl}/app/w/${ws.workspaceId}/leads.csv`, { headers: { cookie: session } })
    ).text();
    for (const website of Object.values(WEBSITES)) {
      const scheme = website.slice(0, website.indexOf(":"));
      if (scheme === "http" || scheme === "https") expect(csv).toContain(website);
      else expect(csv, scheme).not.toContain(`${scheme}:`);
    }
  });
});
