/**
 * Errors of the OAuth 2.0 endpoints, rendered as RFC 6749 section 5.2 bodies
 * (`{ error, error_description }`), not as the /v1 error object.
 */
export type OAuthErrorCode =
  // RFC 6749
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "access_denied"
  | "unsupported_response_type"
  | "server_error"
  | "temporarily_unavailable"
  // RFC 7591
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  // RFC 8707
  | "invalid_target";

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  /** 401 for invalid_client (RFC 6749 5.2), 500 for server_error, 400 otherwise. */
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    code: OAuthErrorCode,
    description: string,
    options: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(description);
    this.name = "OAuthError";
    this.code = code;
    this.status = options.status ?? (code === "invalid_client" ? 401 : code === "server_error" ? 500 : 400);
    this.headers = options.headers ?? {};
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}
