/**
 * The one error type of the service. Domain code throws it with one of the spec's codes;
 * the API's error handler renders `{ error: { code, message } }` with the mapped status.
 */
export const errorStatus = {
  invalid_request: 400,
  invalid_api_key: 401,
  insufficient_credits: 402,
  cross_origin_forbidden: 403,
  lead_not_unlocked: 403,
  lead_not_found: 404,
  place_not_found: 404,
  not_found: 404,
  request_too_large: 413,
  insufficient_audit_data: 422,
  rate_limited: 429,
  internal_error: 500,
  generation_failed: 502,
  rate_limit_unavailable: 503,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/**
 * Why an account action was refused, where the code alone does not say (a closed list): the
 * console words each reason in the member's language, keyed by the reason, never by the message.
 */
export type RefusalReason =
  | "wrong_credentials"
  | "wrong_password"
  | "too_many_attempts"
  | "too_short"
  | "too_long"
  | "disposable_address"
  | "account_exists"
  | "wrong_account"
  | "sign_up_invalid"
  | "reset_invalid"
  | "invite_invalid"
  /** The do-not-contact list would pass SUPPRESSIONS_MAX_PER_WORKSPACE. */
  | "list_full";

/** What a 402 `insufficient_credits` of the balance could not cover, for a door to word its own way. */
export interface CreditShortfall {
  /** The credits the charge needs. */
  needed: number;
  /** The balance less the credits held by drafts in progress. */
  available: number;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly reason: RefusalReason | undefined;
  readonly shortfall: CreditShortfall | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options?: {
      cause?: unknown;
      headers?: Record<string, string>;
      reason?: RefusalReason;
      shortfall?: CreditShortfall;
    },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = errorStatus[code];
    this.headers = options?.headers ?? {};
    this.reason = options?.reason;
    this.shortfall = options?.shortfall;
  }
}

/** A refusal with its reason; the reason is also its message, as an API client reads it. */
export const refusal = (code: ErrorCode, reason: RefusalReason, headers?: Record<string, string>): ApiError =>
  new ApiError(code, reason, { reason, ...(headers ? { headers } : {}) });

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;
