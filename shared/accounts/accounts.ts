import type { Db } from "../db/database.ts";
import type { Account } from "../db/schema.ts";
import { ApiError, refusal } from "../errors.ts";
import type { Language } from "../languages.ts";
import type { AccountMetrics } from "../metrics.ts";
import { revokeAllConnectedApps } from "../oauth/grants.ts";
import type { PasswordCheckLimiter } from "./password-limiter.ts";
import { decoyPasswordHash, hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";
import { endOtherSessions } from "./sessions.ts";

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** Domains whose mailboxes ignore dots in the local part; googlemail.com is gmail.com. */
const GMAIL_DOMAINS = new Set(["gmail.com", "googlemail.com"]);

/**
 * The mailbox an address delivers to, as one person's key (one account, so one free trial, per
 * mailbox): lower case, a `+tag` dropped, and for gmail.com and googlemail.com the dots of the
 * local part dropped and the domain read as gmail.com. `J.Doe+leads@GoogleMail.com` and
 * `jdoe@gmail.com` are one mailbox.
 */
export function mailboxOf(email: string): string {
  const address = normalizeEmail(email);
  const at = address.lastIndexOf("@");
  if (at <= 0) return address;
  const domain = address.slice(at + 1);
  const local = address.slice(0, at).split("+")[0] ?? "";
  return GMAIL_DOMAINS.has(domain) ? `${local.replaceAll(".", "")}@gmail.com` : `${local}@${domain}`;
}

/**
 * The account whose address is the same mailbox as `email` (see mailboxOf), if any. Read from the
 * accounts of the same domain (both gmail domains for gmail), and for other domains of the same
 * local part with or without a tag; compared in code, where mailboxOf is written once.
 */
export async function findAccountByMailbox(db: Db, email: string): Promise<Account | undefined> {
  const mailbox = mailboxOf(email);
  const at = mailbox.lastIndexOf("@");
  const domain = mailbox.slice(at + 1);
  const local = mailbox.slice(0, at);
  const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);
  const candidates = await db
    .selectFrom("accounts")
    .selectAll()
    .where((eb) =>
      domain === "gmail.com"
        ? eb.or([...GMAIL_DOMAINS].map((gmail) => eb(eb.fn("lower", ["email"]), "like", `%@${gmail}`)))
        : eb(eb.fn("lower", ["email"]), "like", `${escapeLike(local)}%@${escapeLike(domain)}`),
    )
    .execute();
  return candidates.find((account) => mailboxOf(account.email) === mailbox);
}

export async function findAccountByEmail(db: Db, email: string): Promise<Account | undefined> {
  return db
    .selectFrom("accounts")
    .selectAll()
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", normalizeEmail(email)))
    .executeTakeFirst();
}

/** Too many wrong passwords from this address (for this account, or for any): the password was not checked. */
const tooManyAttempts = (retryAfterSeconds: number) =>
  refusal("rate_limited", "too_many_attempts", { "Retry-After": String(retryAfterSeconds) });

/**
 * Sign-in through the one password limiter: the account, or `wrong_credentials` (401 in the
 * console), or 429 `too_many_attempts` with Retry-After. Each outcome counted when `metrics` is given.
 */
export async function signIn(
  deps: { db: Db; passwordLimiter: PasswordCheckLimiter; metrics?: AccountMetrics },
  input: { email: string; password: string; address: string },
): Promise<Account> {
  let known = false;
  const checked = await deps.passwordLimiter.check(input.email, input.address, async () => {
    const account = await findAccountByEmail(deps.db, input.email);
    known = account !== undefined;
    // An unknown email takes as long as a wrong password.
    const matches = await verifyPassword(
      input.password,
      account?.password_hash ?? (await decoyPasswordHash()),
    );
    return account && matches ? account : null;
  });
  if (checked.outcome === "limited") {
    deps.metrics?.signInFinished("limited", false);
    throw tooManyAttempts(checked.retryAfterSeconds);
  }
  if (checked.outcome === "failed") {
    deps.metrics?.signInFinished(known ? "wrong_password" : "unknown_account", checked.slowed);
    throw refusal("invalid_request", "wrong_credentials");
  }
  deps.metrics?.signInFinished("ok", checked.slowed);
  return checked.value;
}

/**
 * Sets a new password and ends what the old one opened: every session but `keepSessionToken`
 * (all of them without it) and every OAuth grant the account approved, so a stolen session or a
 * connected app dies with the old password. Outstanding reset links stop working too.
 */
export async function setPassword(
  db: Db,
  accountId: string,
  password: string,
  options: { keepSessionToken?: string; now?: Date } = {},
): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw refusal("invalid_request", problem);
  const now = options.now ?? new Date();
  const hash = await hashPassword(password);
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("accounts")
      .set({ password_hash: hash, password_changed_at: now })
      .where("id", "=", accountId)
      .execute();
    await trx
      .updateTable("password_resets")
      .set({ used_at: now })
      .where("account_id", "=", accountId)
      .where("used_at", "is", null)
      .execute();
    await endOtherSessions(trx, accountId, options.keepSessionToken);
    await revokeAllConnectedApps(trx, accountId, now);
  });
}

/** A password change from the account page: the current password is checked through the one limiter. */
export async function changePassword(
  deps: { db: Db; passwordLimiter: PasswordCheckLimiter },
  input: { accountId: string; address: string; current: string; next: string; keepSessionToken: string },
): Promise<void> {
  const { db } = deps;
  const problem = passwordProblem(input.next);
  if (problem) throw refusal("invalid_request", problem);
  const account = await db
    .selectFrom("accounts")
    .selectAll()
    .where("id", "=", input.accountId)
    .executeTakeFirst();
  if (!account) throw new ApiError("not_found", "No such account.");
  const checked = await deps.passwordLimiter.check(account.email, input.address, async () =>
    (await verifyPassword(input.current, account.password_hash)) ? account : null,
  );
  if (checked.outcome === "limited") throw tooManyAttempts(checked.retryAfterSeconds);
  if (checked.outcome === "failed") throw refusal("invalid_request", "wrong_password");
  await setPassword(db, input.accountId, input.next, { keepSessionToken: input.keepSessionToken });
}

export async function updateAccountProfile(
  db: Db,
  accountId: string,
  input: { name?: string; language?: Language },
): Promise<void> {
  if (Object.keys(input).length === 0) return;
  await db.updateTable("accounts").set(input).where("id", "=", accountId).execute();
}
