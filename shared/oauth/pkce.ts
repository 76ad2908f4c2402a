import { createHash } from "node:crypto";
import { SECRET_BODY_SOURCE, safeEqual } from "../secrets.ts";

/** RFC 7636 4.1: 43 to 128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is the base64url SHA-256 of the verifier: 32 bytes, the shape of our secrets' body. */
export const S256_CHALLENGE_PATTERN = new RegExp(`^${SECRET_BODY_SOURCE}$`);

export const s256Challenge = (verifier: string): string =>
  createHash("sha256").update(verifier, "ascii").digest("base64url");

/** RFC 7636 4.6 with the S256 method (the only one this server accepts). */
export function verifyPkce(codeVerifier: string, codeChallenge: string): boolean {
  if (!CODE_VERIFIER_PATTERN.test(codeVerifier)) return false;
  return safeEqual(s256Challenge(codeVerifier), codeChallenge);
}
