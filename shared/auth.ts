/**
 * Who is calling: a workspace, through one credential (an API key, an OAuth access token, or a
 * console member's session).
 */
export interface Principal {
  workspaceId: string;
  /**
   * Who rate limits count against: the API key itself; for an OAuth token, the member who
   * approved its grant (that person in that workspace, `member:<id>`), so every client they
   * connect shares one set of buckets (or, for a grant from before the console, its approving key);
   * a console member counts as `member:<id>` too, sharing those buckets.
   */
  rateLimitId: string;
  kind: "api_key" | "oauth_token" | "console_member";
  /** The key or grant whose spending caps a charge counts against; absent for console members (not capped). */
  spender?: Spender;
}

/** An API key or an OAuth grant: what may carry spending caps. */
export type Spender = { kind: "api_key"; id: string } | { kind: "oauth_grant"; id: string };

/**
 * One way of turning a bearer token into a principal. The API tries each verifier that
 * `accepts` the token's shape, so OAuth access tokens can sit beside API keys.
 */
export interface BearerVerifier {
  accepts(token: string): boolean;
  verify(token: string): Promise<Principal | null>;
}

// RFC 6750 b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** The token of an `Authorization: Bearer <token>` header; null when the header has another shape. */
export function bearerTokenOf(header: string): string | null {
  return BEARER.exec(header)?.[1] ?? null;
}
