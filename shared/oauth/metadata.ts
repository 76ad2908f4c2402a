import { PRIVACY_PATH, TERMS_PATH } from "../legal-pages.ts";
import { OAuthError } from "./errors.ts";

/**
 * The spec's scopes. They are recorded on the grant and shown on the consent page; every access
 * token, whatever its scopes, reaches the approving workspace's /v1 routes and MCP tools.
 */
const SUPPORTED_SCOPES = ["email", "profile"] as const;
export type Scope = (typeof SUPPORTED_SCOPES)[number];
export const DEFAULT_SCOPE = SUPPORTED_SCOPES.join(" ");

const isSupportedScope = (value: string): value is Scope =>
  (SUPPORTED_SCOPES as readonly string[]).includes(value);

/** Splits a scope parameter (RFC 6749 3.3); an unknown scope is `invalid_scope`. Absent: both scopes. */
export function parseScope(scope: string | undefined): Scope[] {
  if (scope === undefined || scope.trim() === "") return [...SUPPORTED_SCOPES];
  const requested = [...new Set(scope.trim().split(/ +/))];
  const unknown = requested.filter((value) => !isSupportedScope(value));
  if (unknown.length > 0) {
    throw new OAuthError(
      "invalid_scope",
      `Unknown scope ${unknown.map((value) => JSON.stringify(value)).join(", ")}; supported: ${DEFAULT_SCOPE}.`,
    );
  }
  return SUPPORTED_SCOPES.filter((value) => requested.includes(value));
}

/** Keeps the supported scopes of a registration's `scope` (RFC 7591 lets the server replace values). */
export function registrableScope(scope: string | undefined): string {
  const known = (scope ?? "").split(/ +/).filter(isSupportedScope);
  return known.length === 0
    ? DEFAULT_SCOPE
    : SUPPORTED_SCOPES.filter((value) => known.includes(value)).join(" ");
}

/** Where each OAuth endpoint is, from the service's public address. */
export function oauthEndpoints(publicUrl: string) {
  return {
    issuer: publicUrl,
    authorization: `${publicUrl}/oauth/authorize`,
    token: `${publicUrl}/oauth/token`,
    registration: `${publicUrl}/oauth/register`,
    revocation: `${publicUrl}/oauth/revoke`,
    userinfo: `${publicUrl}/oauth/userinfo`,
    mcpResource: `${publicUrl}/mcp`,
    mcpResourceMetadata: `${publicUrl}/.well-known/oauth-protected-resource/mcp`,
  };
}

/** RFC 8414 authorization server metadata. */
export function authorizationServerMetadata(publicUrl: string) {
  const endpoints = oauthEndpoints(publicUrl);
  return {
    issuer: endpoints.issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.registration,
    revocation_endpoint: endpoints.revocation,
    userinfo_endpoint: endpoints.userinfo,
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${publicUrl}/v1/docs`,
    op_policy_uri: `${publicUrl}${PRIVACY_PATH}`,
    op_tos_uri: `${publicUrl}${TERMS_PATH}`,
  };
}

/**
 * RFC 9728 protected resource metadata: for the MCP endpoint (`/mcp`), or for the whole API
 * (the service's public address, which /v1 and /mcp are under).
 */
export function protectedResourceMetadata(publicUrl: string, resource: "mcp" | "api") {
  return {
    resource: resource === "mcp" ? oauthEndpoints(publicUrl).mcpResource : publicUrl,
    resource_name:
      resource === "mcp" ? "Lead Discovery MCP server" : "Lead Discovery and Outreach Drafting API",
    authorization_servers: [publicUrl],
    scopes_supported: [...SUPPORTED_SCOPES],
    bearer_methods_supported: ["header"],
    resource_documentation: `${publicUrl}/v1/docs`,
  };
}

/**
 * RFC 8707 resource indicator: optional; when sent it must name this service (its public
 * address or anything under it, such as `/mcp`), since this server issues tokens for nothing else.
 */
export function checkResourceIndicator(resource: string | undefined, publicUrl: string): string | null {
  if (resource === undefined || resource === "") return null;
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new OAuthError("invalid_target", "resource: not an absolute URI.");
  }
  if (url.hash !== "") throw new OAuthError("invalid_target", "resource: must not contain a fragment.");
  const base = new URL(publicUrl);
  const basePath = base.pathname.replace(/\/$/, "");
  const underBase =
    url.origin === base.origin &&
    (url.pathname === basePath || url.pathname === `${basePath}/` || url.pathname.startsWith(`${basePath}/`));
  if (!underBase) {
    throw new OAuthError("invalid_target", `resource: this server only issues tokens for ${publicUrl}.`);
  }
  return resource;
}
