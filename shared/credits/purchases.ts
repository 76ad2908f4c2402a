/**
 * Repository of `credit_purchases`: credits bought, by the operator (admin API) or through Stripe
 * Checkout. Crediting a purchase (the row and the balance in one transaction) is in ledger.ts for
 * the operator's and in shared/payments/settlement.ts for Stripe's.
 */
import type { Transaction } from "kysely";
import type { Database } from "../db/schema.ts";

export interface StripePurchase {
  id: string;
  workspace_id: string;
  credits: number;
  amount: number;
  reversed_credits: number;
  shortfall_credits: number;
}

export async function insertOperatorPurchase(
  trx: Transaction<Database>,
  workspaceId: string,
  credits: number,
): Promise<void> {
  await trx
    .insertInto("credit_purchases")
    .values({ workspace_id: workspaceId, credits, source: "operator" })
    .execute();
}

/**
 * Records a paid Checkout Session once: a second insert of the same session id (a redelivery, the
 * return page after the webhook, a concurrent delivery) inserts nothing and answers undefined.
 */
export async function insertStripePurchase(
  trx: Transaction<Database>,
  purchase: {
    workspaceId: string;
    credits: number;
    checkoutSessionId: string;
    paymentIntentId: string | null;
    amount: number;
    currency: string;
  },
): Promise<StripePurchase | undefined> {
  return trx
    .insertInto("credit_purchases")
    .values({
      workspace_id: purchase.workspaceId,
      credits: purchase.credits,
      source: "stripe",
      checkout_session_id: purchase.checkoutSessionId,
      payment_intent_id: purchase.paymentIntentId,
      amount: purchase.amount,
      currency: purchase.currency,
    })
    .onConflict((oc) => oc.column("checkout_session_id").doNothing())
    .returning(["id", "workspace_id", "credits", "reversed_credits", "shortfall_credits"])
    .executeTakeFirst()
    .then((row) => row && { ...row, amount: purchase.amount });
}

/** The Stripe purchase paid by this payment intent, locked until the transaction ends. */
export async function lockPurchaseByPaymentIntent(
  trx: Transaction<Database>,
  paymentIntentId: string,
): Promise<StripePurchase | undefined> {
  const row = await trx
    .selectFrom("credit_purchases")
    .select(["id", "workspace_id", "credits", "amount", "reversed_credits", "shortfall_credits"])
    .where("payment_intent_id", "=", paymentIntentId)
    .forUpdate()
    .executeTakeFirst();
  return row && { ...row, amount: row.amount ?? 0 };
}

/** Sets how many of the purchase's credits reversals took back or were owed (shortfall included). */
export async function recordPurchaseReversed(
  trx: Transaction<Database>,
  purchaseId: string,
  reversed: { reversedCredits: number; shortfallCredits: number },
): Promise<void> {
  await trx
    .updateTable("credit_purchases")
    .set({ reversed_credits: reversed.reversedCredits, shortfall_credits: reversed.shortfallCredits })
    .where("id", "=", purchaseId)
    .execute();
}
