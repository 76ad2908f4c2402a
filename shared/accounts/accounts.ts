import type { Db } from "../db/database.ts";
import type { Account, Language } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { decoyPasswordHash, hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";
import { endOtherSessions } from "./sessions.ts";

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export async function findAccountByEmail(db: Db, email: string): Promise<Account | undefined> {
  return db
    .selectFrom("accounts")
    .selectAll()
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", normalizeEmail(email)))
    .executeTakeFirst();
}

/** The account whose password this is, or null; an unknown email takes as long as a wrong password. */
export async function checkCredentials(db: Db, email: string, password: string): Promise<Account | null> {
  const account = await findAccountByEmail(db, email);
  const matches = await verifyPassword(password, account?.password_hash ?? (await decoyPasswordHash()));
  return account && matches ? account : null;
}

/** A new password ends every other session of the account (a stolen session dies with the old password). */
export async function changePassword(
  db: Db,
  accountId: string,
  input: { current: string; next: string; keepSessionToken: string },
): Promise<void> {
  const account = await db.selectFrom("accounts").selectAll().where("id", "=", accountId).executeTakeFirst();
  if (!account || !(await verifyPassword(input.current, account.password_hash))) {
    throw new ApiError("invalid_request", "wrong_password");
  }
  const problem = passwordProblem(input.next);
  if (problem) throw new ApiError("invalid_request", problem);
  await db
    .updateTable("accounts")
    .set({ password_hash: await hashPassword(input.next), password_changed_at: new Date() })
    .where("id", "=", accountId)
    .execute();
  await endOtherSessions(db, accountId, input.keepSessionToken);
}

export async function updateAccountProfile(
  db: Db,
  accountId: string,
  input: { name?: string; language?: Language },
): Promise<void> {
  if (Object.keys(input).length === 0) return;
  await db.updateTable("accounts").set(input).where("id", "=", accountId).execute();
}

export interface Membership {
  member_id: string;
  workspace_id: string;
  workspace_name: string;
}

/** This person's memberships that are not removed, with their workspace's name: one query for both readers. */
function activeMemberships(db: Db, accountId: string) {
  return db
    .selectFrom("members")
    .innerJoin("workspaces", "workspaces.id", "members.workspace_id")
    .select(["members.id as member_id", "members.workspace_id", "workspaces.name as workspace_name"])
    .where("members.account_id", "=", accountId)
    .where("members.removed_at", "is", null);
}

/** The workspaces this person may open now: removed memberships are gone at once. */
export async function listMemberships(db: Db, accountId: string): Promise<Membership[]> {
  return activeMemberships(db, accountId).orderBy("workspaces.name").orderBy("workspaces.id").execute();
}

export async function findMembership(
  db: Db,
  accountId: string,
  workspaceId: string,
): Promise<Membership | undefined> {
  return activeMemberships(db, accountId).where("members.workspace_id", "=", workspaceId).executeTakeFirst();
}

export interface MemberListing {
  id: string;
  email: string;
  name: string | null;
  created_at: Date;
  /** False for a member the operator added who has not joined through an invite yet. */
  signed_up: boolean;
}

export async function listActiveMembers(db: Db, workspaceId: string): Promise<MemberListing[]> {
  const rows = await db
    .selectFrom("members")
    .leftJoin("accounts", "accounts.id", "members.account_id")
    .select([
      "members.id",
      "members.email",
      "members.name as member_name",
      "accounts.name as account_name",
      "members.created_at",
      "members.account_id",
    ])
    .where("members.workspace_id", "=", workspaceId)
    .where("members.removed_at", "is", null)
    .orderBy("members.created_at")
    .orderBy("members.id")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    name: row.account_name ?? row.member_name,
    created_at: row.created_at,
    signed_up: row.account_id !== null,
  }));
}
