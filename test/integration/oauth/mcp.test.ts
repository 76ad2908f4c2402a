/**
 * `/mcp` through the MCP SDK's own client over real HTTP: with an OAuth access token passed as a
 * header, and through the SDK's OAuth flow (discovery from the 401 challenge, dynamic
 * registration, PKCE, code exchange), then every tool against the fake Places server.
 */

import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { type FakeGooglePlacesServer, syntheticPlaces } from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import {
  type HttpTestApp,
  memberSession,
  obtainTokens,
  openConsentPage,
  redirectParams,
  startHttpTestApp,
  submitConsent,
  type TokenSet,
} from "../../support/oauth.ts";
import { seedLeads } from "../../support/seed.ts";

const TOOL_NAMES = ["draft_outreach_email", "get_credit_balance", "get_lead", "list_leads", "search_leads"];

let fake: FakeGooglePlacesServer;
let t: HttpTestApp;
let ws: TestWorkspace;
let tokens: TokenSet;
let otherWorkspaceLead: string;
let session: string;
const openClients: Client[] = [];

test.beforeAll(async ({ googlePlaces }) => {
  fake = googlePlaces;
  const places = syntheticPlaces(3, { prefix: "mcp" });
  delete places[0]!.websiteUri; // a business without a website: the template drafter has a fact to use
  fake.setPlaces("plumber in Ottawa", places);
  t = await startHttpTestApp({
    ...fake.env,
    RATE_LIMIT_READ_PER_MIN: "500",
    RATE_LIMIT_SEARCH_PER_MIN: "100",
  });
  ws = await createWorkspace(t.app, { name: "MCP agency" });
  const other = await createWorkspace(t.app, { name: "Someone else" });
  otherWorkspaceLead = (await seedLeads(t.database.db, other.workspaceId, [{ place_id: "mcp-foreign" }]))[0]!;
  session = await memberSession(t.app, ws);
  tokens = await obtainTokens(t.baseUrl, {
    session,
    workspaceId: ws.workspaceId,
    clientName: "MCP test assistant",
  });
});
afterEach(async () => {
  for (const client of openClients.splice(0)) await client.close();
});
afterAll(async () => {
  await t?.close();
});

async function connect(baseUrl: string, accessToken: string): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
  });
  await client.connect(transport);
  openClients.push(client);
  return client;
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  const first = content[0];
  if (first?.type !== "text") throw new Error(`expected text content, got ${JSON.stringify(content)}`);
  return first.text;
}

async function callJson<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return JSON.parse(textOf(result)) as T;
}

async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, textOf(result)).toBe(true);
  return textOf(result);
}

describe("tools", () => {
  it("lists the five tools, each with an object input schema and a description about credits", async () => {
    const client = await connect(t.baseUrl, tokens.access_token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.description, tool.name).toMatch(/credit/i);
    }
    const search = tools.find((tool) => tool.name === "search_leads")!;
    expect(search.description).toContain("30 to 45 seconds");
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual([
      "filters",
      "max_results",
      "queries",
    ]);
    expect(search.inputSchema.required).toEqual(expect.arrayContaining(["queries", "max_results"]));
    // The outputs carry the opportunity score, described from the same zod schema as /openapi.json.
    const outputOf = (name: string) => JSON.stringify(tools.find((tool) => tool.name === name)?.outputSchema);
    for (const name of ["search_leads", "get_lead"]) {
      expect(outputOf(name), name).toContain('"opportunity":{');
      expect(outputOf(name), name).toContain('"coverage":{');
    }
    const draft = tools.find((tool) => tool.name === "draft_outreach_email")!;
    expect(Object.keys(draft.inputSchema.properties ?? {}).sort()).toEqual(["lead_id", "locale"]);
    expect(draft.inputSchema.required).toEqual(["lead_id"]);
    expect(client.getInstructions()).toMatch(/credit/i);
  });

  it("calls each tool for the token's workspace, spending credits as /v1 does", async () => {
    const client = await connect(t.baseUrl, tokens.access_token);
    expect(await callJson(client, "get_credit_balance")).toEqual({
      balance: 10,
      spendable: 10,
      spending_caps: { applies_to: "oauth_grant", daily: null, total: null },
    });

    const search = await callJson<{
      results: { id: string; place_id: string; has_website: boolean }[];
      credits_spent: number;
      truncated: boolean;
    }>(client, "search_leads", { queries: [{ location: "Ottawa", category: "plumber" }], max_results: 2 });
    expect(search.results.map((lead) => lead.place_id)).toEqual(["mcp-1", "mcp-2"]);
    expect(search.credits_spent).toBe(2);
    expect(fake.requests.at(-1)?.body).toMatchObject({ textQuery: "plumber in Ottawa" });
    expect(await callJson(client, "get_credit_balance")).toMatchObject({ balance: 8 });

    const page = await callJson<{ leads: { id: string }[]; next_cursor: string | null }>(
      client,
      "list_leads",
      {
        limit: 1,
      },
    );
    expect(page.leads).toHaveLength(1);
    expect(page.next_cursor).toEqual(expect.any(String));
    const rest = await callJson<{ leads: { id: string }[]; next_cursor: string | null }>(
      client,
      "list_leads",
      {
        cursor: page.next_cursor,
      },
    );
    expect([...page.leads, ...rest.leads].map((lead) => lead.id).sort()).toEqual(
      search.results.map((lead) => lead.id).sort(),
    );

    const noWebsite = search.results.find((lead) => !lead.has_website)!;
    const lead = await callJson<{ id: string; no_website_flag: boolean | null; opportunity: unknown }>(
      client,
      "get_lead",
      {
        lead_id: noWebsite.id,
      },
    );
    expect(lead).toMatchObject({
      id: noWebsite.id,
      no_website_flag: true,
      opportunity: {
        score: expect.any(Number),
        tier: expect.any(String),
        reasons: expect.arrayContaining([{ fact: "no_website", points: 40 }]),
        unknown: [],
        coverage: 1,
        version: "2026-12",
      },
    });
    expect(search.results.find((result) => result.id === noWebsite.id)).toMatchObject({
      opportunity: lead.opportunity,
    });

    const draft = await callJson<{ subject: string; body: string; facts_used: string[] }>(
      client,
      "draft_outreach_email",
      { lead_id: noWebsite.id, locale: "fr" },
    );
    expect(draft.subject).toEqual(expect.any(String));
    expect(draft.body.length).toBeGreaterThan(20);
    expect(draft.facts_used).toContain("no_website");
    expect(await callJson(client, "get_credit_balance")).toMatchObject({ balance: 7 });

    // The same workspace through /v1 with the same token sees the same state.
    const credits = await fetch(`${t.baseUrl}/v1/credits`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(await credits.json()).toMatchObject({ balance: 7 });
  });

  it("answers domain errors as tool errors carrying the error code", async () => {
    const client = await connect(t.baseUrl, tokens.access_token);
    expect(await callError(client, "get_lead", { lead_id: otherWorkspaceLead })).toMatch(/^lead_not_found: /);
    expect(await callError(client, "draft_outreach_email", { lead_id: otherWorkspaceLead })).toMatch(
      /^lead_not_found: /,
    );
    const threeQueries = ["Ottawa", "Gatineau", "Kingston"].map((location) => ({
      location,
      category: "plumber",
    }));
    expect(await callError(client, "search_leads", { queries: threeQueries, max_results: 1 })).toMatch(
      /^invalid_request: .*free-trial/,
    );
    expect(await callError(client, "list_leads", { cursor: "not-a-cursor" })).toMatch(/^invalid_request: /);
    // Input outside the schema is the service's invalid_request, as on /v1.
    expect(await callError(client, "get_lead", { lead_id: "12345" })).toMatch(/^invalid_request: lead_id/);
    expect(await callError(client, "search_leads", { queries: [], max_results: 1 })).toMatch(
      /^invalid_request: queries/,
    );
  });
});

describe("authorization", () => {
  it("without a token: 401 with the resource_metadata challenge MCP clients follow", async () => {
    const response = await fetch(`${t.baseUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).not.toContain("error=");
  });

  it("with an unknown token, a refresh token or an API key: 401 invalid_token", async () => {
    for (const token of [`ldat_${"B".repeat(43)}`, tokens.refresh_token, ws.key]) {
      const response = await fetch(`${t.baseUrl}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/error="invalid_token".*resource_metadata="/);
    }
  });

  it("the SDK client without a token fails to connect with 401", async () => {
    const client = new Client({ name: "anonymous", version: "1.0.0" });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`))),
    ).rejects.toMatchObject({ code: 401 });
  });

  it("refuses a browser Origin other than the service's own", async () => {
    const response = await fetch(`${t.baseUrl}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        origin: "https://evil.example",
        "content-type": "application/json",
      },
      body: "{}",
    });
    expect(response.status).toBe(403);
  });

  it("the SDK's own OAuth client discovers, registers, authorizes with PKCE and connects", async () => {
    const redirectUrl = "http://127.0.0.1:9/sdk-callback";
    const provider = new RecordingOAuthProvider(redirectUrl);
    const serverUrl = new URL(`${t.baseUrl}/mcp`);

    // First attempt: 401, then discovery and registration, then a redirect to the consent page.
    const first = new Client({ name: "sdk-oauth", version: "1.0.0" });
    const firstTransport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    await expect(first.connect(firstTransport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.clientInfo?.client_id).toMatch(/^ldc_/);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.toString().startsWith(`${t.baseUrl}/oauth/authorize?`)).toBe(true);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(`${t.baseUrl}/mcp`);

    // The member approves in the browser; the client receives the code at its redirect URI.
    const page = await openConsentPage(authorizationUrl.toString(), session);
    expect(page.html).toContain("SDK test assistant");
    const redirect = redirectParams(
      await submitConsent(t.baseUrl, page, { decision: "approve", workspace_id: ws.workspaceId }),
    );
    expect(redirect.searchParams.get("state")).toBe(provider.issuedState);
    await firstTransport.finishAuth(redirect.searchParams.get("code")!);
    expect(provider.savedTokens?.access_token).toMatch(/^ldat_/);

    const client = new Client({ name: "sdk-oauth", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    openClients.push(client);
    expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
    expect(await callJson<{ balance: number }>(client, "get_credit_balance")).toEqual({
      balance: expect.any(Number),
      spendable: expect.any(Number),
      spending_caps: { applies_to: "oauth_grant", daily: null, total: null },
    });
  });
});

describe("rate limits", () => {
  it("share the /v1 buckets of the grant: read for the tools, search for search_leads", async () => {
    const limited = await startHttpTestApp({
      ...fake.env,
      RATE_LIMIT_READ_PER_MIN: "3",
      RATE_LIMIT_SEARCH_PER_MIN: "1",
    });
    try {
      const workspace = await createWorkspace(limited.app);
      const grant = await obtainTokens(limited.baseUrl, {
        session: await memberSession(limited.app, workspace),
        workspaceId: workspace.workspaceId,
      });
      const client = await connect(limited.baseUrl, grant.access_token);
      for (let call = 0; call < 2; call++) await callJson(client, "get_credit_balance");
      const v1Call = await fetch(`${limited.baseUrl}/v1/credits`, {
        headers: { authorization: `Bearer ${grant.access_token}` },
      });
      expect(v1Call.status).toBe(200);
      expect(await callError(client, "list_leads")).toMatch(/^rate_limited: .*60 seconds/);
      expect(
        (
          await fetch(`${limited.baseUrl}/v1/credits`, {
            headers: { authorization: `Bearer ${grant.access_token}` },
          })
        ).status,
      ).toBe(429);

      const search = { queries: [{ location: "Ottawa", category: "plumber" }], max_results: 1 };
      await callJson(client, "search_leads", search);
      expect(await callError(client, "search_leads", search)).toMatch(/^rate_limited: /);
    } finally {
      for (const client of openClients.splice(0)) await client.close();
      await limited.close();
    }
  });
});

/** An in-memory OAuthClientProvider, as an assistant client would keep its registration and tokens. */
class RecordingOAuthProvider implements OAuthClientProvider {
  readonly redirectTo: string;
  clientInfo: OAuthClientInformationMixed | undefined;
  savedTokens: OAuthTokens | undefined;
  authorizationUrl: URL | undefined;
  issuedState: string | undefined;
  #verifier: string | undefined;

  constructor(redirectTo: string) {
    this.redirectTo = redirectTo;
  }

  get redirectUrl(): string {
    return this.redirectTo;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK test assistant",
      redirect_uris: [this.redirectTo],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.issuedState = crypto.randomUUID();
    return this.issuedState;
  }

  clientInformation() {
    return this.clientInfo;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.clientInfo = info;
  }

  tokens() {
    return this.savedTokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.savedTokens = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error("no code verifier saved");
    return this.#verifier;
  }
}
