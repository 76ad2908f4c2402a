import type { Db } from "../db/database.ts";
import { activeMemberIdsOfAccount, memberIdsOfAccount } from "../workspaces/members.ts";

/** An assistant app a person connected: one live grant they approved, in one of their workspaces. */
export interface ConnectedApp {
  grant_id: string;
  client_name: string;
  workspace_id: string;
  workspace_name: string;
  scope: string;
  approved_at: Date;
  /** Spending caps (credits per UTC day and in all); null: not capped. See shared/credits/caps.ts. */
  daily_credit_cap: number | null;
  total_credit_cap: number | null;
}

/** Live grants approved by any membership of this account, newest first. */
export async function listConnectedApps(db: Db, accountId: string): Promise<ConnectedApp[]> {
  return db
    .selectFrom("oauth_grants")
    .innerJoin("oauth_clients", "oauth_clients.id", "oauth_grants.client_id")
    .innerJoin("workspaces", "workspaces.id", "oauth_grants.workspace_id")
    .select([
      "oauth_grants.id as grant_id",
      "oauth_clients.client_name",
      "oauth_grants.workspace_id",
      "workspaces.name as workspace_name",
      "oauth_grants.scope",
      "oauth_grants.created_at as approved_at",
      "oauth_grants.daily_credit_cap",
      "oauth_grants.total_credit_cap",
    ])
    .where("oauth_grants.approved_by_member_id", "in", activeMemberIdsOfAccount(db, accountId))
    .where("oauth_grants.revoked_at", "is", null)
    .orderBy("oauth_grants.created_at", "desc")
    .orderBy("oauth_grants.id")
    .execute();
}

/** One live grant this account approved; undefined when it is not theirs or not live. */
export async function findConnectedApp(
  db: Db,
  accountId: string,
  grantId: string,
): Promise<ConnectedApp | undefined> {
  return (await listConnectedApps(db, accountId)).find((app) => app.grant_id === grantId);
}

/**
 * Sets the spending caps of one live grant this account approved (null clears a cap); false when
 * it is not theirs or not live, so another person's grant reads as "nothing here".
 */
export async function setConnectedAppCaps(
  db: Db,
  accountId: string,
  grantId: string,
  caps: { daily_credit_cap: number | null; total_credit_cap: number | null },
): Promise<boolean> {
  const result = await db
    .updateTable("oauth_grants")
    .set(caps)
    .where("id", "=", grantId)
    .where("revoked_at", "is", null)
    .where("approved_by_member_id", "in", activeMemberIdsOfAccount(db, accountId))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends one grant of this account (every token of it stops at once); false if it is not theirs or not live. */
export async function revokeConnectedApp(
  db: Db,
  accountId: string,
  grantId: string,
  now: Date = new Date(),
): Promise<boolean> {
  const result = await db
    .updateTable("oauth_grants")
    .set({ revoked_at: now })
    .where("id", "=", grantId)
    .where("revoked_at", "is", null)
    .where("approved_by_member_id", "in", memberIdsOfAccount(db, accountId))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Every grant any membership of the account approved: after a password change or a reset. */
export async function revokeAllConnectedApps(
  db: Db,
  accountId: string,
  now: Date = new Date(),
): Promise<void> {
  await db
    .updateTable("oauth_grants")
    .set({ revoked_at: now })
    .where("revoked_at", "is", null)
    .where("approved_by_member_id", "in", memberIdsOfAccount(db, accountId))
    .execute();
}

/** A live grant of a workspace as the operator sees it: its app, who approved it, its caps. */
export interface WorkspaceGrant {
  id: string;
  client_name: string;
  scope: string;
  approved_by_member_id: string | null;
  approved_at: Date;
  daily_credit_cap: number | null;
  total_credit_cap: number | null;
}

/** The workspace's live grants, oldest first. */
export async function listWorkspaceGrants(db: Db, workspaceId: string): Promise<WorkspaceGrant[]> {
  return db
    .selectFrom("oauth_grants")
    .innerJoin("oauth_clients", "oauth_clients.id", "oauth_grants.client_id")
    .select([
      "oauth_grants.id",
      "oauth_clients.client_name",
      "oauth_grants.scope",
      "oauth_grants.approved_by_member_id",
      "oauth_grants.created_at as approved_at",
      "oauth_grants.daily_credit_cap",
      "oauth_grants.total_credit_cap",
    ])
    .where("oauth_grants.workspace_id", "=", workspaceId)
    .where("oauth_grants.revoked_at", "is", null)
    .orderBy("oauth_grants.created_at")
    .orderBy("oauth_grants.id")
    .execute();
}

/**
 * Sets a live grant's spending caps for the operator: a field left out is kept, null clears it;
 * false when the workspace has no such live grant.
 */
export async function setWorkspaceGrantCaps(
  db: Db,
  workspaceId: string,
  grantId: string,
  caps: { daily_credit_cap?: number | null; total_credit_cap?: number | null },
): Promise<boolean> {
  const set: { daily_credit_cap?: number | null; total_credit_cap?: number | null } = {};
  if (caps.daily_credit_cap !== undefined) set.daily_credit_cap = caps.daily_credit_cap;
  if (caps.total_credit_cap !== undefined) set.total_credit_cap = caps.total_credit_cap;
  const query = db
    .selectFrom("oauth_grants")
    .select("id")
    .where("id", "=", grantId)
    .where("workspace_id", "=", workspaceId)
    .where("revoked_at", "is", null);
  if (!(await query.executeTakeFirst())) return false;
  if (Object.keys(set).length > 0) {
    await db.updateTable("oauth_grants").set(set).where("id", "=", grantId).execute();
  }
  return true;
}
