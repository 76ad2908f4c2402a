import { createHash } from "node:crypto";
import type { Db } from "../db/database.ts";
import type { Account } from "../db/schema.ts";
import { hashSecret, looksLikeSecret, newSecret } from "../secrets.ts";

/** A console session lasts this long after sign-in; signing in again starts a new one. */
export const SESSION_TTL_MS = 14 * 24 * 3600 * 1000;

export interface SignedInAccount {
  account: Pick<Account, "id" | "email" | "name" | "language">;
  /** The session's own token (from the cookie): forms' CSRF tokens are derived from it. */
  token: string;
}

/** A new session with a token never seen before (so a planted cookie is never promoted: no fixation). */
export async function startSession(db: Db, accountId: string, now: Date = new Date()): Promise<string> {
  const token = newSecret();
  await db
    .insertInto("sessions")
    .values({
      token_hash: hashSecret(token),
      account_id: accountId,
      created_at: now,
      expires_at: new Date(now.getTime() + SESSION_TTL_MS),
    })
    .execute();
  return token;
}

export async function findSession(
  db: Db,
  token: string,
  now: Date = new Date(),
): Promise<SignedInAccount | null> {
  if (!looksLikeSecret(token)) return null;
  const row = await db
    .selectFrom("sessions")
    .innerJoin("accounts", "accounts.id", "sessions.account_id")
    .select(["accounts.id", "accounts.email", "accounts.name", "accounts.language"])
    .where("sessions.token_hash", "=", hashSecret(token))
    .where("sessions.expires_at", ">", now)
    .executeTakeFirst();
  return row ? { account: row, token } : null;
}

export async function endSession(db: Db, token: string): Promise<void> {
  await db.deleteFrom("sessions").where("token_hash", "=", hashSecret(token)).execute();
}

/** Every session of the account except the one given, or all of them (after a password change or a reset). */
export async function endOtherSessions(db: Db, accountId: string, keepToken?: string): Promise<void> {
  let query = db.deleteFrom("sessions").where("account_id", "=", accountId);
  if (keepToken !== undefined) query = query.where("token_hash", "<>", hashSecret(keepToken));
  await query.execute();
}

export async function deleteExpiredSessions(db: Db, now: Date = new Date()): Promise<void> {
  await db.deleteFrom("sessions").where("expires_at", "<=", now).execute();
}

/**
 * The CSRF token of every form of a browser: derived from the browser's secret (its session
 * token, or before sign-in its pre-session cookie), so a page of another site can neither read
 * nor guess it, and it changes with the session.
 */
export const csrfTokenFor = (browserSecret: string): string =>
  createHash("sha256").update(`csrf:${browserSecret}`).digest("base64url");
