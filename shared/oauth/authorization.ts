import type { Transaction } from "kysely";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";
import { AUTHORIZATION_CODE_PREFIX, hashSecret, newSecret, safeEqual } from "../secrets.ts";
import { findMembership, lockMember } from "../workspaces/members.ts";
import { findClient, type OAuthClient } from "./clients.ts";
import { OAuthError, type OAuthErrorCode } from "./errors.ts";
import { checkResourceIndicator, parseScope, type Scope } from "./metadata.ts";
import { S256_CHALLENGE_PATTERN } from "./pkce.ts";

/** How long an authorization code can be exchanged (RFC 6749 4.1.2 recommends at most 10 minutes). */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;
/** How long the consent page stays usable once shown. */
const CONSENT_TTL_MS = 10 * 60_000;
const MAX_STATE_LENGTH = 2000;
/**
 * Live (unrevoked) grants one member may have: approving one more revokes the oldest. It bounds
 * what a person can store by scripting grants; rate limits are per member, so grants add no requests.
 */
export const MAX_LIVE_GRANTS_PER_MEMBER = 10;

/** The query of `GET /oauth/authorize`, as received. */
export interface AuthorizeQuery {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  resource?: string;
}

export interface ValidAuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  scopes: Scope[];
  state: string | null;
  codeChallenge: string;
  resource: string | null;
}

/**
 * What to do with an authorization request: consent, or an error page. Every problem (unknown
 * client, unregistered redirect_uri, response_type, PKCE, scope, resource) is shown on the page
 * and nothing is redirected: anyone can register a client with any https redirect URI in one
 * request, and a member approving it once says nothing about where it sends people, so an error
 * redirect would make this server an open redirector (RFC 9700 4.11.2). Only a decision the
 * member took on the consent page goes back to the client.
 */
export type AuthorizeDecision =
  | { kind: "show_error"; message: string }
  | { kind: "consent"; request: ValidAuthorizationRequest };

export async function checkAuthorizationRequest(
  db: Db,
  query: AuthorizeQuery,
  publicUrl: string,
): Promise<AuthorizeDecision> {
  if (!query.client_id) return { kind: "show_error", message: "The request names no client (client_id)." };
  const client = await findClient(db, query.client_id);
  if (!client) {
    return {
      kind: "show_error",
      message: "The client is not registered with this server (unknown client_id).",
    };
  }
  if (!query.redirect_uri) {
    return { kind: "show_error", message: "The request has no redirect_uri." };
  }
  // Exact string comparison against the registered URIs (no normalisation, no prefix match).
  if (!client.redirect_uris.includes(query.redirect_uri)) {
    return {
      kind: "show_error",
      message: "The redirect_uri is not one the client registered, so this request cannot be answered.",
    };
  }
  const redirectUri = query.redirect_uri;
  const state = query.state === undefined || query.state === "" ? null : query.state;
  const refuse = (error: OAuthErrorCode, description: string): AuthorizeDecision => ({
    kind: "show_error",
    message: `${error}: ${description}`,
  });

  if (query.response_type !== "code") {
    return refuse("unsupported_response_type", "Only response_type=code is supported.");
  }
  if (state !== null && state.length > MAX_STATE_LENGTH) {
    return refuse("invalid_request", `state: at most ${MAX_STATE_LENGTH} characters.`);
  }
  if (!query.code_challenge) {
    return refuse(
      "invalid_request",
      "PKCE is required: send code_challenge with code_challenge_method=S256.",
    );
  }
  if (query.code_challenge_method !== "S256") {
    return refuse("invalid_request", "Only code_challenge_method=S256 is supported (plain is refused).");
  }
  if (!S256_CHALLENGE_PATTERN.test(query.code_challenge)) {
    return refuse(
      "invalid_request",
      "code_challenge: must be the 43-character base64url SHA-256 of the verifier.",
    );
  }
  let scopes: Scope[];
  let resource: string | null;
  try {
    scopes = parseScope(query.scope);
    resource = checkResourceIndicator(query.resource, publicUrl);
  } catch (error) {
    if (error instanceof OAuthError) return refuse(error.code, error.message);
    throw error;
  }
  return {
    kind: "consent",
    request: { client, redirectUri, scopes, state, codeChallenge: query.code_challenge, resource },
  };
}

/** The client's redirect URI with the response parameters added (its own query is kept). */
function authorizationRedirect(
  redirectUri: string,
  publicUrl: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  // RFC 9207: tells the client which authorization server answered.
  url.searchParams.set("iss", publicUrl);
  return url.toString();
}

/** The consent page's secrets: the CSRF token goes in the form, the browser binding in a cookie. */
export interface ConsentSecrets {
  requestId: string;
  csrfToken: string;
}

/**
 * Keeps a checked request while the member decides. `browserBinding` is the secret of the
 * browser's cookie: a decision is accepted only with both the form's CSRF token and that cookie.
 */
export async function createConsent(
  db: Db,
  request: ValidAuthorizationRequest,
  browserBinding: string,
  now: Date = new Date(),
): Promise<ConsentSecrets> {
  // Abandoned requests are cleared as new ones arrive; the index on expires_at keeps this cheap.
  await db.deleteFrom("oauth_authorization_requests").where("expires_at", "<", now).execute();
  const csrfToken = newSecret();
  const row = await db
    .insertInto("oauth_authorization_requests")
    .values({
      client_id: request.client.id,
      redirect_uri: request.redirectUri,
      scope: request.scopes.join(" "),
      state: request.state,
      code_challenge: request.codeChallenge,
      resource: request.resource,
      csrf_token_hash: hashSecret(csrfToken),
      browser_binding_hash: hashSecret(browserBinding),
      created_at: now,
      expires_at: new Date(now.getTime() + CONSENT_TTL_MS),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { requestId: row.id, csrfToken };
}

export interface PendingConsent {
  id: string;
  clientName: string;
  redirectUri: string;
  scopes: Scope[];
  state: string | null;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The open consent request, if the form's CSRF token and the cookie's browser binding both match
 * it. `missing` when it is unknown, expired or already decided; `forbidden` when a secret is wrong.
 */
export async function findConsent(
  db: Db,
  input: { requestId: string | undefined; csrfToken: string | undefined; browserBinding: string | undefined },
  now: Date = new Date(),
): Promise<{ kind: "ok"; consent: PendingConsent } | { kind: "missing" } | { kind: "forbidden" }> {
  if (!input.requestId || !UUID_PATTERN.test(input.requestId)) return { kind: "missing" };
  const row = await db
    .selectFrom("oauth_authorization_requests")
    .innerJoin("oauth_clients", "oauth_clients.id", "oauth_authorization_requests.client_id")
    .select([
      "oauth_authorization_requests.id",
      "oauth_authorization_requests.redirect_uri",
      "oauth_authorization_requests.scope",
      "oauth_authorization_requests.state",
      "oauth_authorization_requests.csrf_token_hash",
      "oauth_authorization_requests.browser_binding_hash",
      "oauth_authorization_requests.expires_at",
      "oauth_authorization_requests.completed_at",
      "oauth_clients.client_name",
    ])
    .where("oauth_authorization_requests.id", "=", input.requestId)
    .executeTakeFirst();
  if (!row || row.completed_at !== null || row.expires_at <= now) return { kind: "missing" };
  const csrfOk = input.csrfToken !== undefined && safeEqual(hashSecret(input.csrfToken), row.csrf_token_hash);
  const bindingOk =
    input.browserBinding !== undefined &&
    safeEqual(hashSecret(input.browserBinding), row.browser_binding_hash);
  if (!csrfOk || !bindingOk) return { kind: "forbidden" };
  return {
    kind: "ok",
    consent: {
      id: row.id,
      clientName: row.client_name,
      redirectUri: row.redirect_uri,
      scopes: parseScope(row.scope),
      state: row.state,
    },
  };
}

/** Closes the request once; false when another decision closed it first (double submit). */
async function completeConsent(db: Db, requestId: string, now: Date) {
  return db
    .updateTable("oauth_authorization_requests")
    .set({ completed_at: now })
    .where("id", "=", requestId)
    .where("completed_at", "is", null)
    .where("expires_at", ">", now)
    .returningAll()
    .executeTakeFirst();
}

export type ConsentOutcome =
  | { kind: "redirect"; location: string }
  | { kind: "not_a_member" }
  | { kind: "missing" };

/** Deny: the client learns `access_denied` (with its state); nothing is issued. */
export async function denyConsent(
  db: Db,
  consent: PendingConsent,
  publicUrl: string,
  now: Date = new Date(),
): Promise<ConsentOutcome> {
  const closed = await completeConsent(db, consent.id, now);
  if (!closed) return { kind: "missing" };
  return {
    kind: "redirect",
    location: authorizationRedirect(closed.redirect_uri, publicUrl, {
      error: "access_denied",
      error_description: "The workspace member denied the request.",
      state: closed.state ?? undefined,
    }),
  };
}

/**
 * Approve: a signed-in person chose one of their workspaces. The grant is bound to their
 * membership of it (so removing the member ends the grant); the client gets a single-use code.
 */
export async function approveConsent(
  db: Db,
  consent: PendingConsent,
  approver: {
    accountId: string;
    workspaceId: string;
    /** The grant's spending caps chosen with the approval (null: not capped). */
    caps?: { daily_credit_cap: number | null; total_credit_cap: number | null };
  },
  publicUrl: string,
  now: Date = new Date(),
): Promise<ConsentOutcome> {
  const membership = UUID_PATTERN.test(approver.workspaceId)
    ? await findMembership(db, approver.accountId, approver.workspaceId)
    : undefined;
  if (!membership) return { kind: "not_a_member" };
  const code = newSecret(AUTHORIZATION_CODE_PREFIX);
  const closed = await db.transaction().execute(async (trx) => {
    const request = await completeConsent(trx, consent.id, now);
    if (!request) return undefined;
    const grant = await trx
      .insertInto("oauth_grants")
      .values({
        client_id: request.client_id,
        workspace_id: membership.workspace_id,
        approved_by_member_id: membership.member_id,
        scope: request.scope,
        resource: request.resource,
        created_at: now,
        daily_credit_cap: approver.caps?.daily_credit_cap ?? null,
        total_credit_cap: approver.caps?.total_credit_cap ?? null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await revokeGrantsOverCap(trx, membership.member_id, now);
    await trx
      .insertInto("oauth_authorization_codes")
      .values({
        code_hash: hashSecret(code),
        grant_id: grant.id,
        redirect_uri: request.redirect_uri,
        code_challenge: request.code_challenge,
        created_at: now,
        expires_at: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
      })
      .execute();
    return request;
  });
  if (!closed) return { kind: "missing" };
  return {
    kind: "redirect",
    location: authorizationRedirect(closed.redirect_uri, publicUrl, {
      code,
      state: closed.state ?? undefined,
    }),
  };
}

/** Keeps the newest MAX_LIVE_GRANTS_PER_MEMBER live grants of the member; the member's row lock orders approvals. */
async function revokeGrantsOverCap(trx: Transaction<Database>, memberId: string, now: Date): Promise<void> {
  await lockMember(trx, memberId);
  const keep = trx
    .selectFrom("oauth_grants")
    .select("id")
    .where("approved_by_member_id", "=", memberId)
    .where("revoked_at", "is", null)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(MAX_LIVE_GRANTS_PER_MEMBER);
  await trx
    .updateTable("oauth_grants")
    .set({ revoked_at: now })
    .where("approved_by_member_id", "=", memberId)
    .where("revoked_at", "is", null)
    .where("id", "not in", keep)
    .execute();
}
