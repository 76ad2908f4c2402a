import { type Logger, type LoggerOptions, pino } from "pino";

/** Secrets never reach the logs, whatever object carries them. */
export const REDACTED_PATHS = [
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

export function loggerOptions(level: LoggerOptions["level"], name: string): LoggerOptions {
  return {
    level,
    name,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
}

export function createLogger(level: LoggerOptions["level"], name: string): Logger {
  return pino(loggerOptions(level, name));
}
