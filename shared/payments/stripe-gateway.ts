/**
 * The service's only contact with Stripe, through the official package: two endpoints (create a
 * Checkout Session, retrieve one) and the webhook signature check. STRIPE_API_URL points the
 * package elsewhere (tests and the offline demo use a fake on loopback).
 */
import Stripe from "stripe";
import type { CreditPack } from "../config.ts";
import { ApiError } from "../errors.ts";
import type { Language } from "../languages.ts";
import type { CheckoutSessionFacts } from "./settlement.ts";

/** Stripe's own default: a signature older than this is refused (a replayed event). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

const STRIPE_API_ORIGIN = "https://api.stripe.com";
const STRIPE_CHECKOUT_ORIGIN = "https://checkout.stripe.com";

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  apiUrl: string;
}

interface CheckoutRequest {
  workspaceId: string;
  pack: CreditPack;
  currency: string;
  /** The line's name on Stripe's page and receipt. */
  productName: string;
  customerEmail: string;
  /** Where Stripe sends the customer after paying; must contain `{CHECKOUT_SESSION_ID}`. */
  successUrl: string;
  cancelUrl: string;
  locale: Language;
}

export interface StripeGateway {
  /**
   * Where Stripe's payment pages live: checkout.stripe.com, and STRIPE_API_URL's own origin when it
   * is not Stripe's (a fake or a mock serves its pages there). The console's forms may lead there.
   */
  readonly checkoutOrigins: string[];
  /** `POST /v1/checkout/sessions`: the session's id and the URL of Stripe's payment page. */
  createCheckoutSession(request: CheckoutRequest): Promise<{ id: string; url: string }>;
  /** `GET /v1/checkout/sessions/{id}`; undefined when Stripe knows no such session. */
  retrieveCheckoutSession(id: string): Promise<CheckoutSessionFacts | undefined>;
  /** The event of a webhook delivery, its signature checked on the raw body; 400 `invalid_request` otherwise. */
  verifyEvent(rawBody: Buffer, signature: string | undefined): Stripe.Event;
}

export function createStripeGateway(settings: StripeSettings): StripeGateway {
  const url = new URL(settings.apiUrl);
  const protocol = url.protocol === "http:" ? "http" : "https";
  const stripe = new Stripe(settings.secretKey, {
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port || (protocol === "http" ? 80 : 443),
    protocol,
    // Retries of a create reuse the package's idempotency key: never two sessions for one click.
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
  });

  return {
    checkoutOrigins: [STRIPE_CHECKOUT_ORIGIN, ...(url.origin === STRIPE_API_ORIGIN ? [] : [url.origin])],

    async createCheckoutSession(request) {
      const session = await stripe.checkout.sessions.create({
        mode: "payment",
        line_items: [
          {
            price_data: {
              currency: request.currency,
              unit_amount: request.pack.price,
              product_data: { name: request.productName },
            },
            quantity: 1,
          },
        ],
        client_reference_id: request.workspaceId,
        metadata: { workspace_id: request.workspaceId, pack_credits: String(request.pack.credits) },
        customer_email: request.customerEmail,
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        locale: request.locale,
      });
      if (!session.url) throw new Error(`Stripe answered checkout session ${session.id} without a url`);
      return { id: session.id, url: session.url };
    },

    async retrieveCheckoutSession(id) {
      try {
        return sessionFacts(await stripe.checkout.sessions.retrieve(id));
      } catch (error) {
        if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404)
          return undefined;
        throw error;
      }
    },

    verifyEvent(rawBody, signature) {
      if (!signature) throw new ApiError("invalid_request", "The Stripe-Signature header is missing.");
      try {
        return stripe.webhooks.constructEvent(
          rawBody,
          signature,
          settings.webhookSecret,
          SIGNATURE_TOLERANCE_SECONDS,
        );
      } catch (error) {
        if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
          throw new ApiError("invalid_request", "The Stripe signature is wrong or too old.", {
            cause: error,
          });
        }
        throw error;
      }
    },
  };
}

/** The fields crediting reads, from a session as Stripe sends it. */
export function sessionFacts(session: Stripe.Checkout.Session): CheckoutSessionFacts {
  const intent = session.payment_intent;
  return {
    id: session.id,
    paymentStatus: session.payment_status,
    amountTotal: session.amount_total,
    currency: session.currency,
    clientReferenceId: session.client_reference_id,
    metadata: session.metadata ?? {},
    paymentIntentId: typeof intent === "string" ? intent : (intent?.id ?? null),
  };
}
