import type { Db } from "../db/database.ts";
import type { Account } from "../db/schema.ts";
import { refusal } from "../errors.ts";
import { hashSecret, looksLikeSecret, newSecret } from "../secrets.ts";
import { findAccountByEmail, setPassword } from "./accounts.ts";
import { passwordProblem } from "./passwords.ts";

/** A reset link works once, for an hour. */
const PASSWORD_RESET_TTL_MS = 3600 * 1000;

export interface CreatedPasswordReset {
  account: Account;
  /** The link's secret, given once (mailed, or printed for the operator); only its hash is kept. */
  token: string;
  expires_at: Date;
}

/** A reset link for the account with this address, or null when there is none. */
export async function createPasswordReset(
  db: Db,
  email: string,
  now: Date = new Date(),
): Promise<CreatedPasswordReset | null> {
  const account = await findAccountByEmail(db, email);
  if (!account) return null;
  const token = newSecret();
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MS);
  await db
    .insertInto("password_resets")
    .values({ account_id: account.id, token_hash: hashSecret(token), created_at: now, expires_at: expiresAt })
    .execute();
  return { account, token, expires_at: expiresAt };
}

/** The account a reset link is for, or null when it is unknown, used or expired. */
export async function findOpenPasswordReset(
  db: Db,
  token: string,
  now: Date = new Date(),
): Promise<{ account_id: string; email: string } | null> {
  if (!looksLikeSecret(token)) return null;
  const row = await db
    .selectFrom("password_resets")
    .innerJoin("accounts", "accounts.id", "password_resets.account_id")
    .select(["password_resets.account_id", "accounts.email"])
    .where("password_resets.token_hash", "=", hashSecret(token))
    .where("password_resets.used_at", "is", null)
    .where("password_resets.expires_at", ">", now)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Uses a reset link once: the new password is set, every session and every OAuth grant of the
 * account ends (see `setPassword`), and every other open link of the account stops working.
 * Throws 404 `reset_invalid` for a link that is unknown, used or expired.
 */
export async function resetPassword(
  db: Db,
  token: string,
  password: string,
  now: Date = new Date(),
): Promise<{ accountId: string }> {
  // A password the rule refuses leaves the link usable for a second try.
  const problem = passwordProblem(password);
  if (problem) throw refusal("invalid_request", problem);
  const claimed = looksLikeSecret(token)
    ? await db
        .updateTable("password_resets")
        .set({ used_at: now })
        .where("token_hash", "=", hashSecret(token))
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .returning("account_id")
        .executeTakeFirst()
    : undefined;
  if (!claimed) throw refusal("not_found", "reset_invalid");
  await setPassword(db, claimed.account_id, password, { now });
  return { accountId: claimed.account_id };
}
