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

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = errorStatus[code];
    this.headers = options?.headers ?? {};
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;
