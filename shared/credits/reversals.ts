/**
 * Repository of `credit_reversals`: refunds and disputes of Stripe payments, by payment intent.
 * How much each takes back is decided in shared/payments/settlement.ts.
 */
import { sql, type Transaction } from "kysely";
import type { Database } from "../db/schema.ts";

export type ReversalKind = "refund" | "dispute";

/**
 * Records a reversal once per (payment intent, kind, reference): a redelivered event inserts
 * nothing and answers undefined.
 */
export async function insertReversal(
  trx: Transaction<Database>,
  reversal: { paymentIntentId: string; kind: ReversalKind; reference: string; amount: number },
): Promise<{ id: string } | undefined> {
  return trx
    .insertInto("credit_reversals")
    .values({
      payment_intent_id: reversal.paymentIntentId,
      kind: reversal.kind,
      reference: reversal.reference,
      amount: reversal.amount,
    })
    .onConflict((oc) => oc.columns(["payment_intent_id", "kind", "reference"]).doNothing())
    .returning("id")
    .executeTakeFirst();
}

/** Reversals of this payment intent that arrived before its purchase was recorded, oldest first. */
export async function listUnappliedReversals(
  trx: Transaction<Database>,
  paymentIntentId: string,
): Promise<{ id: string; kind: ReversalKind }[]> {
  return trx
    .selectFrom("credit_reversals")
    .select(["id", "kind"])
    .where("payment_intent_id", "=", paymentIntentId)
    .where("purchase_id", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

/** Ties a reversal to its purchase and records what it took from the balance and what it could not. */
export async function applyReversal(
  trx: Transaction<Database>,
  reversalId: string,
  applied: { purchaseId: string; workspaceId: string; credits: number; shortfall: number },
): Promise<void> {
  await trx
    .updateTable("credit_reversals")
    .set({
      purchase_id: applied.purchaseId,
      workspace_id: applied.workspaceId,
      credits: applied.credits,
      shortfall: applied.shortfall,
      applied_at: sql<Date>`now()`,
    })
    .where("id", "=", reversalId)
    .execute();
}
