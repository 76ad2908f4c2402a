/**
 * Repository of `credit_holds`: credits set aside for paid work in flight. The mechanism that
 * places, settles and releases holds (and counts them in every balance check) is in ledger.ts.
 */
import { sql, type Transaction } from "kysely";
import type { Spender } from "../auth.ts";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";

export interface CreditHold {
  id: string;
  workspaceId: string;
  credits: number;
}

/**
 * Credits held by the workspace's live holds (not yet expired, by the database's clock, which every
 * API node shares). Read it inside a transaction that holds the workspace lock so it cannot change
 * between this read and the debit or hold that depends on it.
 */
export async function sumLiveHolds(trx: Transaction<Database>, workspaceId: string): Promise<number> {
  const row = await trx
    .selectFrom("credit_holds")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>("credits"), sql<number>`0`).as("held"))
    .where("workspace_id", "=", workspaceId)
    .where("expires_at", ">", sql<Date>`now()`)
    .executeTakeFirstOrThrow();
  return Number(row.held);
}

/** Credits held by the live holds of one API key or OAuth grant (its drafts being written). */
export async function sumLiveHoldsOf(trx: Transaction<Database>, spender: Spender): Promise<number> {
  const row = await trx
    .selectFrom("credit_holds")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>("credits"), sql<number>`0`).as("held"))
    .where(spender.kind === "api_key" ? "api_key_id" : "grant_id", "=", spender.id)
    .where("expires_at", ">", sql<Date>`now()`)
    .executeTakeFirstOrThrow();
  return Number(row.held);
}

/** Drops the workspace's lapsed holds (they count for nothing already; this only keeps the table small). */
export async function deleteLapsedHolds(trx: Transaction<Database>, workspaceId: string): Promise<void> {
  await trx
    .deleteFrom("credit_holds")
    .where("workspace_id", "=", workspaceId)
    .where("expires_at", "<=", sql<Date>`now()`)
    .execute();
}

export async function insertHold(
  trx: Transaction<Database>,
  hold: {
    workspaceId: string;
    credits: number;
    purpose: string;
    ttlMs: number;
    spender?: Spender | undefined;
  },
): Promise<CreditHold> {
  const row = await trx
    .insertInto("credit_holds")
    .values({
      workspace_id: hold.workspaceId,
      credits: hold.credits,
      purpose: hold.purpose,
      api_key_id: hold.spender?.kind === "api_key" ? hold.spender.id : null,
      grant_id: hold.spender?.kind === "oauth_grant" ? hold.spender.id : null,
      expires_at: sql<Date>`now() + ${Math.ceil(hold.ttlMs)} * interval '1 millisecond'`,
    })
    .returning(["id", "workspace_id", "credits"])
    .executeTakeFirstOrThrow();
  return { id: row.id, workspaceId: row.workspace_id, credits: row.credits };
}

/** Deletes one hold; true when it was still there (live or lapsed). */
export async function deleteHold(db: Db | Transaction<Database>, holdId: string): Promise<boolean> {
  const row = await db.deleteFrom("credit_holds").where("id", "=", holdId).returning("id").executeTakeFirst();
  return row !== undefined;
}
