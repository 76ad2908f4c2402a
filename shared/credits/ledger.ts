import type { Transaction } from "kysely";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";
import { ApiError } from "../errors.ts";

export const MAX_PURCHASE_CREDITS = 100_000;

export async function readBalance(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom("workspaces")
    .select("balance")
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  if (!row) throw new ApiError("not_found", "No such workspace.");
  return row.balance;
}

/** Locks the workspace row so that charges in one workspace are applied one transaction at a time. */
export async function lockWorkspaceBalance(trx: Transaction<Database>, workspaceId: string): Promise<number> {
  const row = await trx
    .selectFrom("workspaces")
    .select("balance")
    .where("id", "=", workspaceId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new ApiError("not_found", "No such workspace.");
  return row.balance;
}

/**
 * Debits `credits` without a read-modify-write race: the update only matches while the balance
 * covers it. No row back means the balance cannot cover it (402); the caller's transaction rolls back.
 */
export async function debitBalance(
  trx: Transaction<Database>,
  workspaceId: string,
  credits: number,
  describeShortfall: (balance: number) => string = (balance) =>
    `This needs ${credits} credit${credits === 1 ? "" : "s"} and the balance is ${balance}.`,
): Promise<number> {
  const row = await trx
    .updateTable("workspaces")
    .set((eb) => ({ balance: eb("balance", "-", credits) }))
    .where("id", "=", workspaceId)
    .where("balance", ">=", credits)
    .returning("balance")
    .executeTakeFirst();
  if (!row) {
    const { balance } = await trx
      .selectFrom("workspaces")
      .select("balance")
      .where("id", "=", workspaceId)
      .executeTakeFirstOrThrow();
    throw new ApiError("insufficient_credits", describeShortfall(balance));
  }
  return row.balance;
}

/**
 * Charges 1 credit for each place not yet in the workspace's ledger, inside the caller's transaction,
 * which must already hold the workspace lock (`lockWorkspaceBalance`). Places already charged are
 * free, even at zero balance. Returns the newly charged place ids.
 */
export async function chargeNewPlaces(
  trx: Transaction<Database>,
  workspaceId: string,
  placeIds: readonly string[],
): Promise<string[]> {
  const unique = [...new Set(placeIds)];
  if (unique.length === 0) return [];
  const charged = await trx
    .insertInto("search_charges")
    .values(unique.map((placeId) => ({ workspace_id: workspaceId, place_id: placeId })))
    .onConflict((oc) => oc.columns(["workspace_id", "place_id"]).doNothing())
    .returning("place_id")
    .execute();
  if (charged.length > 0) {
    await debitBalance(
      trx,
      workspaceId,
      charged.length,
      (balance) =>
        `The search found ${charged.length} new place${charged.length === 1 ? "" : "s"} and the balance is ${balance}. Nothing was saved or charged; buy credits or lower max_results.`,
    );
  }
  return charged.map((row) => row.place_id);
}

/** Adds bought credits and ends the free trial. */
export async function purchaseCredits(
  db: Db,
  workspaceId: string,
  credits: number,
): Promise<{ balance: number; free_trial: boolean }> {
  if (!Number.isInteger(credits) || credits < 1 || credits > MAX_PURCHASE_CREDITS) {
    throw new ApiError("invalid_request", `credits: must be an integer from 1 to ${MAX_PURCHASE_CREDITS}.`);
  }
  return db.transaction().execute(async (trx) => {
    await lockWorkspaceBalance(trx, workspaceId);
    await trx.insertInto("credit_purchases").values({ workspace_id: workspaceId, credits }).execute();
    return trx
      .updateTable("workspaces")
      .set((eb) => ({ balance: eb("balance", "+", credits), free_trial: false }))
      .where("id", "=", workspaceId)
      .returning(["balance", "free_trial"])
      .executeTakeFirstOrThrow();
  });
}
