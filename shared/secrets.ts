import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Every secret this service hands out: an optional recognisable prefix plus 32 random bytes
 * (base64url, 43 characters). Only the SHA-256 digest is stored. The prefixes tell a bearer
 * token's kind before any lookup (and make a leaked one recognisable in logs and secret scanners);
 * prefix-less secrets are the console's links and cookies (sessions, invites, password resets,
 * sign-up confirmations, CSRF and browser bindings).
 */
export const API_KEY_PREFIX = "ldk_";
export const ACCESS_TOKEN_PREFIX = "ldat_";
export const REFRESH_TOKEN_PREFIX = "ldrt_";
export const AUTHORIZATION_CODE_PREFIX = "ldac_";
const CLIENT_ID_PREFIX = "ldc_";

/** The random part of every secret, as a pattern source (for the patterns that embed it). */
export const SECRET_BODY_SOURCE = "[A-Za-z0-9_-]{43}";
const SECRET_BODY = new RegExp(`^${SECRET_BODY_SOURCE}$`);

export const newSecret = (prefix = ""): string => `${prefix}${randomBytes(32).toString("base64url")}`;

/** OAuth client ids are public: 16 random bytes are enough to keep them apart. */
export const newClientId = (): string => `${CLIENT_ID_PREFIX}${randomBytes(16).toString("base64url")}`;

/** What is stored of a secret: its SHA-256 digest (hex). */
export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex");

/** A secret of ours with this prefix (none: a prefix-less one), by its shape alone. */
export const looksLikeSecret = (value: string, prefix = ""): boolean =>
  value.startsWith(prefix) && SECRET_BODY.test(value.slice(prefix.length));

export const looksLikeApiKey = (token: string): boolean => looksLikeSecret(token, API_KEY_PREFIX);

export const looksLikeAccessToken = (token: string): boolean => looksLikeSecret(token, ACCESS_TOKEN_PREFIX);

/** Constant-time comparison of two strings (false when their lengths differ). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}
