/** Who is calling: a workspace, through one credential (an API key today; an OAuth token later). */
export interface Principal {
  workspaceId: string;
  /** The key's (or token's) id: rate limits are counted per credential. */
  credentialId: string;
  kind: "api_key" | "oauth_token";
}

/**
 * One way of turning a bearer token into a principal. The API tries each verifier that
 * `accepts` the token's shape, so OAuth access tokens can sit beside API keys.
 */
export interface BearerVerifier {
  accepts(token: string): boolean;
  verify(token: string): Promise<Principal | null>;
}
