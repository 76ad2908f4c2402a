import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Every OAuth secret is a recognisable prefix plus 32 random bytes (base64url, 43 characters);
 * only its SHA-256 digest is stored (the same hashing as API keys). The prefixes differ from the
 * API keys' `ldk_` so that a bearer token's kind is known before any lookup.
 */
export const ACCESS_TOKEN_PREFIX = "ldat_";
export const REFRESH_TOKEN_PREFIX = "ldrt_";
export const AUTHORIZATION_CODE_PREFIX = "ldac_";
export const CLIENT_ID_PREFIX = "ldc_";

const ACCESS_TOKEN_PATTERN = /^ldat_[A-Za-z0-9_-]{43}$/;
const OPAQUE_SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const newSecret = (prefix = ""): string => `${prefix}${randomBytes(32).toString("base64url")}`;

export const newClientId = (): string => `${CLIENT_ID_PREFIX}${randomBytes(16).toString("base64url")}`;

export const looksLikeAccessToken = (token: string): boolean => ACCESS_TOKEN_PATTERN.test(token);

/** A prefix-less secret of ours (CSRF token, browser binding): 43 base64url characters. */
export const looksLikeOpaqueSecret = (value: string): boolean => OPAQUE_SECRET_PATTERN.test(value);

/** Constant-time comparison of two strings (false when their lengths differ). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** RFC 7636 4.1: 43 to 128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is the base64url SHA-256 of the verifier: always 43 characters. */
export const S256_CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const s256Challenge = (verifier: string): string =>
  createHash("sha256").update(verifier, "ascii").digest("base64url");

/** RFC 7636 4.6 with the S256 method (the only one this server accepts). */
export function verifyPkce(codeVerifier: string, codeChallenge: string): boolean {
  if (!CODE_VERIFIER_PATTERN.test(codeVerifier)) return false;
  return safeEqual(s256Challenge(codeVerifier), codeChallenge);
}
