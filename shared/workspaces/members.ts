import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { Member } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { requireWorkspace } from "./workspaces.ts";

/**
 * The one module that reads and writes `members`. A membership is "active" until the member is
 * removed (`removed_at`); that rule is written here once, and other tables' queries ask it through
 * the helpers below instead of joining the table.
 */
const activeMembers = (db: Db) => db.selectFrom("members").where("members.removed_at", "is", null);

const sameEmail = (email: string) => sql<boolean>`lower(members.email) = ${email.trim().toLowerCase()}`;

/** Rate limits count per member, whichever door (console, OAuth token) the person comes through. */
export const memberRateLimitId = (memberId: string): string => `member:${memberId}`;

export async function addMember(
  db: Db,
  workspaceId: string,
  input: { email: string; name?: string | null },
): Promise<Member> {
  await requireWorkspace(db, workspaceId);
  const existing = await activeMembers(db)
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", input.email.toLowerCase()))
    .executeTakeFirst();
  if (existing) throw new ApiError("invalid_request", "email: already a member of this workspace.");
  return db
    .insertInto("members")
    .values({ workspace_id: workspaceId, email: input.email, name: input.name ?? null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Marks the member as gone; the keys they created belong to the workspace and keep working. */
export async function removeMember(db: Db, workspaceId: string, memberId: string): Promise<void> {
  const removed = await db
    .updateTable("members")
    .set({ removed_at: new Date() })
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", memberId)
    .where("removed_at", "is", null)
    .executeTakeFirst();
  if (removed.numUpdatedRows === 0n) throw new ApiError("not_found", "No such member in this workspace.");
}

export async function findActiveMember(db: Db, workspaceId: string, memberId: string) {
  return activeMembers(db)
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", memberId)
    .executeTakeFirst();
}

export interface Membership {
  member_id: string;
  workspace_id: string;
  workspace_name: string;
}

/** This person's active memberships, with their workspace's name: one query for both readers. */
function membershipsOf(db: Db, accountId: string) {
  return activeMembers(db)
    .innerJoin("workspaces", "workspaces.id", "members.workspace_id")
    .select(["members.id as member_id", "members.workspace_id", "workspaces.name as workspace_name"])
    .where("members.account_id", "=", accountId);
}

/** The workspaces this person may open now: removed memberships are gone at once. */
export async function listMemberships(db: Db, accountId: string): Promise<Membership[]> {
  return membershipsOf(db, accountId).orderBy("workspaces.name").orderBy("workspaces.id").execute();
}

export async function findMembership(
  db: Db,
  accountId: string,
  workspaceId: string,
): Promise<Membership | undefined> {
  return membershipsOf(db, accountId).where("members.workspace_id", "=", workspaceId).executeTakeFirst();
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
  const rows = await activeMembers(db)
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

/** The number of active members, as a subquery for a workspace's summary. */
export const activeMemberCount = (db: Db, workspaceId: string) =>
  activeMembers(db)
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("members.workspace_id", "=", workspaceId);

/** Whether someone who signed up holds an active membership of the workspace under this email. */
export async function hasJoinedMember(db: Db, workspaceId: string, email: string): Promise<boolean> {
  const joined = await activeMembers(db)
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where(sameEmail(email))
    .where("account_id", "is not", null)
    .executeTakeFirst();
  return joined !== undefined;
}

/** A new workspace's first member: the account that made it. */
export async function addAccountMember(
  db: Db,
  workspaceId: string,
  account: { id: string; email: string; name: string },
): Promise<string> {
  const row = await db
    .insertInto("members")
    .values({ workspace_id: workspaceId, email: account.email, name: account.name, account_id: account.id })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Makes the account a member of the workspace (an accepted invite): its active membership if it
 * has one, else a member the operator added with this email (who keeps the keys it created),
 * else a new one. Returns the member's id.
 */
export async function joinWorkspace(
  db: Db,
  workspaceId: string,
  account: { id: string; email: string; name: string },
  invitedEmail: string,
): Promise<string> {
  const existing = await activeMembers(db)
    .select(["id", "account_id"])
    .where("workspace_id", "=", workspaceId)
    .where((eb) =>
      eb.or([
        eb("account_id", "=", account.id),
        eb.and([sameEmail(invitedEmail), eb("account_id", "is", null)]),
      ]),
    )
    .orderBy("created_at")
    .executeTakeFirst();
  if (!existing) return addAccountMember(db, workspaceId, account);
  if (existing.account_id === null) {
    await db.updateTable("members").set({ account_id: account.id }).where("id", "=", existing.id).execute();
  }
  return existing.id;
}

/** The person behind a membership (null for a member who never signed up). */
export async function findMemberAccount(db: Db, memberId: string) {
  return db
    .selectFrom("members")
    .innerJoin("accounts", "accounts.id", "members.account_id")
    .select(["accounts.id", "accounts.email", "accounts.name"])
    .where("members.id", "=", memberId)
    .executeTakeFirst();
}

/** Takes the member's row lock: what orders concurrent changes made on the member's behalf. */
export async function lockMember(db: Db, memberId: string): Promise<void> {
  await db.selectFrom("members").select("id").where("id", "=", memberId).forUpdate().execute();
}

/** Every membership of the account, removed ones included, as a subquery of ids. */
export const memberIdsOfAccount = (db: Db, accountId: string) =>
  db.selectFrom("members").select("members.id").where("members.account_id", "=", accountId);

/** The account's active memberships, as a subquery of ids. */
export const activeMemberIdsOfAccount = (db: Db, accountId: string) =>
  activeMembers(db).select("members.id").where("members.account_id", "=", accountId);

/**
 * For other tables' rows that name a member (the column given): true when that member was
 * removed; false when still active or when the column is null.
 */
export const memberRemoved = (memberIdColumn: string): RawBuilder<boolean> =>
  sql<boolean>`exists (select 1 from members where members.id = ${sql.ref(memberIdColumn)} and members.removed_at is not null)`;

/** The member's email and display name (their account's name once they signed up), for listings. */
export const memberEmail = (memberIdColumn: string): RawBuilder<string | null> =>
  sql<string | null>`(select members.email from members where members.id = ${sql.ref(memberIdColumn)})`;
export const memberDisplayName = (memberIdColumn: string): RawBuilder<string | null> =>
  sql<
    string | null
  >`(select coalesce(accounts.name, members.name) from members left join accounts on accounts.id = members.account_id where members.id = ${sql.ref(memberIdColumn)})`;
