import { type Logger, type LoggerOptions, pino } from "pino";

/** Secrets never reach the logs, whatever object carries them. */
const REDACTED_PATHS = [
  "req.headers.authorization",
  "headers.authorization",
  // Error objects of HTTP clients nest the headers they sent further down (err.config.headers).
  "*.headers.authorization",
  "*.*.headers.authorization",
  "*.headers.Authorization",
  "*.*.headers.Authorization",
  "headers.Authorization",
  "Authorization",
  "headers.cookie",
  "*.headers.cookie",
  'headers["x-goog-api-key"]',
  '*.headers["x-goog-api-key"]',
  '*.*.headers["x-goog-api-key"]',
  "authorization",
  "*.authorization",
  "key",
  "*.key",
  "apiKey",
  "*.apiKey",
  "api_key",
  "*.api_key",
  "token",
  "*.token",
  "access_token",
  "refresh_token",
  "*.access_token",
  "*.refresh_token",
];

/** Database drivers attach the statement's values (emails, names) to their errors: never logged. */
const VALUE_FIELDS = new Set(["params", "parameters", "values", "detail", "where", "queryOptions"]);
/** Text an upstream server sent back (it may echo our request, key included) is cut to this. */
export const MAX_LOGGED_TEXT = 300;
const CREDENTIAL_LIKE =
  /\b(?:sk|pk|rk|ldk|ldat|ldrt)[-_][A-Za-z0-9_-]{6,}|\bBearer\s+\S+|\bAIza[0-9A-Za-z_-]{20,}|[A-Za-z0-9+/_-]{32,}={0,2}/g;

/**
 * An audit job id (`audit-` and 32 hex digits of a hash of the place and its URL: shared/audit/
 * queue.ts): long enough to look like a credential, but no secret, and what ties BullMQ's error
 * lines ("Missing lock for job audit-...") to the job; kept readable.
 */
const AUDIT_JOB_ID = /^audit-[0-9a-f]{32}$/;

/** Credentials replaced, then cut to `max` characters. */
export function scrubText(text: string, max = MAX_LOGGED_TEXT): string {
  const scrubbed = text.replace(CREDENTIAL_LIKE, (match) =>
    AUDIT_JOB_ID.test(match) ? match : "[redacted]",
  );
  return scrubbed.length > max ? `${scrubbed.slice(0, max)}…[truncated]` : scrubbed;
}

/** A PostgreSQL error (pg, PGlite): its SQLSTATE `code` and `severity`. */
const isDatabaseError = (value: object): boolean => {
  const { severity, code } = value as { severity?: unknown; code?: unknown };
  return typeof severity === "string" && typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
};

/**
 * The values a database error carries: its statement's parameters, and what PostgreSQL quotes in
 * its message (`invalid input syntax for type uuid: "..."`). pino copies a cause's message into
 * the message and stack of the errors wrapping it, so these are removed from every logged string.
 */
function databaseValues(error: unknown): string[] {
  const values: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === "object"; depth += 1) {
    if (isDatabaseError(current)) {
      const { message, params } = current as { message?: unknown; params?: unknown };
      if (typeof message === "string") {
        for (const match of message.matchAll(/"([^"]+)"/g)) if (match[1]) values.push(match[1]);
      }
      if (Array.isArray(params)) {
        for (const param of params) if (typeof param === "string" && param.length >= 3) values.push(param);
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return values;
}

function scrubErrorFields(value: unknown, depth: number, hidden: readonly string[]): unknown {
  if (typeof value === "string") return scrubText(hideValues(value, hidden));
  if (value === null || typeof value !== "object" || depth > 4) return value;
  if (Array.isArray(value))
    return value.slice(0, 10).map((item) => scrubErrorFields(item, depth + 1, hidden));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (VALUE_FIELDS.has(key)) continue;
    // A stack's first line repeats the message; its frames name our own files and stay whole.
    out[key] =
      key === "stack" && typeof item === "string"
        ? hideValues(item, hidden).replace(/^[^\n]*/, (first) => scrubText(first))
        : scrubErrorFields(item, depth + 1, hidden);
  }
  return out;
}

const hideValues = (text: string, hidden: readonly string[]) =>
  hidden.reduce((result, value) => result.replaceAll(value, "[value]"), text);

/** pino's error serializer, minus statement values, with upstream text scrubbed and truncated. */
export function serializeError(error: unknown): unknown {
  const serialized = error instanceof Error ? pino.stdSerializers.err(error) : error;
  return scrubErrorFields(serialized, 0, databaseValues(error));
}

export function loggerOptions(level: LoggerOptions["level"], name: string): LoggerOptions {
  return {
    level,
    name,
    serializers: { err: serializeError, error: serializeError },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
}

export function createLogger(level: LoggerOptions["level"], name: string): Logger {
  return pino(loggerOptions(level, name));
}

/** The logging an operation or a payment does: a pino logger, a request's, or a test's silent twin. */
export interface OperationLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
