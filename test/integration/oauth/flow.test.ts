/**
 * The OAuth 2.0 authorization code flow with PKCE, over real HTTP as an assistant client and a
 * member's browser drive it: registration, consent page, code, tokens, /v1 calls, refresh
 * rotation, revocation; and each way it must fail.
 */
import { randomUUID } from "node:crypto";
import {
  OAuthClientInformationFullSchema,
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  OAuthTokensSchema,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTHORIZATION_CODE_TTL_MS } from "../../../shared/oauth/authorization.ts";
import { exchangeAuthorizationCode } from "../../../shared/oauth/tokens.ts";
import { adminRequest, createWorkspace, type TestWorkspace } from "../../support/app.ts";
import {
  approveAsMember,
  authorizeUrl,
  type HttpTestApp,
  memberSession,
  obtainTokens,
  openConsentPage,
  pkcePair,
  type RegisteredTestClient,
  redirectParams,
  registerTestClient,
  startHttpTestApp,
  submitConsent,
  type TokenSet,
  tokenRequest,
} from "../../support/oauth.ts";
import { seedLeads } from "../../support/seed.ts";

const REDIRECT_URI = "http://127.0.0.1:9/callback";
const READ_PER_MIN = 500;

let t: HttpTestApp;
let wsA: TestWorkspace;
let wsB: TestWorkspace;
let leadsA: string[];
let leadsB: string[];
let client: RegisteredTestClient;
let sessionA: string;
let sessionB: string;

beforeAll(async () => {
  t = await startHttpTestApp({
    RATE_LIMIT_READ_PER_MIN: String(READ_PER_MIN),
    RATE_LIMIT_SEARCH_PER_MIN: "100",
  });
  wsA = await createWorkspace(t.app, { name: "Agency A" });
  wsB = await createWorkspace(t.app, { name: "Agency B" });
  sessionA = await memberSession(t.app, wsA);
  sessionB = await memberSession(t.app, wsB);
  leadsA = await seedLeads(t.database.db, wsA.workspaceId, [
    { place_id: "flow-a-1", website: null },
    { place_id: "flow-a-2" },
  ]);
  leadsB = await seedLeads(t.database.db, wsB.workspaceId, [{ place_id: "flow-b-1" }]);
  client = await registerTestClient(t.baseUrl, {
    redirect_uris: [REDIRECT_URI],
    client_name: "Flow assistant",
  });
  // Approved once, as every client in use is (its authorization errors still stay on the page).
  await approveAsMember(t.baseUrl, {
    clientId: client.client_id,
    redirectUri: REDIRECT_URI,
    challenge: pkcePair().challenge,
    session: sessionA,
    workspaceId: wsA.workspaceId,
  });
});
afterAll(() => t?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const v1 = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${t.baseUrl}${path}`, { ...init, headers: { ...bearer(token), ...(init.headers ?? {}) } });

async function oauthError(response: Response): Promise<string> {
  const body = (await response.json()) as { error: string; error_description: string };
  expect(body.error_description).toEqual(expect.any(String));
  return body.error;
}

/** Authorization through the consent page, approved by workspace A's member, signed in. */
async function authorize(overrides: { state?: string; session?: string; workspaceId?: string } = {}) {
  const pkce = pkcePair();
  const state = overrides.state ?? randomUUID();
  const { code, redirect } = await approveAsMember(t.baseUrl, {
    clientId: client.client_id,
    redirectUri: REDIRECT_URI,
    challenge: pkce.challenge,
    state,
    session: overrides.session ?? sessionA,
    workspaceId: overrides.workspaceId ?? wsA.workspaceId,
  });
  return { code, redirect, pkce, state };
}

function exchange(code: string, verifier: string, overrides: Record<string, string> = {}) {
  return tokenRequest(t.baseUrl, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT_URI,
    client_id: client.client_id,
    code_verifier: verifier,
    ...overrides,
  });
}

async function tokensFor(code: string, verifier: string): Promise<TokenSet> {
  const response = await exchange(code, verifier);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as TokenSet;
}

function refresh(refreshToken: string, clientId = client.client_id) {
  return tokenRequest(t.baseUrl, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

async function expect401(token: string) {
  const response = await v1("/v1/credits", token);
  expect(response.status).toBe(401);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
}

describe("discovery", () => {
  it("publishes RFC 8414 authorization server metadata naming this server", async () => {
    const response = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = OAuthMetadataSchema.parse(await response.json());
    expect(metadata).toMatchObject({
      issuer: t.baseUrl,
      authorization_endpoint: `${t.baseUrl}/oauth/authorize`,
      token_endpoint: `${t.baseUrl}/oauth/token`,
      registration_endpoint: `${t.baseUrl}/oauth/register`,
      revocation_endpoint: `${t.baseUrl}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
    });
    expect([...(metadata.scopes_supported ?? [])].sort()).toEqual(["email", "profile"]);
  });

  it("agrees with the OpenAPI document's oauth2 scheme", async () => {
    const doc = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
      components: { securitySchemes: { oauth2: { flows: { authorizationCode: Record<string, string> } } } };
      paths: Record<string, unknown>;
    };
    const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode;
    expect(flow.authorizationUrl).toBe(`${t.baseUrl}/oauth/authorize`);
    expect(flow.tokenUrl).toBe(`${t.baseUrl}/oauth/token`);
    expect(Object.keys(doc.paths).filter((path) => path.includes("oauth") || path.includes("mcp"))).toEqual(
      [],
    );
  });

  it("publishes RFC 9728 protected resource metadata for /mcp and for the whole API", async () => {
    for (const [path, resource] of [
      ["/.well-known/oauth-protected-resource/mcp", `${t.baseUrl}/mcp`],
      ["/.well-known/oauth-protected-resource", t.baseUrl],
    ] as const) {
      const response = await fetch(`${t.baseUrl}${path}`);
      expect(response.status, path).toBe(200);
      const metadata = OAuthProtectedResourceMetadataSchema.parse(await response.json());
      expect(metadata.resource).toBe(resource);
      expect(metadata.authorization_servers).toEqual([t.baseUrl]);
    }
  });
});

describe("dynamic client registration (RFC 7591)", () => {
  it("registers a public client: an id, no secret, auth method none", async () => {
    const registered = await registerTestClient(t.baseUrl, {
      redirect_uris: ["https://assistant.example/oauth/callback", "http://localhost:33418/cb"],
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: "email profile claudeai",
    });
    const parsed = OAuthClientInformationFullSchema.parse(registered);
    expect(parsed.client_id).toMatch(/^ldc_/);
    expect(parsed.client_secret).toBeUndefined();
    expect(parsed.token_endpoint_auth_method).toBe("none");
    expect(parsed.scope).toBe("email profile");
  });

  it.each([
    ["no redirect_uris", {}],
    ["an empty list", { redirect_uris: [] }],
    ["plain http on a public host", { redirect_uris: ["http://assistant.example/cb"] }],
    ["a fragment", { redirect_uris: ["https://assistant.example/cb#x"] }],
    ["a relative URI", { redirect_uris: ["/cb"] }],
    ["a custom scheme", { redirect_uris: ["javascript:alert(1)"] }],
  ])("refuses %s with invalid_redirect_uri", async (_label, metadata) => {
    const response = await fetch(`${t.baseUrl}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(metadata),
    });
    expect(response.status).toBe(400);
    expect(await oauthError(response)).toBe("invalid_redirect_uri");
  });

  it("refuses grant types other than authorization_code and refresh_token", async () => {
    const response = await fetch(`${t.baseUrl}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI], grant_types: ["client_credentials"] }),
    });
    expect(response.status).toBe(400);
    expect(await oauthError(response)).toBe("invalid_client_metadata");
  });
});

describe("the whole flow", () => {
  it("register, authorize with PKCE, approve, exchange, call /v1, refresh with rotation, revoke", async () => {
    // Authorization: the page, then approval with workspace A's key.
    const pkce = pkcePair();
    const state = `st-${randomUUID()}`;
    const page = await openConsentPage(
      authorizeUrl(t.baseUrl, {
        clientId: client.client_id,
        redirectUri: REDIRECT_URI,
        challenge: pkce.challenge,
        state,
        scope: "email profile",
      }),
      sessionA,
    );
    expect(page.html).toContain("Flow assistant");
    expect(page.html).toContain("127.0.0.1:9");
    const approval = await submitConsent(t.baseUrl, page, {
      decision: "approve",
      workspace_id: wsA.workspaceId,
    });
    expect(approval.status).toBe(303);
    const redirect = redirectParams(approval);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get("state")).toBe(state);
    expect(redirect.searchParams.get("iss")).toBe(t.baseUrl);
    const code = redirect.searchParams.get("code")!;
    expect(code).toMatch(/^ldac_/);
    expect(approval.headers.get("location")).not.toContain(sessionA.split("=")[1]);

    // Exchange.
    const exchanged = await exchange(code, pkce.verifier);
    expect(exchanged.status).toBe(200);
    expect(exchanged.headers.get("cache-control")).toBe("no-store");
    const tokens = OAuthTokensSchema.parse(await exchanged.json());
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "email profile" });
    expect(tokens.access_token).toMatch(/^ldat_/);
    expect(tokens.refresh_token).toMatch(/^ldrt_/);
    // Only hashes are stored.
    const stored = await t.database.db.selectFrom("oauth_tokens").select("token_hash").execute();
    expect(stored.map((row) => row.token_hash)).not.toContain(tokens.access_token);

    // /v1 with the access token: workspace A's data, A's rate-limit bucket headers.
    const leads = await v1("/v1/leads", tokens.access_token);
    expect(leads.status).toBe(200);
    expect(leads.headers.get("ratelimit-limit")).toBe(String(READ_PER_MIN));
    const leadIds = ((await leads.json()) as { leads: { id: string }[] }).leads.map((lead) => lead.id);
    expect(leadIds.sort()).toEqual([...leadsA].sort());
    const credits = await v1("/v1/credits", tokens.access_token);
    expect(credits.status).toBe(200);
    expect(await credits.json()).toMatchObject({ balance: 10 });

    // Refresh: a new pair; the old refresh token is then refused.
    const refreshed = await refresh(tokens.refresh_token!);
    expect(refreshed.status).toBe(200);
    const rotated = OAuthTokensSchema.parse(await refreshed.json());
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(rotated.access_token).not.toBe(tokens.access_token);
    expect((await v1("/v1/credits", rotated.access_token)).status).toBe(200);

    // Revoke (RFC 7009), then 401 on /v1 and no more refreshing.
    const revoked = await fetch(`${t.baseUrl}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: rotated.access_token, client_id: client.client_id }),
    });
    expect(revoked.status).toBe(200);
    await expect401(rotated.access_token);
    await expect401(tokens.access_token);
    const afterRevocation = await refresh(rotated.refresh_token!);
    expect(afterRevocation.status).toBe(400);
    expect(await oauthError(afterRevocation)).toBe("invalid_grant");
  });

  it("applies the credit rules to a token: a draft costs the workspace 1 credit", async () => {
    const { code, pkce } = await authorize();
    const tokens = await tokensFor(code, pkce.verifier);
    const before = ((await (await v1("/v1/credits", tokens.access_token)).json()) as { balance: number })
      .balance;
    const draft = await v1(`/v1/leads/${leadsA[0]}/outreach-draft`, tokens.access_token, { method: "POST" });
    expect(draft.status, await draft.clone().text()).toBe(200);
    expect(((await draft.json()) as { facts_used: string[] }).facts_used).toContain("no_website");
    expect(await (await v1("/v1/credits", tokens.access_token)).json()).toMatchObject({
      balance: before - 1,
    });
  });

  it("refreshing with a rotated refresh token revokes the whole family", async () => {
    const { code, pkce } = await authorize();
    const first = await tokensFor(code, pkce.verifier);
    const second = (await (await refresh(first.refresh_token)).json()) as TokenSet;
    expect((await v1("/v1/credits", second.access_token)).status).toBe(200);

    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(await oauthError(reuse)).toBe("invalid_grant");
    await expect401(second.access_token);
    expect(await oauthError(await refresh(second.refresh_token))).toBe("invalid_grant");
  });

  it("revoking the refresh token disconnects the client; unknown tokens are answered 200", async () => {
    const { code, pkce } = await authorize();
    const tokens = await tokensFor(code, pkce.verifier);
    const revoke = (token: string) =>
      fetch(`${t.baseUrl}/oauth/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: client.client_id, token_type_hint: "refresh_token" }),
      });
    expect((await revoke(tokens.refresh_token)).status).toBe(200);
    await expect401(tokens.access_token);
    expect((await revoke("ldrt_unknown")).status).toBe(200);
  });

  it("a refresh token only works for the client it was issued to", async () => {
    const { code, pkce } = await authorize();
    const tokens = await tokensFor(code, pkce.verifier);
    const other = await registerTestClient(t.baseUrl, { redirect_uris: [REDIRECT_URI] });
    const response = await refresh(tokens.refresh_token, other.client_id);
    expect(await oauthError(response)).toBe("invalid_grant");
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it("a token stops working when the member who approved it is removed from the workspace", async () => {
    const wsC = await createWorkspace(t.app, { name: "Agency C" });
    const sessionC = await memberSession(t.app, wsC);
    const { code, pkce } = await authorize({ session: sessionC, workspaceId: wsC.workspaceId });
    const tokens = await tokensFor(code, pkce.verifier);
    expect((await v1("/v1/credits", tokens.access_token)).status).toBe(200);
    const removed = await adminRequest(
      t.app,
      "DELETE",
      `/admin/workspaces/${wsC.workspaceId}/members/${wsC.memberId}`,
    );
    expect(removed.statusCode).toBe(204);
    await expect401(tokens.access_token);
    expect(await oauthError(await refresh(tokens.refresh_token))).toBe("invalid_grant");
  });
});

describe("failure cases", () => {
  it("refuses a wrong code_verifier, and the code is spent by that attempt", async () => {
    const { code, pkce } = await authorize();
    const wrong = await exchange(code, pkcePair().verifier);
    expect(wrong.status).toBe(400);
    expect(await oauthError(wrong)).toBe("invalid_grant");
    expect(await oauthError(await exchange(code, pkce.verifier))).toBe("invalid_grant");
  });

  it("refuses a reused code and revokes the tokens issued from it", async () => {
    const { code, pkce } = await authorize();
    const tokens = await tokensFor(code, pkce.verifier);
    expect((await v1("/v1/credits", tokens.access_token)).status).toBe(200);
    const reuse = await exchange(code, pkce.verifier);
    expect(reuse.status).toBe(400);
    expect(await oauthError(reuse)).toBe("invalid_grant");
    await expect401(tokens.access_token);
    expect(await oauthError(await refresh(tokens.refresh_token))).toBe("invalid_grant");
  });

  it("refuses a code older than 60 seconds", async () => {
    expect(AUTHORIZATION_CODE_TTL_MS).toBeLessThanOrEqual(60_000);
    const { code, pkce } = await authorize();
    const later = new Date(Date.now() + AUTHORIZATION_CODE_TTL_MS + 1000);
    await expect(
      exchangeAuthorizationCode(
        t.database.db,
        { clientId: client.client_id, code, redirectUri: REDIRECT_URI, codeVerifier: pkce.verifier },
        t.config.oauth,
        later,
      ),
    ).rejects.toMatchObject({ code: "invalid_grant", message: expect.stringContaining("expired") });
  });

  it("refuses an unregistered redirect URI at the authorization endpoint, without redirecting", async () => {
    for (const redirectUri of [
      "http://127.0.0.1:9/callback/",
      "http://127.0.0.1:9/callback?x=1",
      "http://127.0.0.1:10/callback",
      "https://attacker.example/callback",
    ]) {
      const response = await fetch(
        authorizeUrl(t.baseUrl, {
          clientId: client.client_id,
          redirectUri,
          challenge: pkcePair().challenge,
          state: "s",
        }),
        { redirect: "manual" },
      );
      expect(response.status, redirectUri).toBe(400);
      expect(response.headers.get("location"), redirectUri).toBeNull();
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    }
  });

  it("refuses an unknown client without redirecting", async () => {
    const response = await fetch(
      authorizeUrl(t.baseUrl, {
        clientId: "ldc_nobody",
        redirectUri: REDIRECT_URI,
        challenge: pkcePair().challenge,
      }),
      { redirect: "manual" },
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });

  it("refuses a redirect URI at the token endpoint that differs from the authorization request", async () => {
    const other = "https://assistant.example/other";
    const twoUris = await registerTestClient(t.baseUrl, { redirect_uris: [REDIRECT_URI, other] });
    const pkce = pkcePair();
    const { code } = await approveAsMember(t.baseUrl, {
      clientId: twoUris.client_id,
      redirectUri: REDIRECT_URI,
      challenge: pkce.challenge,
      session: sessionA,
      workspaceId: wsA.workspaceId,
    });
    const response = await exchange(code, pkce.verifier, {
      client_id: twoUris.client_id,
      redirect_uri: other,
    });
    expect(response.status).toBe(400);
    expect(await oauthError(response)).toBe("invalid_grant");
  });

  it.each([
    ["plain", { method: "plain" }],
    ["no method (which means plain)", { method: "" }],
    ["no code_challenge", { challenge: undefined }],
  ])("refuses PKCE %s with invalid_request on the page, redirecting nowhere", async (_label, change) => {
    const url = new URL(
      authorizeUrl(t.baseUrl, {
        clientId: client.client_id,
        redirectUri: REDIRECT_URI,
        challenge: pkcePair().challenge,
        state: "keep-me",
        ...change,
      }),
    );
    if ("method" in change && change.method === "") url.searchParams.delete("code_challenge_method");
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("invalid_request");
  });

  it("refuses unknown scopes and foreign resource indicators", async () => {
    for (const [change, error] of [
      [{ scope: "email admin" }, "invalid_scope"],
      [{ resource: "https://other.example/mcp" }, "invalid_target"],
    ] as const) {
      const response = await fetch(
        authorizeUrl(t.baseUrl, {
          clientId: client.client_id,
          redirectUri: REDIRECT_URI,
          challenge: pkcePair().challenge,
          state: "s",
          ...change,
        }),
        { redirect: "manual" },
      );
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.text()).toContain(error);
    }
  });

  it("without state: the redirect carries none, on approval and on denial", async () => {
    const pkce = pkcePair();
    const params = { clientId: client.client_id, redirectUri: REDIRECT_URI, challenge: pkce.challenge };
    const approved = await submitConsent(
      t.baseUrl,
      await openConsentPage(authorizeUrl(t.baseUrl, params), sessionA),
      {
        decision: "approve",
        workspace_id: wsA.workspaceId,
      },
    );
    const approvedRedirect = redirectParams(approved);
    expect(approvedRedirect.searchParams.has("state")).toBe(false);
    expect((await tokensFor(approvedRedirect.searchParams.get("code")!, pkce.verifier)).access_token).toMatch(
      /^ldat_/,
    );

    const denied = await submitConsent(
      t.baseUrl,
      await openConsentPage(authorizeUrl(t.baseUrl, params), sessionA),
      {
        decision: "deny",
      },
    );
    expect(redirectParams(denied).searchParams.get("error")).toBe("access_denied");
    expect(redirectParams(denied).searchParams.has("state")).toBe(false);
  });

  it("Deny sends access_denied with the state, and issues no code", async () => {
    const page = await openConsentPage(
      authorizeUrl(t.baseUrl, {
        clientId: client.client_id,
        redirectUri: REDIRECT_URI,
        challenge: pkcePair().challenge,
        state: "deny-state",
      }),
      sessionA,
    );
    const response = await submitConsent(t.baseUrl, page, { decision: "deny" });
    expect(response.status).toBe(303);
    const redirect = redirectParams(response);
    expect(redirect.searchParams.get("error")).toBe("access_denied");
    expect(redirect.searchParams.get("state")).toBe("deny-state");
    expect(redirect.searchParams.has("code")).toBe(false);
    // The request is answered: submitting it again does nothing.
    const again = await submitConsent(t.baseUrl, page, {
      decision: "approve",
      workspace_id: wsA.workspaceId,
    });
    expect(again.status).toBe(400);
    expect(again.headers.get("location")).toBeNull();
  });

  it("an expired access token gets 401 invalid_api_key; its refresh token still works", async () => {
    const shortLived = await startHttpTestApp({ OAUTH_ACCESS_TOKEN_TTL_SECONDS: "1" });
    try {
      const ws = await createWorkspace(shortLived.app);
      const tokens = await obtainTokens(shortLived.baseUrl, {
        session: await memberSession(shortLived.app, ws),
        workspaceId: ws.workspaceId,
      });
      expect(tokens.expires_in).toBe(1);
      const call = (token: string) => fetch(`${shortLived.baseUrl}/v1/credits`, { headers: bearer(token) });
      expect((await call(tokens.access_token)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const expired = await call(tokens.access_token);
      expect(expired.status).toBe(401);
      expect(((await expired.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
      const refreshed = await tokenRequest(shortLived.baseUrl, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: tokens.clientId,
      });
      expect(refreshed.status).toBe(200);
      expect((await call(((await refreshed.json()) as TokenSet).access_token)).status).toBe(200);
    } finally {
      await shortLived.close();
    }
  });

  it("a token of workspace A cannot read workspace B's lead: 404 lead_not_found", async () => {
    const { code, pkce } = await authorize();
    const tokens = await tokensFor(code, pkce.verifier);
    const response = await v1(`/v1/leads/${leadsB[0]}`, tokens.access_token);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("lead_not_found");
    const draft = await v1(`/v1/leads/${leadsB[0]}/outreach-draft`, tokens.access_token, { method: "POST" });
    expect(draft.status).toBe(404);
    // B's key reads it, so the lead exists.
    expect((await v1(`/v1/leads/${leadsB[0]}`, wsB.key)).status).toBe(200);
  });

  it("the token endpoint refuses a missing client_id, an unknown grant type and a JSON body", async () => {
    const { code, pkce } = await authorize();
    const noClient = await tokenRequest(t.baseUrl, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkce.verifier,
    });
    expect(noClient.status).toBe(401);
    expect(await oauthError(noClient)).toBe("invalid_client");
    expect(
      await oauthError(
        await tokenRequest(t.baseUrl, { grant_type: "password", client_id: client.client_id }),
      ),
    ).toBe("unsupported_grant_type");
    const json = await fetch(`${t.baseUrl}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "authorization_code", code }),
    });
    expect(json.status).toBe(400);
    expect(await oauthError(json)).toBe("invalid_request");
    const duplicated = await fetch(`${t.baseUrl}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=authorization_code&code=a&code=b",
    });
    expect(await oauthError(duplicated)).toBe("invalid_request");
  });

  it("takes the client_id as the user of an HTTP Basic header too", async () => {
    const { code, pkce } = await authorize();
    const response = await fetch(`${t.baseUrl}/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${client.client_id}:`).toString("base64")}`,
      },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: pkce.verifier,
      }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
  });

  it("bearer tokens that are neither a key nor a live access token get 401", async () => {
    for (const token of [`ldat_${"A".repeat(43)}`, `ldrt_${"A".repeat(43)}`, `ldac_${"A".repeat(43)}`]) {
      await expect401(token);
    }
    const { code, pkce } = await authorize();
    const tokens = await tokensFor(code, pkce.verifier);
    await expect401(tokens.refresh_token);
  });
});

describe("the consent page", () => {
  async function freshPage(state = "s") {
    return openConsentPage(
      authorizeUrl(t.baseUrl, {
        clientId: client.client_id,
        redirectUri: REDIRECT_URI,
        challenge: pkcePair().challenge,
        state,
      }),
      sessionA,
    );
  }

  it("carries the anti-clickjacking headers and allows no script", async () => {
    const { response } = await freshPage();
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("shows what asks and for what, and sets an HttpOnly SameSite cookie", async () => {
    const page = await freshPage();
    expect(page.html).toContain("Flow assistant");
    expect(page.html).toContain("127.0.0.1:9");
    expect(page.html).toMatch(/<code>email<\/code>/);
    expect(page.html).toMatch(/<code>profile<\/code>/);
    expect(page.html).toContain("credits");
    expect(page.html).not.toMatch(/<script/i);
    const cookie = page.response.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/oauth/);
  });

  it("escapes the client's self-chosen name", async () => {
    const hostile = await registerTestClient(t.baseUrl, {
      redirect_uris: [REDIRECT_URI],
      client_name: '<script>alert("x")</script><img src=x>',
    });
    const page = await openConsentPage(
      authorizeUrl(t.baseUrl, {
        clientId: hostile.client_id,
        redirectUri: REDIRECT_URI,
        challenge: pkcePair().challenge,
      }),
      sessionA,
    );
    expect(page.html).not.toContain("<script>");
    expect(page.html).not.toContain("<img");
    expect(page.html).toContain("&lt;script&gt;");
  });

  it("refuses a missing or wrong CSRF token, or a missing or foreign cookie, with 403; then still works", async () => {
    const page = await freshPage("csrf-state");
    const other = await freshPage();
    const attempts: [string, Promise<Response>][] = [
      [
        "no token",
        submitConsent(t.baseUrl, page, {
          decision: "approve",
          workspace_id: wsA.workspaceId,
          csrf_token: undefined,
        }),
      ],
      [
        "wrong token",
        submitConsent(t.baseUrl, page, {
          decision: "approve",
          workspace_id: wsA.workspaceId,
          csrf_token: other.csrfToken,
        }),
      ],
      [
        "no cookie",
        submitConsent(
          t.baseUrl,
          page,
          { decision: "approve", workspace_id: wsA.workspaceId },
          { cookie: null },
        ),
      ],
      [
        "another browser's cookie",
        submitConsent(
          t.baseUrl,
          page,
          { decision: "approve", workspace_id: wsA.workspaceId },
          { cookie: other.cookie },
        ),
      ],
    ];
    for (const [label, attempt] of attempts) {
      const response = await attempt;
      expect(response.status, label).toBe(403);
      expect(response.headers.get("location"), label).toBeNull();
      expect(response.headers.get("x-frame-options"), label).toBe("DENY");
    }
    // Nothing was decided by the forged posts: the genuine form still approves.
    const genuine = await submitConsent(t.baseUrl, page, {
      decision: "approve",
      workspace_id: wsA.workspaceId,
    });
    expect(genuine.status).toBe(303);
    expect(redirectParams(genuine).searchParams.get("state")).toBe("csrf-state");
  });

  it("refuses an unknown request id with 400", async () => {
    const page = await freshPage();
    const response = await submitConsent(
      t.baseUrl,
      { ...page, requestId: randomUUID() },
      { decision: "deny" },
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });

  it("a workspace the person is not a member of shows the page again with an error", async () => {
    const page = await freshPage("retry");
    const refused = await submitConsent(t.baseUrl, page, {
      decision: "approve",
      workspace_id: wsB.workspaceId,
    });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain('role="alert"');
    expect(html).not.toContain("Agency B");
    expect(refused.headers.get("location")).toBeNull();
    const approved = await submitConsent(t.baseUrl, page, {
      decision: "approve",
      workspace_id: wsA.workspaceId,
    });
    expect(approved.status).toBe(303);
    expect(redirectParams(approved).searchParams.get("state")).toBe("retry");
  });

  it("binds the grant to the workspace the member chose", async () => {
    const { code, pkce } = await authorize({ session: sessionB, workspaceId: wsB.workspaceId });
    const tokens = await tokensFor(code, pkce.verifier);
    const leads = (await (await v1("/v1/leads", tokens.access_token)).json()) as { leads: { id: string }[] };
    expect(leads.leads.map((lead) => lead.id)).toEqual(leadsB);
  });
});

describe("the person behind a token", () => {
  it("userinfo gives the approving member's email and name, as far as the scopes go", async () => {
    const { code, pkce } = await authorize();
    const tokens = await tokensFor(code, pkce.verifier);
    const userinfo = (token: string) =>
      fetch(`${t.baseUrl}/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    const full = await userinfo(tokens.access_token);
    expect(full.status).toBe(200);
    expect(full.headers.get("cache-control")).toBe("no-store");
    const account = await t.database.db
      .selectFrom("members")
      .innerJoin("accounts", "accounts.id", "members.account_id")
      .select(["accounts.id", "accounts.email", "accounts.name"])
      .where("members.id", "=", wsA.memberId)
      .executeTakeFirstOrThrow();
    expect(await full.json()).toEqual({ sub: account.id, email: account.email, name: account.name });

    // A refresh narrowed to one scope gives only that claim.
    const emailOnly = (await (
      await tokenRequest(t.baseUrl, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: client.client_id,
        scope: "email",
      })
    ).json()) as TokenSet;
    expect(await (await userinfo(emailOnly.access_token)).json()).toEqual({
      sub: account.id,
      email: account.email,
    });

    const refused = await userinfo(`ldat_${"B".repeat(43)}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    expect((await fetch(`${t.baseUrl}/oauth/userinfo`)).status).toBe(401);
  });

  it("the metadata names the userinfo endpoint", async () => {
    const metadata = (await (
      await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.userinfo_endpoint).toBe(`${t.baseUrl}/oauth/userinfo`);
  });

  it("counts rate limits per member and workspace: a second grant adds no capacity", async () => {
    const limited = await startHttpTestApp({ RATE_LIMIT_READ_PER_MIN: "3" });
    try {
      const workspace = await createWorkspace(limited.app);
      const session = await memberSession(limited.app, workspace);
      const first = await obtainTokens(limited.baseUrl, { session, workspaceId: workspace.workspaceId });
      const second = await obtainTokens(limited.baseUrl, {
        session,
        workspaceId: workspace.workspaceId,
        clientName: "Another assistant",
      });
      const credits = (token: string) =>
        fetch(`${limited.baseUrl}/v1/credits`, { headers: { authorization: `Bearer ${token}` } });
      expect((await credits(first.access_token)).status).toBe(200);
      expect((await credits(second.access_token)).status).toBe(200);
      expect((await credits(first.access_token)).status).toBe(200);
      const over = await credits(second.access_token);
      expect(over.status).toBe(429);
      expect(over.headers.get("retry-after")).toBe("60");
      // The workspace's API key has its own bucket.
      expect((await credits(workspace.key)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
