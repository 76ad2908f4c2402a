/**
 * Buying credits (DESIGN "Buying credits (Stripe Checkout)"): a member starts a Checkout Session
 * for a pack, Stripe takes the payment, and the pack is credited once, by whichever comes first of
 * the return page (the session retrieved and found paid) and the webhook. Refunds and disputes
 * take the credits back. Every outcome is logged and counted.
 */
import type Stripe from "stripe";
import type { Db } from "../db/database.ts";
import { ApiError } from "../errors.ts";
import type { Language } from "../languages.ts";
import type { OperationLogger } from "../logger.ts";
import type { PaymentMetrics } from "../metrics.ts";
import {
  type CheckoutSessionFacts,
  type CreditOutcome,
  type CreditSale,
  creditCheckoutSession,
  type ReversalOutcome,
  reverseStripePayment,
  type StripeReversal,
} from "./settlement.ts";
import { type StripeGateway, sessionFacts } from "./stripe-gateway.ts";

const SESSION_ID = /^cs_\w{1,250}$/;

export type ReturnOutcome =
  /** Credited now or before (by the webhook, or an earlier visit of the page). */
  | "credited"
  /** Not paid yet (an asynchronous method): the webhook credits it when Stripe settles. */
  | "pending"
  /** Paid but not credited: refunded first, or not a sale of this workspace (logged, counted). */
  | "refused"
  /** No such session for this workspace. */
  | "unknown";

export interface Payments {
  readonly sale: CreditSale;
  /** Origins of Stripe's payment pages: the Buy form's redirect goes there (its CSP must allow it). */
  readonly checkoutOrigins: string[];
  /** The URL of Stripe's payment page for one pack; 400 `invalid_request` for a pack not on sale. */
  startCheckout(request: {
    workspaceId: string;
    packCredits: number;
    customerEmail: string;
    productName: string;
    language: Language;
    successUrl: string;
    cancelUrl: string;
  }): Promise<string>;
  /** The return page: credits the session at once when Stripe says it is paid. */
  creditReturnedSession(
    workspaceId: string,
    sessionId: string,
    logger: OperationLogger,
  ): Promise<ReturnOutcome>;
  /** A webhook delivery's event, its signature checked on the raw body (400 otherwise). */
  verifyEvent(rawBody: Buffer, signature: string | undefined): Stripe.Event;
  /** Acts on one verified event; every type not handled is ignored. */
  handleEvent(event: Stripe.Event, logger: OperationLogger): Promise<void>;
}

interface PaymentDeps {
  db: Db;
  gateway: StripeGateway;
  sale: CreditSale;
  metrics?: PaymentMetrics;
}

export function createPayments(deps: PaymentDeps): Payments {
  const { gateway, sale } = deps;
  return {
    sale,
    checkoutOrigins: gateway.checkoutOrigins,

    async startCheckout(request) {
      const pack = sale.packs.find((candidate) => candidate.credits === request.packCredits);
      if (!pack)
        throw new ApiError("invalid_request", `pack: no pack of ${request.packCredits} credits is on sale.`);
      const session = await gateway.createCheckoutSession({
        workspaceId: request.workspaceId,
        pack,
        currency: sale.currency,
        productName: request.productName,
        customerEmail: request.customerEmail,
        successUrl: request.successUrl,
        cancelUrl: request.cancelUrl,
        locale: request.language,
      });
      return session.url;
    },

    async creditReturnedSession(workspaceId, sessionId, logger) {
      if (!SESSION_ID.test(sessionId)) return "unknown";
      const session = await gateway.retrieveCheckoutSession(sessionId);
      // Another workspace's session says nothing here (and is credited only by its own page or the webhook).
      if (!session || session.clientReferenceId !== workspaceId) return "unknown";
      const outcome = await creditAndReport(deps, session, logger, "return page");
      switch (outcome.kind) {
        case "credited":
        case "already_credited":
          return "credited";
        case "not_paid":
          return "pending";
        default:
          return "refused";
      }
    },

    verifyEvent: (rawBody, signature) => gateway.verifyEvent(rawBody, signature),

    handleEvent: (event, logger) => handleStripeEvent(deps, event, logger),
  };
}

/** Credits one paid session (at most once), then logs and counts what happened. */
async function creditAndReport(
  { db, sale, metrics }: PaymentDeps,
  session: CheckoutSessionFacts,
  logger: OperationLogger,
  via: string,
): Promise<CreditOutcome> {
  const outcome = await creditCheckoutSession(db, session, sale);
  const context = { checkout_session: session.id, payment_intent: session.paymentIntentId, via };
  switch (outcome.kind) {
    case "credited":
      metrics?.purchaseCredited("stripe", outcome.credits);
      logger.info(
        { ...context, workspace_id: outcome.workspaceId, credits: outcome.credits },
        "credits bought",
      );
      break;
    case "reversed_before_credit":
      logger.warn(
        { ...context, workspace_id: outcome.workspaceId, credits: outcome.credits },
        "payment refunded or disputed before it was credited: nothing credited",
      );
      break;
    case "mismatch":
      metrics?.paymentMismatch(outcome.reason);
      logger.warn(
        { ...context, reason: outcome.reason, detail: outcome.detail },
        "paid checkout session does not match a pack on sale: nothing credited",
      );
      break;
    default:
      break;
  }
  return outcome;
}

/** Takes a refunded or disputed payment's credits back, then logs and counts what happened. */
async function reverseAndReport(
  { db, metrics }: PaymentDeps,
  reversal: StripeReversal,
  logger: OperationLogger,
): Promise<ReversalOutcome> {
  const outcome = await reverseStripePayment(db, reversal);
  const context = {
    payment_intent: reversal.paymentIntentId,
    kind: reversal.kind,
    reference: reversal.reference,
  };
  if (outcome.kind === "applied") {
    metrics?.reversalApplied(reversal.kind, outcome.credits, outcome.shortfall);
    const message = outcome.shortfall > 0 ? "credits taken back, with a shortfall" : "credits taken back";
    (outcome.shortfall > 0 ? logger.warn : logger.info).call(
      logger,
      {
        ...context,
        workspace_id: outcome.workspaceId,
        credits: outcome.credits,
        shortfall: outcome.shortfall,
      },
      message,
    );
  } else if (outcome.kind === "recorded_before_purchase") {
    metrics?.reversalApplied(reversal.kind, 0, 0);
    logger.warn(
      context,
      "reversal of a payment not credited (yet): recorded, its completion will credit nothing",
    );
  }
  return outcome;
}

/** One verified webhook event: completions credit, refunds and disputes take back, the rest is ignored. */
async function handleStripeEvent(
  deps: PaymentDeps,
  event: Stripe.Event,
  logger: OperationLogger,
): Promise<void> {
  const via = `webhook ${event.id}`;
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      await creditAndReport(deps, sessionFacts(event.data.object), logger, via);
      return;
    case "charge.refunded": {
      const charge = event.data.object;
      const paymentIntentId = idOf(charge.payment_intent);
      if (!paymentIntentId) break;
      await reverseAndReport(
        deps,
        {
          paymentIntentId,
          kind: "refund",
          reference: String(charge.amount_refunded),
          amount: charge.amount_refunded,
        },
        logger,
      );
      return;
    }
    case "charge.dispute.created": {
      const dispute = event.data.object;
      const paymentIntentId = idOf(dispute.payment_intent);
      if (!paymentIntentId) break;
      await reverseAndReport(
        deps,
        { paymentIntentId, kind: "dispute", reference: dispute.id, amount: dispute.amount },
        logger,
      );
      return;
    }
    default:
      return;
  }
  logger.warn({ event: event.id, type: event.type }, "Stripe event without a payment intent: ignored");
}

const idOf = (value: string | { id: string } | null): string | null =>
  typeof value === "string" ? value : (value?.id ?? null);
