/**
 * Drives the OAuth flow as a client and a member's browser would, over real HTTP: registration,
 * the consent page (its hidden fields and cookie), the redirect, the token endpoint.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:net";
import type { FastifyInstance } from "fastify";
import { type AppLogOptions, adminRequest, startTestApp, type TestApp, type TestWorkspace } from "./app.ts";
import { signedUpMember } from "./console.ts";

export interface HttpTestApp extends TestApp {
  /** Where the app listens; also its PUBLIC_URL, so the OAuth metadata names it. */
  baseUrl: string;
}

/** A port the OS reports free right now (the app binds it immediately after). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** The real app, listening on 127.0.0.1 with PUBLIC_URL set to where it listens. */
export async function startHttpTestApp(
  env: Record<string, string> = {},
  options: AppLogOptions = {},
): Promise<HttpTestApp> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ PUBLIC_URL: baseUrl, ...env }, {}, options);
  await t.app.listen({ port, host: "127.0.0.1" });
  return { ...t, baseUrl };
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkcePair(): Pkce {
  const verifier = randomBytes(48).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export interface RegisteredTestClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  [field: string]: unknown;
}

export async function registerTestClient(
  baseUrl: string,
  metadata: Record<string, unknown>,
): Promise<RegisteredTestClient> {
  const response = await fetch(`${baseUrl}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Test assistant", ...metadata }),
  });
  if (response.status !== 201) throw new Error(`registration: ${response.status} ${await response.text()}`);
  return (await response.json()) as RegisteredTestClient;
}

export interface AuthorizeParams {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  method?: string;
  state?: string;
  scope?: string;
  resource?: string;
}

export function authorizeUrl(baseUrl: string, params: AuthorizeParams): string {
  const url = new URL(`${baseUrl}/oauth/authorize`);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", params.clientId);
  url.searchParams.set("redirect_uri", params.redirectUri);
  if (params.challenge !== undefined) url.searchParams.set("code_challenge", params.challenge);
  url.searchParams.set("code_challenge_method", params.method ?? "S256");
  if (params.state !== undefined) url.searchParams.set("state", params.state);
  if (params.scope !== undefined) url.searchParams.set("scope", params.scope);
  if (params.resource !== undefined) url.searchParams.set("resource", params.resource);
  return url.toString();
}

/** The consent page as a browser received it: the form's hidden fields and the cookie it set. */
export interface ConsentPage {
  response: Response;
  html: string;
  requestId: string;
  csrfToken: string;
  /** `name=value` of the browser-binding cookie, ready for a Cookie header. */
  cookie: string;
}

function hiddenField(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  if (!match?.[1]) throw new Error(`no hidden field ${name} in the page:\n${html}`);
  return match[1];
}

/**
 * The consent page as a signed-in person opens it: `cookie` carries their console session (see
 * `memberSession`), and the page's returned cookie is that session plus the page's browser binding.
 */
export async function openConsentPage(url: string, cookie: string): Promise<ConsentPage> {
  const response = await fetch(url, { redirect: "manual", headers: { cookie } });
  const html = await response.text();
  if (response.status !== 200) throw new Error(`consent page: ${response.status} ${html}`);
  const setCookie = response.headers.getSetCookie()[0];
  if (!setCookie) throw new Error("the consent page set no cookie");
  const binding = setCookie.split(";")[0]!;
  const session = cookie.split(/; */).filter((part) => part.startsWith("ld_session="));
  return {
    response,
    html,
    requestId: hiddenField(html, "request_id"),
    csrfToken: hiddenField(html, "csrf_token"),
    cookie: [...session, binding].join("; "),
  };
}

/**
 * The Cookie header of a workspace's first member signed in to the console: the operator's
 * member (same email) joins through an invite, so the member id stays `workspace.memberId`.
 */
export async function memberSession(app: FastifyInstance, workspace: TestWorkspace): Promise<string> {
  const member = await adminRequest(app, "GET", `/admin/workspaces/${workspace.workspaceId}/api-keys`);
  const email = (
    member.json() as { api_keys: { created_by: string; created_by_email: string }[] }
  ).api_keys.find((key) => key.created_by === workspace.memberId)?.created_by_email;
  if (!email) throw new Error("the workspace's first member has no key to read its email from");
  const browser = await signedUpMember(app, workspace.workspaceId, email, "Flow Member");
  const session = browser.cookies.get("ld_session");
  if (!session) throw new Error("no console session after joining");
  return `ld_session=${session}`;
}

/** Submits the consent form; `fields` replace or remove (undefined) what the page put in it. */
export async function submitConsent(
  baseUrl: string,
  page: ConsentPage,
  fields: Record<string, string | undefined>,
  options: { cookie?: string | null } = {},
): Promise<Response> {
  const form = new URLSearchParams();
  const values: Record<string, string | undefined> = {
    request_id: page.requestId,
    csrf_token: page.csrfToken,
    ...fields,
  };
  for (const [name, value] of Object.entries(values)) if (value !== undefined) form.set(name, value);
  const cookie = options.cookie === undefined ? page.cookie : options.cookie;
  return fetch(`${baseUrl}/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(cookie === null ? {} : { cookie }),
    },
    body: form,
  });
}

/** The redirect back to the client, parsed. */
export function redirectParams(response: Response): URL {
  const location = response.headers.get("location");
  if (!location) throw new Error(`expected a redirect, got ${response.status}`);
  return new URL(location);
}

/** Opens the consent page as a signed-in member, approves for one workspace, returns the code. */
export async function approveAsMember(
  baseUrl: string,
  params: AuthorizeParams & { session: string; workspaceId: string },
): Promise<{ code: string; redirect: URL }> {
  const page = await openConsentPage(authorizeUrl(baseUrl, params), params.session);
  const response = await submitConsent(baseUrl, page, {
    decision: "approve",
    workspace_id: params.workspaceId,
  });
  if (response.status !== 303) throw new Error(`approval: ${response.status} ${await response.text()}`);
  const redirect = redirectParams(response);
  const code = redirect.searchParams.get("code");
  if (!code) throw new Error(`no code in ${redirect.toString()}`);
  return { code, redirect };
}

export async function tokenRequest(baseUrl: string, params: Record<string, string>): Promise<Response> {
  return fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
  });
}

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** Register-to-tokens in one call, for tests that need a working access token. */
export async function obtainTokens(
  baseUrl: string,
  input: { session: string; workspaceId: string; redirectUri?: string; clientName?: string },
): Promise<TokenSet & { clientId: string }> {
  const redirectUri = input.redirectUri ?? "http://127.0.0.1:9/callback";
  const client = await registerTestClient(baseUrl, {
    redirect_uris: [redirectUri],
    client_name: input.clientName ?? "Test assistant",
  });
  const pkce = pkcePair();
  const { code } = await approveAsMember(baseUrl, {
    clientId: client.client_id,
    redirectUri,
    challenge: pkce.challenge,
    state: "s",
    session: input.session,
    workspaceId: input.workspaceId,
  });
  const response = await tokenRequest(baseUrl, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    client_id: client.client_id,
    code_verifier: pkce.verifier,
  });
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`);
  return { ...((await response.json()) as TokenSet), clientId: client.client_id };
}
