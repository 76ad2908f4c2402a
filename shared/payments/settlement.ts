/**
 * What a Stripe payment does to the ledger, exactly once whatever Stripe delivers: a paid Checkout
 * Session credits its pack (the webhook and the return page both come here), a refund or a dispute
 * takes the credits back. Database only: the Stripe client is in stripe-gateway.ts.
 *
 * Every step for one payment intent runs under one transaction-scoped advisory lock on it, so a
 * completion and a reversal of the same payment never interleave: the reversal either finds the
 * purchase, or is recorded first and found by the completion, which then credits nothing.
 */
import { sql, type Transaction } from "kysely";
import type { CreditPack } from "../config.ts";
import { creditBalance, lockWorkspaceBalance, takeBackCredits } from "../credits/ledger.ts";
import {
  insertStripePurchase,
  lockPurchaseByPaymentIntent,
  recordPurchaseReversed,
} from "../credits/purchases.ts";
import {
  applyReversal,
  insertReversal,
  listUnappliedReversals,
  type ReversalKind,
} from "../credits/reversals.ts";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";
import { isApiError } from "../errors.ts";

/** What crediting reads of a Checkout Session: an event's object or a session retrieved by id. */
export interface CheckoutSessionFacts {
  id: string;
  /** `paid`, `unpaid` (an asynchronous method still settling) or `no_payment_required`. */
  paymentStatus: string;
  amountTotal: number | null;
  currency: string | null;
  clientReferenceId: string | null;
  metadata: Record<string, string>;
  paymentIntentId: string | null;
}

/** What the service sells: its packs, all priced in one currency. */
export interface CreditSale {
  packs: CreditPack[];
  currency: string;
}

export type MismatchReason = "workspace" | "pack" | "amount" | "currency";

export type CreditOutcome =
  | { kind: "credited"; workspaceId: string; credits: number; balance: number }
  /** Recorded before (a redelivery, the return page, a concurrent delivery): nothing more. */
  | { kind: "already_credited"; workspaceId: string }
  /** Refunded or disputed before its completion arrived: recorded, nothing credited. */
  | { kind: "reversed_before_credit"; workspaceId: string; credits: number }
  | { kind: "not_paid" }
  | { kind: "mismatch"; reason: MismatchReason; detail: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The pack a paid session bought, or why it bought none: the workspace in `client_reference_id`
 * (and the same in the metadata), the pack whose credits are `metadata.pack_credits` and whose
 * price is the session's `amount_total`, in the service's currency. Anything else credits nothing.
 */
export function packOfSession(
  session: CheckoutSessionFacts,
  sale: CreditSale,
): { workspaceId: string; pack: CreditPack } | { reason: MismatchReason; detail: string } {
  const workspaceId = session.clientReferenceId ?? "";
  if (!UUID.test(workspaceId) || session.metadata.workspace_id !== workspaceId) {
    return {
      reason: "workspace",
      detail: `client_reference_id ${JSON.stringify(session.clientReferenceId)}, metadata.workspace_id ${JSON.stringify(session.metadata.workspace_id ?? null)}`,
    };
  }
  if (session.currency !== sale.currency) {
    return {
      reason: "currency",
      detail: `paid in ${session.currency ?? "no currency"}, sold in ${sale.currency}`,
    };
  }
  const pack = sale.packs.find((candidate) => String(candidate.credits) === session.metadata.pack_credits);
  if (!pack) {
    return {
      reason: "pack",
      detail: `metadata.pack_credits ${JSON.stringify(session.metadata.pack_credits ?? null)} is no pack on sale`,
    };
  }
  if (session.amountTotal !== pack.price) {
    return {
      reason: "amount",
      detail: `paid ${session.amountTotal ?? "nothing"} for the ${pack.credits}-credit pack priced ${pack.price}`,
    };
  }
  return { workspaceId, pack };
}

/** Serializes every ledger step of one payment intent (released when the transaction ends). */
async function lockPaymentIntent(trx: Transaction<Database>, paymentIntentId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`stripe-payment:${paymentIntentId}`}, 0))`.execute(
    trx,
  );
}

/**
 * Credits a paid Checkout Session's pack once: the purchase row (unique session id) is inserted
 * `on conflict do nothing` and the balance raised in the same transaction.
 */
export async function creditCheckoutSession(
  db: Db,
  session: CheckoutSessionFacts,
  sale: CreditSale,
): Promise<CreditOutcome> {
  if (session.paymentStatus !== "paid") return { kind: "not_paid" };
  const matched = packOfSession(session, sale);
  if ("reason" in matched) return { kind: "mismatch", ...matched };
  const { workspaceId, pack } = matched;
  return db.transaction().execute(async (trx): Promise<CreditOutcome> => {
    if (session.paymentIntentId) await lockPaymentIntent(trx, session.paymentIntentId);
    try {
      await lockWorkspaceBalance(trx, workspaceId);
    } catch (error) {
      if (isApiError(error) && error.code === "not_found") {
        return { kind: "mismatch", reason: "workspace", detail: `no workspace ${workspaceId}` };
      }
      throw error;
    }
    const purchase = await insertStripePurchase(trx, {
      workspaceId,
      credits: pack.credits,
      checkoutSessionId: session.id,
      paymentIntentId: session.paymentIntentId,
      amount: pack.price,
      currency: sale.currency,
    });
    if (!purchase) return { kind: "already_credited", workspaceId };
    const earlier = session.paymentIntentId ? await listUnappliedReversals(trx, session.paymentIntentId) : [];
    if (earlier.length > 0) {
      // The money went back before the credits came: the purchase and its reversal are both
      // recorded (the history shows them), and the balance does not move.
      await recordPurchaseReversed(trx, purchase.id, { reversedCredits: pack.credits, shortfallCredits: 0 });
      for (const [index, reversal] of earlier.entries()) {
        await applyReversal(trx, reversal.id, {
          purchaseId: purchase.id,
          workspaceId,
          credits: index === 0 ? pack.credits : 0,
          shortfall: 0,
        });
      }
      return { kind: "reversed_before_credit", workspaceId, credits: pack.credits };
    }
    const { balance } = await creditBalance(trx, workspaceId, pack.credits);
    return { kind: "credited", workspaceId, credits: pack.credits, balance };
  });
}

export interface StripeReversal {
  paymentIntentId: string;
  kind: ReversalKind;
  /** The dispute's id; for a refund, the charge's running total refunded. */
  reference: string;
  /** Refunded so far (a refund), or disputed, in the smallest unit. */
  amount: number;
}

export type ReversalOutcome =
  | { kind: "applied"; workspaceId: string; credits: number; shortfall: number }
  /** Seen before (a redelivery): nothing more. */
  | { kind: "duplicate" }
  /** No purchase of this payment yet: kept, and its completion will credit nothing. */
  | { kind: "recorded_before_purchase" };

/**
 * Takes back what a refund or a dispute owes: a dispute the whole pack, a refund its share of the
 * pack (rounded up) by the running total refunded; never more than the pack over all reversals,
 * never below a balance of 0 (the rest is the shortfall, recorded on the reversal and the purchase).
 */
export async function reverseStripePayment(db: Db, reversal: StripeReversal): Promise<ReversalOutcome> {
  return db.transaction().execute(async (trx): Promise<ReversalOutcome> => {
    await lockPaymentIntent(trx, reversal.paymentIntentId);
    const recorded = await insertReversal(trx, reversal);
    if (!recorded) return { kind: "duplicate" };
    const purchase = await lockPurchaseByPaymentIntent(trx, reversal.paymentIntentId);
    if (!purchase) return { kind: "recorded_before_purchase" };
    const owed =
      reversal.kind === "dispute" || purchase.amount <= 0
        ? purchase.credits
        : Math.min(purchase.credits, Math.ceil((purchase.credits * reversal.amount) / purchase.amount));
    const reversedCredits = Math.max(purchase.reversed_credits, owed);
    const due = reversedCredits - purchase.reversed_credits;
    const { taken, shortfall } = await takeBackCredits(trx, purchase.workspace_id, due);
    await recordPurchaseReversed(trx, purchase.id, {
      reversedCredits,
      shortfallCredits: purchase.shortfall_credits + shortfall,
    });
    await applyReversal(trx, recorded.id, {
      purchaseId: purchase.id,
      workspaceId: purchase.workspace_id,
      credits: taken,
      shortfall,
    });
    return { kind: "applied", workspaceId: purchase.workspace_id, credits: taken, shortfall };
  });
}
