import { z } from "zod";
import type { Db } from "../db/database.ts";
import { newClientId } from "../secrets.ts";
import { OAuthError } from "./errors.ts";
import { registrableScope } from "./metadata.ts";

/** Size caps of a registration: what one unauthenticated request may store (about 2.7 KB at most). */
const MAX_REDIRECT_URIS = 5;
const MAX_REDIRECT_URI_LENGTH = 512;
const MAX_CLIENT_NAME_LENGTH = 100;
const UNNAMED_CLIENT = "Unnamed client";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * A redirect URI a client may register: absolute, no fragment, no credentials, and https, or
 * http on a loopback host (RFC 8252 native apps). Returns why it is refused, or null.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "not an absolute URI";
  }
  if (url.hash !== "" || uri.includes("#")) return "must not contain a fragment";
  if (url.username !== "" || url.password !== "") return "must not contain credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return "must use https (http only on a loopback host: 127.0.0.1, [::1] or localhost)";
}

const registrationSchema = z.looseObject({
  redirect_uris: z.array(z.string().max(MAX_REDIRECT_URI_LENGTH)).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().max(1000).optional(),
  grant_types: z.array(z.string().max(100)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  scope: z.string().max(1000).optional(),
});

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: "none";
  scope: string;
}

/** Control characters and surrounding space removed; the page escapes it when it shows it. */
function cleanClientName(name: string | undefined): string {
  const cleaned = (name ?? "")
    .replace(/\p{Cc}|\p{Cf}/gu, "")
    .trim()
    .slice(0, MAX_CLIENT_NAME_LENGTH);
  return cleaned === "" ? UNNAMED_CLIENT : cleaned;
}

/**
 * RFC 7591 dynamic registration of a public client. Only the authorization code grant (with
 * refresh tokens) and `token_endpoint_auth_method: none` exist here: a requested secret-based
 * method is replaced by `none` in the answer (RFC 7591 3.2.1 lets the server replace values).
 */
export async function registerClient(
  db: Db,
  body: unknown,
  now: Date = new Date(),
): Promise<RegisteredClient> {
  const parsed = registrationSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "body";
    if (issue?.path[0] === "redirect_uris") {
      throw new OAuthError(
        "invalid_redirect_uri",
        `redirect_uris: 1 to ${MAX_REDIRECT_URIS} URIs of at most ${MAX_REDIRECT_URI_LENGTH} characters are required.`,
      );
    }
    throw new OAuthError("invalid_client_metadata", `${field}: ${issue?.message ?? "invalid"}`);
  }
  const metadata = parsed.data;
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem)
      throw new OAuthError("invalid_redirect_uri", `redirect_uris: ${JSON.stringify(uri)} ${problem}.`);
  }
  const unsupportedGrants = (metadata.grant_types ?? []).filter(
    (grant) => grant !== "authorization_code" && grant !== "refresh_token",
  );
  if (unsupportedGrants.length > 0) {
    throw new OAuthError(
      "invalid_client_metadata",
      `grant_types: only authorization_code and refresh_token are supported, not ${unsupportedGrants.join(", ")}.`,
    );
  }
  if ((metadata.response_types ?? []).some((type) => type !== "code")) {
    throw new OAuthError("invalid_client_metadata", "response_types: only code is supported.");
  }

  const client = {
    id: newClientId(),
    client_name: cleanClientName(metadata.client_name),
    redirect_uris: [...new Set(metadata.redirect_uris)],
    scope: registrableScope(metadata.scope),
  };
  await db
    .insertInto("oauth_clients")
    .values({ ...client, redirect_uris: JSON.stringify(client.redirect_uris), created_at: now })
    .execute();
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: client.client_name,
    redirect_uris: client.redirect_uris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    scope: client.scope,
  };
}

export interface OAuthClient {
  id: string;
  client_name: string;
  redirect_uris: string[];
}

export async function findClient(db: Db, clientId: string): Promise<OAuthClient | undefined> {
  if (clientId.length > 200) return undefined;
  return db
    .selectFrom("oauth_clients")
    .select(["id", "client_name", "redirect_uris"])
    .where("id", "=", clientId)
    .executeTakeFirst();
}

/** The public client named by `client_id` (RFC 6749 2.3 for clients without a secret). */
export async function requireClient(db: Db, clientId: string | undefined): Promise<OAuthClient> {
  if (clientId === undefined || clientId === "") {
    throw new OAuthError("invalid_client", "client_id is required.");
  }
  const client = await findClient(db, clientId);
  if (!client) throw new OAuthError("invalid_client", "Unknown client_id: register the client first.");
  return client;
}
