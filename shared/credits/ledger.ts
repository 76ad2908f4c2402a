import type { Transaction } from "kysely";
import type { Spender } from "../auth.ts";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { refuseOverCap, type SuggestUnderCap, spendWithinCaps } from "./caps.ts";
import {
  type CreditHold,
  deleteHold,
  deleteLapsedHolds,
  insertHold,
  sumLiveHolds,
  sumLiveHoldsOf,
} from "./holds.ts";
import { CREDITS_PER_NEW_PLACE, creditsInWords } from "./prices.ts";
import { insertOperatorPurchase } from "./purchases.ts";

export const MAX_PURCHASE_CREDITS = 100_000;

export async function readBalance(db: Db | Transaction<Database>, workspaceId: string): Promise<number> {
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
 * Debits `credits` from what is available: the balance less the workspace's live holds (credits
 * set aside for drafts in flight), so a debit can never spend a credit another request holds and
 * the balance can never go below what the holds need. The workspace row is locked first (a no-op
 * when the caller already holds the lock), so the holds read below cannot change before the
 * update. Not enough means 402; the caller's transaction rolls back. A `spender` (the API key or
 * OAuth grant charging) is held to its spending caps here too (402 past one) and its spend recorded.
 */
export async function debitBalance(
  trx: Transaction<Database>,
  workspaceId: string,
  credits: number,
  describeShortfall: (available: number) => string = (available) =>
    `This needs ${credits} credit${credits === 1 ? "" : "s"} and the balance is ${available}.`,
  spender?: Spender,
  suggestUnderCap?: SuggestUnderCap,
): Promise<number> {
  const balance = await lockWorkspaceBalance(trx, workspaceId);
  const held = await sumLiveHolds(trx, workspaceId);
  if (balance - held < credits) {
    throw new ApiError("insufficient_credits", withHeldNote(describeShortfall(balance - held), held), {
      shortfall: { needed: credits, available: balance - held },
    });
  }
  if (spender && credits > 0)
    await spendWithinCaps(trx, workspaceId, spender, credits, new Date(), suggestUnderCap);
  const row = await trx
    .updateTable("workspaces")
    .set((eb) => ({ balance: eb("balance", "-", credits) }))
    .where("id", "=", workspaceId)
    .where("balance", ">=", credits)
    .returning("balance")
    .executeTakeFirstOrThrow();
  return row.balance;
}

/** Says why the balance looks higher elsewhere (GET /v1/credits shows the balance, holds aside). */
function withHeldNote(message: string, held: number): string {
  if (held <= 0) return message;
  const note = `${held} more credit${held === 1 ? " is" : "s are"} held by drafts in progress.`;
  return `${message} ${note}`;
}

/**
 * Sets `credits` aside before paid work starts (a draft before the model is called): the work
 * then cannot be started twice on the same last credit. Answers 402 at once when the balance less
 * the live holds cannot cover it. The hold lapses by itself after `ttlMs` (a process that dies
 * mid-work never settles or releases it): `ttlMs` must outlast the work.
 */
export async function holdCredits(
  db: Db,
  workspaceId: string,
  hold: {
    credits: number;
    purpose: string;
    ttlMs: number;
    describeShortfall: (available: number) => string;
    /** The key or grant asking: its caps count what it spent and what its other holds set aside. */
    spender?: Spender | undefined;
  },
): Promise<CreditHold> {
  return db.transaction().execute(async (trx) => {
    const balance = await lockWorkspaceBalance(trx, workspaceId);
    await deleteLapsedHolds(trx, workspaceId);
    const held = await sumLiveHolds(trx, workspaceId);
    if (balance - held < hold.credits) {
      throw new ApiError("insufficient_credits", withHeldNote(hold.describeShortfall(balance - held), held), {
        shortfall: { needed: hold.credits, available: balance - held },
      });
    }
    // Under the workspace lock, with this key's or grant's own holds counted, so drafts started
    // together cannot all pass its cap and all ask the model.
    if (hold.spender) {
      await refuseOverCap(
        trx,
        hold.spender,
        hold.credits,
        new Date(),
        await sumLiveHoldsOf(trx, hold.spender),
      );
    }
    return insertHold(trx, {
      workspaceId,
      credits: hold.credits,
      purpose: hold.purpose,
      ttlMs: hold.ttlMs,
      spender: hold.spender,
    });
  });
}

/**
 * Turns a hold into the charge, inside the caller's transaction (the one that stores what was
 * paid for). A hold that lapsed before this (the work outlived `ttlMs`) is charged like a new
 * debit: it succeeds only if the credit is still available.
 */
export async function settleHold(
  trx: Transaction<Database>,
  hold: CreditHold,
  describeShortfall?: (available: number) => string,
  spender?: Spender,
): Promise<number> {
  await lockWorkspaceBalance(trx, hold.workspaceId);
  await deleteHold(trx, hold.id);
  return debitBalance(trx, hold.workspaceId, hold.credits, describeShortfall, spender);
}

/** Gives a hold back: the work failed and nothing is charged. */
export async function releaseHold(db: Db, hold: CreditHold): Promise<void> {
  await deleteHold(db, hold.id);
}

/**
 * Charges CREDITS_PER_NEW_PLACE for each place not yet in the workspace's ledger, inside the caller's transaction,
 * which must already hold the workspace lock (`lockWorkspaceBalance`). Places already charged are
 * free, even at zero balance. Returns the newly charged place ids.
 */
export async function chargeNewPlaces(
  trx: Transaction<Database>,
  workspaceId: string,
  placeIds: readonly string[],
  spender?: Spender,
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
      charged.length * CREDITS_PER_NEW_PLACE,
      (available) => searchShortfallMessage(charged.length, available),
      spender,
      (remaining) =>
        `To go on within the cap, lower max_results to ${Math.floor(remaining / CREDITS_PER_NEW_PLACE)} or fewer (places already charged in this workspace are free).`,
    );
  }
  return charged.map((row) => row.place_id);
}

/**
 * The 402 of a search (the spec: the scan found new places the balance cannot cover, and nothing
 * was saved): what it found and what that would cost, the balance, and the two ways out. A
 * max_results whose every result could be new and still be paid for always fits; when not even
 * one fits, only buying credits does.
 */
function searchShortfallMessage(newPlaces: number, available: number): string {
  const fits = Math.floor(available / CREDITS_PER_NEW_PLACE);
  const found = `The search found ${newPlaces} new place${newPlaces === 1 ? "" : "s"}, which would cost ${creditsInWords(newPlaces * CREDITS_PER_NEW_PLACE)} (${creditsInWords(CREDITS_PER_NEW_PLACE)} per new place); the balance is ${available}. Nothing was saved or charged.`;
  const buy = "buy credits on the Credits page of the console";
  return fits > 0
    ? `${found} To go on, lower max_results to ${fits} or fewer (places already charged in this workspace are free), or ${buy}.`
    : `${found} To go on, ${buy}.`;
}

/** Adds bought credits and ends the free trial: an operator's purchase (admin API). */
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
    await insertOperatorPurchase(trx, workspaceId, credits);
    return creditBalance(trx, workspaceId, credits);
  });
}

/**
 * Raises the balance by bought credits and ends the free trial (any purchase does), inside the
 * transaction that records the purchase, which holds the workspace lock.
 */
export async function creditBalance(
  trx: Transaction<Database>,
  workspaceId: string,
  credits: number,
): Promise<{ balance: number; free_trial: boolean }> {
  return trx
    .updateTable("workspaces")
    .set((eb) => ({ balance: eb("balance", "+", credits), free_trial: false }))
    .where("id", "=", workspaceId)
    .returning(["balance", "free_trial"])
    .executeTakeFirstOrThrow();
}

/**
 * Takes back up to `credits` (a refund, a dispute): never below 0, whatever live holds need (a
 * draft in flight then fails to settle and charges nothing). Answers what was taken and what the
 * balance could not give (the shortfall). Locks the workspace row first.
 */
export async function takeBackCredits(
  trx: Transaction<Database>,
  workspaceId: string,
  credits: number,
): Promise<{ taken: number; shortfall: number; balance: number }> {
  const balance = await lockWorkspaceBalance(trx, workspaceId);
  const taken = Math.min(Math.max(credits, 0), balance);
  if (taken > 0) {
    await trx
      .updateTable("workspaces")
      .set((eb) => ({ balance: eb("balance", "-", taken) }))
      .where("id", "=", workspaceId)
      .execute();
  }
  return { taken, shortfall: Math.max(credits, 0) - taken, balance: balance - taken };
}
