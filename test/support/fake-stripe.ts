/**
 * A fake Stripe on 127.0.0.1 that the `stripe` package talks to through STRIPE_API_URL: the two
 * endpoints the service calls (`POST /v1/checkout/sessions`, `GET /v1/checkout/sessions/{id}`), a
 * checkout page whose button "pays", and webhook events signed as Stripe signs them
 * (`Stripe.webhooks.generateTestHeaderString`: HMAC-SHA256 of `timestamp.payload` under `v1=`).
 * Nothing here reaches Stripe itself.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

export interface FakeSession {
  id: string;
  object: "checkout.session";
  mode: string;
  status: "open" | "complete";
  payment_status: "unpaid" | "paid";
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  customer_email: string | null;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string;
  url: string;
  payment_intent: string | null;
  locale: string | null;
  product_name: string;
  created: number;
  livemode: false;
}

export interface FakeEvent {
  id: string;
  type: string;
  /** The JSON body as Stripe would post it (what the signature covers). */
  payload: string;
}

interface Delivery {
  status: number;
  body: string;
  /** Wall time of the POST, ms: what one webhook delivery costs (observed, never asserted). */
  ms: number;
}

/**
 * What the checkout page's button does with the `checkout.session.completed` event:
 * `background` posts it while the browser is sent back (as Stripe does: they race),
 * `none` only keeps it (the test delivers it).
 */
type DeliveryMode = "background" | "none";

export interface FakeStripe {
  readonly apiUrl: string;
  readonly secretKey: string;
  readonly webhookSecret: string;
  /** The service's settings that point the `stripe` package here. */
  readonly env: Record<string, string>;
  readonly sessions: Map<string, FakeSession>;
  /** Every API request received (`POST /v1/checkout/sessions`, ...), in order. */
  readonly apiRequests: { method: string; path: string; body: Record<string, string> }[];
  /** Events sent by the checkout page, with their answers. */
  readonly deliveries: (FakeEvent & Delivery)[];
  /** Where events go; set once the service listens. */
  webhookUrl: string | undefined;
  deliveryMode: DeliveryMode;
  /** Pays a session as the checkout page does (a new payment intent); `asyncMethod` leaves it unpaid, settling later. */
  pay(sessionId: string, options?: { asyncMethod?: boolean }): FakeSession;
  /** Settles an asynchronous payment: paid now. */
  settle(sessionId: string): FakeSession;
  /** An event of any type around `object`, as Stripe builds it. */
  event(type: string, object: object): FakeEvent;
  sessionCompleted(session: FakeSession): FakeEvent;
  asyncPaymentSucceeded(session: FakeSession): FakeEvent;
  /** `charge.refunded` with the charge's running total refunded. */
  chargeRefunded(session: FakeSession, amountRefunded: number): FakeEvent;
  disputeCreated(session: FakeSession): FakeEvent;
  /** A `Stripe-Signature` header for a payload (now, with the webhook secret, unless told otherwise). */
  sign(payload: string, options?: { timestamp?: number; secret?: string }): string;
  /** Posts an event to `webhookUrl`, signed unless `signature` says otherwise (null: no header). */
  deliver(event: FakeEvent, options?: { signature?: string | null }): Promise<Delivery>;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = `sk_test_${randomBytes(16).toString("hex")}`;
  const webhookSecret = `whsec_${randomBytes(16).toString("hex")}`;
  const sessions = new Map<string, FakeSession>();
  const apiRequests: FakeStripe["apiRequests"] = [];
  const deliveries: FakeStripe["deliveries"] = [];
  const background = new Set<Promise<unknown>>();
  let baseUrl = "";

  const json = (response: ServerResponse, status: number, value: unknown) => {
    response.writeHead(status, { "content-type": "application/json", "request-id": id("req") });
    response.end(JSON.stringify(value));
  };
  const stripeError = (response: ServerResponse, status: number, message: string, code?: string) =>
    json(response, status, { error: { type: "invalid_request_error", message, ...(code ? { code } : {}) } });

  const fake: FakeStripe = {
    apiUrl: "",
    secretKey,
    webhookSecret,
    env: {},
    sessions,
    apiRequests,
    deliveries,
    webhookUrl: undefined,
    deliveryMode: "background",

    pay(sessionId, options = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      session.status = "complete";
      session.payment_intent ??= id("pi");
      session.payment_status = options.asyncMethod ? "unpaid" : "paid";
      return { ...session };
    },
    settle(sessionId) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      session.payment_status = "paid";
      return { ...session };
    },
    event(type, object) {
      const eventId = id("evt");
      const payload = JSON.stringify(
        {
          id: eventId,
          object: "event",
          api_version: Stripe.API_VERSION,
          created: Math.floor(Date.now() / 1000),
          data: { object },
          livemode: false,
          pending_webhooks: 1,
          request: { id: null, idempotency_key: null },
          type,
        },
        null,
        2,
      );
      return { id: eventId, type, payload };
    },
    sessionCompleted: (session) => fake.event("checkout.session.completed", session),
    asyncPaymentSucceeded: (session) => fake.event("checkout.session.async_payment_succeeded", session),
    chargeRefunded(session, amountRefunded) {
      return fake.event("charge.refunded", {
        id: `ch_for_${session.payment_intent}`,
        object: "charge",
        amount: session.amount_total,
        amount_captured: session.amount_total,
        amount_refunded: amountRefunded,
        currency: session.currency,
        paid: true,
        payment_intent: session.payment_intent,
        refunded: amountRefunded >= session.amount_total,
        status: "succeeded",
      });
    },
    disputeCreated(session) {
      return fake.event("charge.dispute.created", {
        id: id("dp"),
        object: "dispute",
        amount: session.amount_total,
        charge: `ch_for_${session.payment_intent}`,
        currency: session.currency,
        payment_intent: session.payment_intent,
        reason: "fraudulent",
        status: "needs_response",
      });
    },
    sign(payload, options = {}) {
      return Stripe.webhooks.generateTestHeaderString({
        payload,
        secret: options.secret ?? webhookSecret,
        ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
      });
    },
    async deliver(event, options = {}) {
      if (!fake.webhookUrl) throw new Error("the fake Stripe has no webhookUrl");
      const signature = options.signature === undefined ? fake.sign(event.payload) : options.signature;
      const started = performance.now();
      const response = await fetch(fake.webhookUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
          ...(signature === null ? {} : { "stripe-signature": signature }),
        },
        body: event.payload,
      });
      const body = await response.text();
      return { status: response.status, body, ms: performance.now() - started };
    },
    async close() {
      await Promise.allSettled([...background]);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  async function api(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const body = Object.fromEntries(new URLSearchParams(await readBody(request)));
    apiRequests.push({ method: request.method ?? "", path, body });
    if (request.headers.authorization !== `Bearer ${secretKey}`) {
      json(response, 401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
      return;
    }
    if (request.method === "POST" && path === "/v1/checkout/sessions") {
      const required = [
        "mode",
        "line_items[0][price_data][currency]",
        "line_items[0][price_data][unit_amount]",
        "line_items[0][price_data][product_data][name]",
        "line_items[0][quantity]",
        "success_url",
        "cancel_url",
      ];
      const missing = required.find((name) => !body[name]);
      if (missing)
        return stripeError(response, 400, `Missing required param: ${missing}.`, "parameter_missing");
      if (body.mode !== "payment") return stripeError(response, 400, "Only payment mode here.");
      const sessionId = id("cs");
      const session: FakeSession = {
        id: sessionId,
        object: "checkout.session",
        mode: body.mode,
        status: "open",
        payment_status: "unpaid",
        amount_total:
          Number(body["line_items[0][price_data][unit_amount]"]) * Number(body["line_items[0][quantity]"]),
        currency: body["line_items[0][price_data][currency]"] ?? "",
        client_reference_id: body.client_reference_id ?? null,
        customer_email: body.customer_email ?? null,
        metadata: Object.fromEntries(
          Object.entries(body)
            .filter(([key]) => /^metadata\[\w+\]$/.test(key))
            .map(([key, value]) => [key.slice("metadata[".length, -1), value]),
        ),
        success_url: body.success_url ?? "",
        cancel_url: body.cancel_url ?? "",
        url: `${baseUrl}/c/pay/${sessionId}`,
        payment_intent: null,
        locale: body.locale ?? null,
        product_name: body["line_items[0][price_data][product_data][name]"] ?? "",
        created: Math.floor(Date.now() / 1000),
        livemode: false,
      };
      sessions.set(sessionId, session);
      return json(response, 200, session);
    }
    const retrieve = /^\/v1\/checkout\/sessions\/([\w-]+)$/.exec(path);
    if (request.method === "GET" && retrieve) {
      const session = sessions.get(retrieve[1] ?? "");
      if (!session)
        return stripeError(response, 404, `No such checkout.session: '${retrieve[1]}'`, "resource_missing");
      return json(response, 200, session);
    }
    stripeError(response, 404, `Unrecognized request URL (${request.method}: ${path}).`);
  }

  /** Stripe's hosted page, reduced to a summary and one button. */
  async function checkoutPage(
    request: IncomingMessage,
    response: ServerResponse,
    sessionId: string,
  ): Promise<void> {
    const session = sessions.get(sessionId);
    if (!session) {
      response.writeHead(404, { "content-type": "text/plain" }).end("no such session");
      return;
    }
    if (request.method === "POST") {
      await readBody(request);
      const paid = fake.pay(sessionId);
      const event = fake.sessionCompleted(paid);
      if (fake.deliveryMode === "background" && fake.webhookUrl) {
        const sent = fake.deliver(event).then((delivery) => deliveries.push({ ...event, ...delivery }));
        background.add(sent);
        void sent.finally(() => background.delete(sent));
      }
      response.writeHead(303, { location: session.success_url.replace("{CHECKOUT_SESSION_ID}", sessionId) });
      response.end();
      return;
    }
    const price = (session.amount_total / 100).toFixed(2);
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fake Stripe Checkout</title></head>
<body><main><h1>Pay ${escapeHtml(session.product_name)}</h1>
<p>${price} ${escapeHtml(session.currency.toUpperCase())} · ${escapeHtml(session.customer_email ?? "")}</p>
<form method="post"><button type="submit">Pay ${price}</button></form>
<p><a href="${escapeHtml(session.cancel_url)}">Back</a></p></main></body></html>`);
  }

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    const page = /^\/c\/pay\/([\w-]+)$/.exec(path);
    const work = page ? checkoutPage(request, response, page[1] ?? "") : api(request, response, path);
    work.catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(fake, {
    apiUrl: baseUrl,
    env: { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_URL: baseUrl },
  });
  return fake;
}
