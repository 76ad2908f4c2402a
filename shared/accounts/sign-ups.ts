import { sql } from "kysely";
import { isValid as acceptedByDisposableList } from "mailchecker";
import type { Db } from "../db/database.ts";
import { refusal } from "../errors.ts";
import type { Language } from "../languages.ts";
import { hashSecret, looksLikeSecret, newSecret } from "../secrets.ts";
import { addAccountMember } from "../workspaces/members.ts";
import { createWorkspace } from "../workspaces/workspaces.ts";
import { findAccountByMailbox, mailboxOf } from "./accounts.ts";
import { hashPassword, passwordProblem } from "./passwords.ts";

/** A sign-up's mailed link works once, for a day. */
const SIGN_UP_TTL_MS = 24 * 3600 * 1000;

/** The sign-up form: no password, which is chosen on the mailed link's page (by the mailbox's owner). */
export interface SignUpRequest {
  email: string;
  name: string;
  agencyName: string;
  language: Language;
}

/**
 * What to mail after a sign-up form: the confirmation link, or, for an address whose mailbox
 * already has an account (the address itself or an alias of it: see mailboxOf), a note saying so
 * (the page answers the same either way, so the form tells nobody which addresses have accounts).
 */
export type SignUpRequested =
  | { kind: "pending"; token: string; expires_at: Date }
  | { kind: "account_exists"; language: Language };

/**
 * Whether an address of a throwaway-mail provider (or one the maintained list does not accept):
 * `mailchecker` is a maintained list of such domains, subdomains included.
 */
const isDisposableAddress = (email: string): boolean => !acceptedByDisposableList(email);

/**
 * Records a sign-up until its link is opened: no account and no workspace exist before. Refuses
 * throwaway addresses (`disposable_address`). No password here: whoever types an address is not
 * yet its owner, so the password is chosen on the mailed link's page.
 */
export async function requestSignUp(
  db: Db,
  input: SignUpRequest,
  now: Date = new Date(),
): Promise<SignUpRequested> {
  const email = input.email.trim();
  if (isDisposableAddress(email)) throw refusal("invalid_request", "disposable_address");
  const account = await findAccountByMailbox(db, email);
  if (account) return { kind: "account_exists", language: account.language };
  const token = newSecret();
  const expiresAt = new Date(now.getTime() + SIGN_UP_TTL_MS);
  // Old requests are cleared as new ones arrive; the index on expires_at keeps this cheap.
  await db
    .deleteFrom("sign_ups")
    .where("expires_at", "<", new Date(now.getTime() - SIGN_UP_TTL_MS))
    .where("confirmed_at", "is", null)
    .execute();
  await db
    .insertInto("sign_ups")
    .values({
      email,
      name: input.name,
      agency_name: input.agencyName,
      password_hash: null,
      language: input.language,
      token_hash: hashSecret(token),
      created_at: now,
      expires_at: expiresAt,
    })
    .execute();
  return { kind: "pending", token, expires_at: expiresAt };
}

export interface OpenSignUp {
  email: string;
  name: string;
  agency_name: string;
  language: Language;
}

/** The sign-up behind a link, or null when it is unknown, confirmed or expired. */
export async function findOpenSignUp(
  db: Db,
  token: string,
  now: Date = new Date(),
): Promise<OpenSignUp | null> {
  if (!looksLikeSecret(token)) return null;
  const row = await db
    .selectFrom("sign_ups")
    .select(["email", "name", "agency_name", "language"])
    .where("token_hash", "=", hashSecret(token))
    .where("confirmed_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Opens a sign-up's link, once: the account (with the password chosen now, on the link's page),
 * its workspace (10 free credits, free trial) and its membership, in one transaction. Throws 404
 * `sign_up_invalid` for a link that is unknown, used or expired, a password problem, and
 * `account_exists` when the mailbox got an account meanwhile (through an invite, another sign-up
 * or one of an alias of the address: one account, so one free trial, per mailbox).
 */
export async function confirmSignUp(
  db: Db,
  token: string,
  password: string,
  now: Date = new Date(),
): Promise<{ accountId: string; workspaceId: string }> {
  if (!looksLikeSecret(token)) throw refusal("not_found", "sign_up_invalid");
  const problem = passwordProblem(password);
  if (problem) throw refusal("invalid_request", problem);
  const passwordHash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    const signUp = await trx
      .selectFrom("sign_ups")
      .selectAll()
      .where("token_hash", "=", hashSecret(token))
      .forUpdate()
      .executeTakeFirst();
    if (!signUp || signUp.confirmed_at !== null || signUp.expires_at <= now) {
      throw refusal("not_found", "sign_up_invalid");
    }
    // Two links of aliases of one mailbox confirmed at once: the second waits here, then finds the first's account.
    await sql`select pg_advisory_xact_lock(hashtext(${`mailbox:${mailboxOf(signUp.email)}`}))`.execute(trx);
    if (await findAccountByMailbox(trx, signUp.email)) throw refusal("invalid_request", "account_exists");
    const account = await trx
      .insertInto("accounts")
      .values({
        email: signUp.email,
        name: signUp.name,
        password_hash: passwordHash,
        language: signUp.language,
        created_at: now,
        password_changed_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const workspace = await createWorkspace(trx, { name: signUp.agency_name, language: signUp.language });
    await addAccountMember(trx, workspace.id, { id: account.id, email: signUp.email, name: signUp.name });
    await trx
      .updateTable("sign_ups")
      .set({ confirmed_at: now, account_id: account.id })
      .where("id", "=", signUp.id)
      .execute();
    return { accountId: account.id, workspaceId: workspace.id };
  });
}
