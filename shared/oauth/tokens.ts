import type { Transaction } from "kysely";
import type { BearerVerifier, Principal } from "../auth.ts";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";
import {
  ACCESS_TOKEN_PREFIX,
  hashSecret,
  looksLikeAccessToken,
  newSecret,
  REFRESH_TOKEN_PREFIX,
} from "../secrets.ts";
import { memberRateLimitId, memberRemoved } from "../workspaces/members.ts";
import { requireClient } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import { parseScope } from "./metadata.ts";
import { verifyPkce } from "./pkce.ts";

export interface TokenLifetimes {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
}

/** RFC 6749 5.1 successful token response. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Trx = Transaction<Database>;

/** Revokes a grant: every access and refresh token of the family stops working at once. */
async function revokeGrant(db: Db | Trx, grantId: string, now: Date): Promise<void> {
  await db
    .updateTable("oauth_grants")
    .set({ revoked_at: now })
    .where("id", "=", grantId)
    .where("revoked_at", "is", null)
    .execute();
}

async function issueTokens(
  trx: Trx,
  grantId: string,
  scope: string,
  lifetimes: TokenLifetimes,
  now: Date,
): Promise<TokenResponse> {
  const accessToken = newSecret(ACCESS_TOKEN_PREFIX);
  const refreshToken = newSecret(REFRESH_TOKEN_PREFIX);
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
  await trx
    .insertInto("oauth_tokens")
    .values([
      {
        token_hash: hashSecret(accessToken),
        grant_id: grantId,
        kind: "access",
        scope,
        created_at: now,
        expires_at: at(lifetimes.accessTokenTtlSeconds),
      },
      {
        token_hash: hashSecret(refreshToken),
        grant_id: grantId,
        kind: "refresh",
        scope,
        created_at: now,
        expires_at: at(lifetimes.refreshTokenTtlSeconds),
      },
    ])
    .execute();
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: lifetimes.accessTokenTtlSeconds,
    refresh_token: refreshToken,
    scope,
  };
}

/** A grant is usable while neither it nor the API key that approved it is revoked. */
async function lockGrant(trx: Trx, grantId: string) {
  return trx
    .selectFrom("oauth_grants")
    .leftJoin("api_keys", "api_keys.id", "oauth_grants.approved_with_api_key_id")
    .select([
      "oauth_grants.id",
      "oauth_grants.client_id",
      "oauth_grants.scope",
      "oauth_grants.revoked_at",
      "api_keys.revoked_at as key_revoked_at",
      memberRemoved("oauth_grants.approved_by_member_id").as("member_removed"),
    ])
    .where("oauth_grants.id", "=", grantId)
    .forUpdate(["oauth_grants"])
    .executeTakeFirstOrThrow();
}

/** A grant ends with its approver: the API key revoked, or the member removed from the workspace. */
const approverGone = (grant: { key_revoked_at: Date | null; member_removed: boolean }) =>
  grant.key_revoked_at !== null || grant.member_removed;

/** The outcome of a transaction: committed either way, then thrown or returned. */
type Settled = { ok: TokenResponse } | { error: OAuthError };
const settle = (settled: Settled): TokenResponse => {
  if ("error" in settled) throw settled.error;
  return settled.ok;
};

/**
 * `grant_type=authorization_code` (RFC 6749 4.1.3 with RFC 7636 4.6). A code is spent by the
 * first request that presents it, whatever the outcome; presenting a spent code again revokes the
 * grant and so every token issued from it (RFC 6749 4.1.2).
 */
export async function exchangeAuthorizationCode(
  db: Db,
  input: { clientId?: string; code?: string; redirectUri?: string; codeVerifier?: string },
  lifetimes: TokenLifetimes,
  now: Date = new Date(),
): Promise<TokenResponse> {
  const client = await requireClient(db, input.clientId);
  const { code, redirectUri, codeVerifier } = input;
  if (!code) throw new OAuthError("invalid_request", "code is required.");
  if (!redirectUri) throw new OAuthError("invalid_request", "redirect_uri is required.");
  if (!codeVerifier) throw new OAuthError("invalid_request", "code_verifier is required (PKCE).");

  const settled = await db.transaction().execute(async (trx): Promise<Settled> => {
    const row = await trx
      .selectFrom("oauth_authorization_codes")
      .selectAll()
      .where("code_hash", "=", hashSecret(code))
      .forUpdate()
      .executeTakeFirst();
    if (!row) return { error: new OAuthError("invalid_grant", "Unknown authorization code.") };
    if (row.used_at !== null) {
      await revokeGrant(trx, row.grant_id, now);
      return {
        error: new OAuthError(
          "invalid_grant",
          "This authorization code was already used; the tokens issued from it are revoked.",
        ),
      };
    }
    await trx
      .updateTable("oauth_authorization_codes")
      .set({ used_at: now })
      .where("code_hash", "=", row.code_hash)
      .execute();
    const grant = await lockGrant(trx, row.grant_id);
    if (grant.client_id !== client.id) {
      return { error: new OAuthError("invalid_grant", "The code was issued to another client.") };
    }
    if (row.expires_at <= now)
      return { error: new OAuthError("invalid_grant", "The authorization code expired.") };
    if (row.redirect_uri !== redirectUri) {
      return {
        error: new OAuthError(
          "invalid_grant",
          "redirect_uri differs from the one of the authorization request.",
        ),
      };
    }
    if (!verifyPkce(codeVerifier, row.code_challenge)) {
      return { error: new OAuthError("invalid_grant", "code_verifier does not match the code_challenge.") };
    }
    if (grant.revoked_at !== null || approverGone(grant)) {
      return { error: new OAuthError("invalid_grant", "The grant was revoked.") };
    }
    return { ok: await issueTokens(trx, grant.id, grant.scope, lifetimes, now) };
  });
  return settle(settled);
}

/**
 * `grant_type=refresh_token` (RFC 6749 6) with rotation: each refresh token works once and is
 * replaced; presenting a rotated one again means it leaked, so the whole grant is revoked.
 */
export async function refreshAccessToken(
  db: Db,
  input: { clientId?: string; refreshToken?: string; scope?: string },
  lifetimes: TokenLifetimes,
  now: Date = new Date(),
): Promise<TokenResponse> {
  const client = await requireClient(db, input.clientId);
  const { refreshToken } = input;
  if (!refreshToken) throw new OAuthError("invalid_request", "refresh_token is required.");

  const settled = await db.transaction().execute(async (trx): Promise<Settled> => {
    const row = await trx
      .selectFrom("oauth_tokens")
      .selectAll()
      .where("token_hash", "=", hashSecret(refreshToken))
      .where("kind", "=", "refresh")
      .forUpdate()
      .executeTakeFirst();
    if (!row) return { error: new OAuthError("invalid_grant", "Unknown refresh token.") };
    const grant = await lockGrant(trx, row.grant_id);
    if (grant.client_id !== client.id) {
      return { error: new OAuthError("invalid_grant", "The refresh token was issued to another client.") };
    }
    if (grant.revoked_at !== null || approverGone(grant)) {
      return { error: new OAuthError("invalid_grant", "The grant was revoked.") };
    }
    if (row.used_at !== null) {
      await revokeGrant(trx, grant.id, now);
      return {
        error: new OAuthError(
          "invalid_grant",
          "This refresh token was already used (it rotates on every use); the grant is revoked.",
        ),
      };
    }
    if (row.expires_at <= now)
      return { error: new OAuthError("invalid_grant", "The refresh token expired.") };
    let scope = row.scope;
    if (input.scope !== undefined && input.scope !== "") {
      let requested: string[];
      try {
        requested = parseScope(input.scope);
      } catch (error) {
        if (error instanceof OAuthError) return { error };
        throw error;
      }
      const granted = row.scope.split(" ");
      if (requested.some((value) => !granted.includes(value))) {
        return { error: new OAuthError("invalid_scope", `The grant covers only: ${row.scope}.`) };
      }
      scope = requested.join(" ");
    }
    await trx
      .updateTable("oauth_tokens")
      .set({ used_at: now })
      .where("token_hash", "=", row.token_hash)
      .execute();
    return { ok: await issueTokens(trx, grant.id, scope, lifetimes, now) };
  });
  return settle(settled);
}

/**
 * RFC 7009 revocation. Revoking either token of a grant revokes the whole grant (the client is
 * disconnected). An unknown token is answered like a revoked one: nothing to do.
 */
export async function revokeToken(
  db: Db,
  input: { clientId?: string; token?: string },
  now: Date = new Date(),
): Promise<void> {
  const client = await requireClient(db, input.clientId);
  if (!input.token) throw new OAuthError("invalid_request", "token is required.");
  const row = await db
    .selectFrom("oauth_tokens")
    .innerJoin("oauth_grants", "oauth_grants.id", "oauth_tokens.grant_id")
    .select(["oauth_grants.id as grant_id", "oauth_grants.client_id"])
    .where("oauth_tokens.token_hash", "=", hashSecret(input.token))
    .executeTakeFirst();
  if (!row) return;
  if (row.client_id !== client.id) {
    throw new OAuthError("unauthorized_client", "The token was issued to another client.");
  }
  await revokeGrant(db, row.grant_id, now);
}

export interface AccessTokenInfo {
  grantId: string;
  /** The API key that approved the grant (grants from before the console), or null. */
  apiKeyId: string | null;
  /** The member who approved the grant in the console, or null. */
  memberId: string | null;
  workspaceId: string;
  clientId: string;
  scopes: string[];
  expiresAt: Date;
}

/** A live access token: not expired, its grant not revoked, the approving API key not revoked. */
export async function verifyAccessToken(
  db: Db,
  token: string,
  now: Date = new Date(),
): Promise<AccessTokenInfo | null> {
  if (!looksLikeAccessToken(token)) return null;
  const row = await db
    .selectFrom("oauth_tokens")
    .innerJoin("oauth_grants", "oauth_grants.id", "oauth_tokens.grant_id")
    .leftJoin("api_keys", "api_keys.id", "oauth_grants.approved_with_api_key_id")
    .select([
      "oauth_grants.id as grant_id",
      "oauth_grants.approved_with_api_key_id",
      "oauth_grants.approved_by_member_id",
      "oauth_grants.workspace_id",
      "oauth_grants.client_id",
      "oauth_tokens.scope",
      "oauth_tokens.expires_at",
    ])
    .where("oauth_tokens.token_hash", "=", hashSecret(token))
    .where("oauth_tokens.kind", "=", "access")
    .where("oauth_tokens.expires_at", ">", now)
    .where("oauth_grants.revoked_at", "is", null)
    .where("api_keys.revoked_at", "is", null)
    .where((eb) => eb.not(memberRemoved("oauth_grants.approved_by_member_id")))
    .executeTakeFirst();
  if (!row) return null;
  return {
    grantId: row.grant_id,
    apiKeyId: row.approved_with_api_key_id,
    memberId: row.approved_by_member_id,
    workspaceId: row.workspace_id,
    clientId: row.client_id,
    scopes: row.scope.split(" "),
    expiresAt: row.expires_at,
  };
}

/** Who calls with this token, for /v1 and /mcp alike: rate limits count per approving member. */
export function principalOfAccessToken(info: AccessTokenInfo): Principal {
  const rateLimitId = info.memberId
    ? memberRateLimitId(info.memberId)
    : (info.apiKeyId ?? `grant:${info.grantId}`);
  return {
    workspaceId: info.workspaceId,
    rateLimitId,
    kind: "oauth_token",
    spender: { kind: "oauth_grant", id: info.grantId },
  };
}

/**
 * Lets every /v1 route take an OAuth access token beside API keys. Rate limits are counted per
 * approving member in that workspace (or approving API key, for older grants), so neither
 * refreshing nor new grants add requests.
 */
export function createOAuthAccessTokenVerifier(db: Db): BearerVerifier {
  return {
    accepts: looksLikeAccessToken,
    async verify(token) {
      const info = await verifyAccessToken(db, token);
      return info ? principalOfAccessToken(info) : null;
    },
  };
}
