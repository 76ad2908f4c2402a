import type { Db } from "../db/database.ts";
import { findMemberAccount } from "../workspaces/members.ts";
import { verifyAccessToken } from "./tokens.ts";

/** What the userinfo endpoint tells a client about the person who approved it (OIDC claim names). */
export interface UserInfo {
  /** The person's account id: stable across their workspaces. */
  sub: string;
  email?: string;
  name?: string;
}

/**
 * The approving member's claims, as far as the token's scopes go: `email` gives the email,
 * `profile` the name. Null for an unknown, expired or revoked token, or a grant no person approved.
 */
export async function readUserInfo(
  db: Db,
  accessToken: string,
  now: Date = new Date(),
): Promise<UserInfo | null> {
  const token = await verifyAccessToken(db, accessToken, now);
  if (!token?.memberId) return null;
  const person = await findMemberAccount(db, token.memberId);
  if (!person) return null;
  return {
    sub: person.id,
    ...(token.scopes.includes("email") ? { email: person.email } : {}),
    ...(token.scopes.includes("profile") ? { name: person.name } : {}),
  };
}
