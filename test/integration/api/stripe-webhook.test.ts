/**
 * Buying credits through Stripe, every delivery case, against a fake Stripe on loopback (the
 * `stripe` package pointed at it through STRIPE_API_URL; events signed as Stripe signs them) and
 * the real database (PostgreSQL, and PGlite in the integration-pglite project). After each case
 * the balance and the purchase and reversal rows are read in SQL.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chargeNewPlaces, lockWorkspaceBalance } from "../../../shared/credits/ledger.ts";
import { createWorkspace, startSiblingApp, type TestWorkspace } from "../../support/app.ts";
import {
  type FakeEvent,
  type FakeSession,
  type FakeStripe,
  startFakeStripe,
} from "../../support/fake-stripe.ts";
import { moneyInvariantViolations } from "../../support/money-invariants.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { seedLeads } from "../../support/seed.ts";

let stripe: FakeStripe;
let t: HttpTestApp;
/** Wall time of every accepted delivery (observed for the notes, never asserted). */
const deliveryMs: number[] = [];

beforeAll(async () => {
  stripe = await startFakeStripe();
  t = await startHttpTestApp({ ...stripe.env, CREDIT_PACKS: "100:1900,500:7900", CREDIT_CURRENCY: "usd" });
  stripe.webhookUrl = `${t.baseUrl}/webhooks/stripe`;
  stripe.deliveryMode = "none";
}, 60_000);

afterAll(async () => {
  if (deliveryMs.length > 0) {
    const sorted = [...deliveryMs].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]?.toFixed(1);
    console.info(
      `webhook deliveries on ${t.database.kind}: ${sorted.length}, median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`,
    );
  }
  await t?.close();
  await stripe?.close();
});

const silentLog = { info() {}, warn() {}, error() {} };

/** A workspace and a Checkout Session of one pack, created through the service's real path. */
async function checkout(credits = 100): Promise<{ ws: TestWorkspace; session: FakeSession }> {
  const ws = await createWorkspace(t.app);
  const payments = t.services.payments;
  if (!payments) throw new Error("payments are not configured");
  const url = await payments.startCheckout({
    workspaceId: ws.workspaceId,
    packCredits: credits,
    customerEmail: "owner@agency.test",
    productName: `${credits} credits`,
    language: "en",
    successUrl: `${t.baseUrl}/app/w/${ws.workspaceId}/credits/return?session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${t.baseUrl}/app/w/${ws.workspaceId}/credits`,
  });
  const sessionId = url.split("/").at(-1) ?? "";
  const session = stripe.sessions.get(sessionId);
  if (!session) throw new Error(`the fake has no session ${sessionId}`);
  return { ws, session };
}

async function deliver(event: FakeEvent, options?: { signature?: string | null }) {
  const delivery = await stripe.deliver(event, options);
  if (delivery.status === 200) deliveryMs.push(delivery.ms);
  return delivery;
}

async function balanceOf(workspaceId: string): Promise<{ balance: number; free_trial: boolean }> {
  return t.database.db
    .selectFrom("workspaces")
    .select(["balance", "free_trial"])
    .where("id", "=", workspaceId)
    .executeTakeFirstOrThrow();
}

async function purchasesOf(workspaceId: string) {
  return t.database.db
    .selectFrom("credit_purchases")
    .select([
      "source",
      "credits",
      "checkout_session_id",
      "payment_intent_id",
      "amount",
      "currency",
      "reversed_credits",
      "shortfall_credits",
    ])
    .where("workspace_id", "=", workspaceId)
    .execute();
}

async function reversalsOf(paymentIntentId: string | null) {
  return t.database.db
    .selectFrom("credit_reversals")
    .select(["kind", "reference", "amount", "credits", "shortfall", "workspace_id"])
    .where("payment_intent_id", "=", paymentIntentId ?? "")
    .orderBy("created_at")
    .execute();
}

async function counter(
  name: "paymentMismatches" | "stripeWebhookResponses" | "creditPurchases",
  label: string,
) {
  const series = {
    paymentMismatches: "leadapi_payment_mismatches_total",
    stripeWebhookResponses: "leadapi_stripe_webhook_responses_total",
    creditPurchases: "leadapi_credit_purchases_total",
  }[name];
  const metric = await t.services.metrics.registry.getSingleMetric(series)?.get();
  return (metric?.values ?? [])
    .filter((value) => Object.values(value.labels).includes(label))
    .reduce((sum, value) => sum + value.value, 0);
}

/** The ledger adds up for every workspace of the test's database. */
async function ledgerAddsUp(): Promise<void> {
  const violations = await moneyInvariantViolations(async (text) => {
    const { sql } = await import("kysely");
    return (await sql.raw(text).execute(t.database.db)).rows as never[];
  });
  expect(violations.balances).toEqual([]);
}

/** Spends credits through the real charging path (a search's charge of new places). */
async function spend(workspaceId: string, credits: number): Promise<void> {
  const places = Array.from({ length: credits }, (_, index) => ({
    place_id: `spent-${workspaceId}-${index}`,
  }));
  await seedLeads(t.database.db, workspaceId, places);
  await t.database.db.transaction().execute(async (trx) => {
    await lockWorkspaceBalance(trx, workspaceId);
    await chargeNewPlaces(
      trx,
      workspaceId,
      places.map((place) => place.place_id),
    );
  });
}

describe("POST /webhooks/stripe: a paid checkout is credited exactly once", () => {
  it("credits the pack once when the same event is delivered twice", async () => {
    const { ws, session } = await checkout(100);
    const event = stripe.sessionCompleted(stripe.pay(session.id));
    const first = await deliver(event);
    const second = await deliver(event);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(JSON.parse(first.body)).toEqual({ received: true });
    expect(await balanceOf(ws.workspaceId)).toEqual({ balance: 110, free_trial: false });
    expect(await purchasesOf(ws.workspaceId)).toEqual([
      {
        source: "stripe",
        credits: 100,
        checkout_session_id: session.id,
        payment_intent_id: stripe.sessions.get(session.id)?.payment_intent,
        amount: 1900,
        currency: "usd",
        reversed_credits: 0,
        shortfall_credits: 0,
      },
    ]);
    // The session Stripe was asked for: one line, the pack's price, the workspace, the member.
    const created = stripe.apiRequests.find(
      (request) => request.method === "POST" && request.body.client_reference_id === ws.workspaceId,
    );
    expect(created?.body).toMatchObject({
      mode: "payment",
      "line_items[0][price_data][currency]": "usd",
      "line_items[0][price_data][unit_amount]": "1900",
      "line_items[0][quantity]": "1",
      "metadata[workspace_id]": ws.workspaceId,
      "metadata[pack_credits]": "100",
      customer_email: "owner@agency.test",
    });
    expect(created?.body.success_url).toContain("{CHECKOUT_SESSION_ID}");
  });

  it("credits once when 20 deliveries of one event arrive at the same time", async () => {
    const { ws, session } = await checkout(500);
    const event = stripe.sessionCompleted(stripe.pay(session.id));
    const deliveries = await Promise.all(Array.from({ length: 20 }, () => deliver(event)));
    expect(deliveries.map((delivery) => delivery.status)).toEqual(Array(20).fill(200));
    expect((await balanceOf(ws.workspaceId)).balance).toBe(510);
    const rows = await purchasesOf(ws.workspaceId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ credits: 500, checkout_session_id: session.id });
    await ledgerAddsUp();
  });

  it("credits once when the async success arrives before the completion that said unpaid", async () => {
    const { ws, session } = await checkout(100);
    const unpaid = stripe.sessionCompleted(stripe.pay(session.id, { asyncMethod: true }));
    const succeeded = stripe.asyncPaymentSucceeded(stripe.settle(session.id));
    expect((await deliver(succeeded)).status).toBe(200);
    expect((await deliver(unpaid)).status).toBe(200);
    // And a completed event that says paid, delivered late, adds nothing either.
    expect((await deliver(stripe.sessionCompleted(stripe.settle(session.id)))).status).toBe(200);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(110);
    expect(await purchasesOf(ws.workspaceId)).toHaveLength(1);
  });

  it("credits nothing for an unpaid completion, then the pack when the asynchronous payment succeeds", async () => {
    const { ws, session } = await checkout(100);
    expect(
      (await deliver(stripe.sessionCompleted(stripe.pay(session.id, { asyncMethod: true })))).status,
    ).toBe(200);
    expect(await balanceOf(ws.workspaceId)).toEqual({ balance: 10, free_trial: true });
    expect(await purchasesOf(ws.workspaceId)).toEqual([]);
    expect((await deliver(stripe.asyncPaymentSucceeded(stripe.settle(session.id)))).status).toBe(200);
    expect(await balanceOf(ws.workspaceId)).toEqual({ balance: 110, free_trial: false });
    expect(await purchasesOf(ws.workspaceId)).toHaveLength(1);
  });

  it("credits nothing more when the webhook arrives after the return page credited the session", async () => {
    const { ws, session } = await checkout(100);
    const paid = stripe.pay(session.id);
    const payments = t.services.payments;
    expect(await payments?.creditReturnedSession(ws.workspaceId, session.id, silentLog)).toBe("credited");
    expect((await balanceOf(ws.workspaceId)).balance).toBe(110);
    // The page reloaded: still credited, nothing more.
    expect(await payments?.creditReturnedSession(ws.workspaceId, session.id, silentLog)).toBe("credited");
    expect((await deliver(stripe.sessionCompleted(paid))).status).toBe(200);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(110);
    expect(await purchasesOf(ws.workspaceId)).toHaveLength(1);
  });

  it("the return page says pending for an unpaid session, unknown for another workspace's or a made-up one", async () => {
    const { ws, session } = await checkout(100);
    const other = await createWorkspace(t.app);
    const payments = t.services.payments;
    stripe.pay(session.id, { asyncMethod: true });
    expect(await payments?.creditReturnedSession(ws.workspaceId, session.id, silentLog)).toBe("pending");
    stripe.settle(session.id);
    expect(await payments?.creditReturnedSession(other.workspaceId, session.id, silentLog)).toBe("unknown");
    expect(await payments?.creditReturnedSession(ws.workspaceId, "cs_test_nosuchsession", silentLog)).toBe(
      "unknown",
    );
    expect(await payments?.creditReturnedSession(ws.workspaceId, "../../v1/customers", silentLog)).toBe(
      "unknown",
    );
    expect((await balanceOf(other.workspaceId)).balance).toBe(10);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(10);
  });

  it("ignores an event type it does not handle (200, nothing changes)", async () => {
    const { ws, session } = await checkout(100);
    stripe.pay(session.id);
    const before = await counter("stripeWebhookResponses", "200");
    const expired = stripe.event("checkout.session.expired", stripe.sessions.get(session.id) ?? {});
    const customer = stripe.event("customer.created", { id: "cus_test_1", object: "customer" });
    expect((await deliver(expired)).status).toBe(200);
    expect((await deliver(customer)).status).toBe(200);
    expect(await counter("stripeWebhookResponses", "200")).toBe(before + 2);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(10);
    expect(await purchasesOf(ws.workspaceId)).toEqual([]);
  });
});

describe("POST /webhooks/stripe: signatures", () => {
  it("refuses a missing, wrong or stale signature with 400 and changes nothing", async () => {
    const { ws, session } = await checkout(100);
    const event = stripe.sessionCompleted(stripe.pay(session.id));
    const before = await counter("stripeWebhookResponses", "400");
    const cases = {
      missing: await deliver(event, { signature: null }),
      wrongSecret: await deliver(event, {
        signature: stripe.sign(event.payload, { secret: "whsec_not_the_secret" }),
      }),
      otherBody: await deliver(event, { signature: stripe.sign(event.payload.replace("1900", "19")) }),
      stale: await deliver(event, {
        signature: stripe.sign(event.payload, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
      }),
      garbage: await deliver(event, { signature: "t=1,v1=zz" }),
    };
    for (const [name, delivery] of Object.entries(cases)) {
      expect({ name, status: delivery.status }).toEqual({ name, status: 400 });
      expect(JSON.parse(delivery.body)).toEqual({
        error: { code: "invalid_request", message: expect.any(String) },
      });
    }
    expect(await counter("stripeWebhookResponses", "400")).toBe(before + 5);
    expect(await balanceOf(ws.workspaceId)).toEqual({ balance: 10, free_trial: true });
    expect(await purchasesOf(ws.workspaceId)).toEqual([]);
    // The same bytes correctly signed are accepted: the refusals were the signature's.
    expect((await deliver(event)).status).toBe(200);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(110);
  });

  it("checks the signature on the raw body: the same JSON re-serialized is refused", async () => {
    const { ws, session } = await checkout(100);
    const event = stripe.sessionCompleted(stripe.pay(session.id));
    const compact = { ...event, payload: JSON.stringify(JSON.parse(event.payload)) };
    expect((await deliver(compact, { signature: stripe.sign(event.payload) })).status).toBe(400);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(10);
  });
});

describe("POST /webhooks/stripe: refunds and disputes", () => {
  it("a partial refund takes back its share (rounded up), the rest of the refund the rest", async () => {
    const { ws, session } = await checkout(100);
    const paid = stripe.pay(session.id);
    await deliver(stripe.sessionCompleted(paid));
    // 500 of 1900 refunded: 100 × 500 / 1900 = 26.3, rounded up to 27.
    const partial = stripe.chargeRefunded(paid, 500);
    expect((await deliver(partial)).status).toBe(200);
    expect((await deliver(partial)).status).toBe(200);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(110 - 27);
    expect((await purchasesOf(ws.workspaceId))[0]).toMatchObject({
      reversed_credits: 27,
      shortfall_credits: 0,
    });
    expect((await deliver(stripe.chargeRefunded(paid, 1900))).status).toBe(200);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(10);
    expect((await purchasesOf(ws.workspaceId))[0]).toMatchObject({
      reversed_credits: 100,
      shortfall_credits: 0,
    });
    expect(await reversalsOf(paid.payment_intent)).toEqual([
      {
        kind: "refund",
        reference: "500",
        amount: 500,
        credits: 27,
        shortfall: 0,
        workspace_id: ws.workspaceId,
      },
      {
        kind: "refund",
        reference: "1900",
        amount: 1900,
        credits: 73,
        shortfall: 0,
        workspace_id: ws.workspaceId,
      },
    ]);
    await ledgerAddsUp();
  });

  it("a full refund delivered before an earlier partial one takes the pack back once", async () => {
    const { ws, session } = await checkout(100);
    const paid = stripe.pay(session.id);
    await deliver(stripe.sessionCompleted(paid));
    expect((await deliver(stripe.chargeRefunded(paid, 1900))).status).toBe(200);
    expect((await deliver(stripe.chargeRefunded(paid, 950))).status).toBe(200);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(10);
    expect((await purchasesOf(ws.workspaceId))[0]).toMatchObject({ reversed_credits: 100 });
    expect((await reversalsOf(paid.payment_intent)).map((row) => row.credits)).toEqual([100, 0]);
  });

  it("a dispute takes the whole pack back", async () => {
    const { ws, session } = await checkout(500);
    const paid = stripe.pay(session.id);
    await deliver(stripe.sessionCompleted(paid));
    const dispute = stripe.disputeCreated(paid);
    expect((await deliver(dispute)).status).toBe(200);
    expect((await deliver(dispute)).status).toBe(200);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(10);
    expect(await reversalsOf(paid.payment_intent)).toEqual([
      expect.objectContaining({ kind: "dispute", amount: 7900, credits: 500, shortfall: 0 }),
    ]);
    // The purchase stays a purchase: the free trial stays over.
    expect((await balanceOf(ws.workspaceId)).free_trial).toBe(false);
  });

  it("never takes the balance below 0: what was already spent is recorded as the shortfall", async () => {
    const { ws, session } = await checkout(100);
    const paid = stripe.pay(session.id);
    await deliver(stripe.sessionCompleted(paid));
    await spend(ws.workspaceId, 80);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(30);
    expect((await deliver(stripe.chargeRefunded(paid, 1900))).status).toBe(200);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(0);
    expect((await purchasesOf(ws.workspaceId))[0]).toMatchObject({
      reversed_credits: 100,
      shortfall_credits: 70,
    });
    expect(await reversalsOf(paid.payment_intent)).toEqual([
      expect.objectContaining({ kind: "refund", credits: 30, shortfall: 70 }),
    ]);
    expect(await counter("creditPurchases", "stripe")).toBeGreaterThan(0);
    await ledgerAddsUp();
  });

  it("a refund that arrives before its completion is recorded, and the completion then credits nothing", async () => {
    const { ws, session } = await checkout(100);
    const paid = stripe.pay(session.id);
    expect((await deliver(stripe.chargeRefunded(paid, 1900))).status).toBe(200);
    expect(await reversalsOf(paid.payment_intent)).toEqual([
      expect.objectContaining({ kind: "refund", credits: 0, workspace_id: null }),
    ]);
    expect((await deliver(stripe.sessionCompleted(paid))).status).toBe(200);
    expect((await deliver(stripe.sessionCompleted(paid))).status).toBe(200);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(10);
    expect(await purchasesOf(ws.workspaceId)).toEqual([
      expect.objectContaining({ credits: 100, reversed_credits: 100, shortfall_credits: 0 }),
    ]);
    // The history's two lines, +100 and -100, say what happened; the return page says it too.
    expect(await reversalsOf(paid.payment_intent)).toEqual([
      expect.objectContaining({ credits: 100, shortfall: 0, workspace_id: ws.workspaceId }),
    ]);
    expect(await t.services.payments?.creditReturnedSession(ws.workspaceId, session.id, silentLog)).toBe(
      "credited",
    );
    expect((await balanceOf(ws.workspaceId)).balance).toBe(10);
    await ledgerAddsUp();
  });

  it("a dispute and a completion delivered together credit nothing in the end", async () => {
    const { ws, session } = await checkout(100);
    const paid = stripe.pay(session.id);
    const answers = await Promise.all([
      deliver(stripe.sessionCompleted(paid)),
      deliver(stripe.disputeCreated(paid)),
      deliver(stripe.sessionCompleted(paid)),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect((await balanceOf(ws.workspaceId)).balance).toBe(10);
    expect(await purchasesOf(ws.workspaceId)).toEqual([expect.objectContaining({ reversed_credits: 100 })]);
    await ledgerAddsUp();
  });
});

describe("POST /webhooks/stripe: a paid session that matches no pack credits nothing", () => {
  async function mismatched(change: (session: FakeSession) => void, reason: string) {
    const { ws, session } = await checkout(100);
    const paid = stripe.pay(session.id);
    change(paid);
    const before = await counter("paymentMismatches", reason);
    const delivery = await deliver(stripe.sessionCompleted(paid));
    expect(delivery.status).toBe(200);
    expect(await counter("paymentMismatches", reason)).toBe(before + 1);
    expect(await balanceOf(ws.workspaceId)).toEqual({ balance: 10, free_trial: true });
    expect(await purchasesOf(ws.workspaceId)).toEqual([]);
    return ws;
  }

  it("an amount other than the pack's price", async () => {
    await mismatched((session) => {
      session.amount_total = 19;
    }, "amount");
  });

  it("a pack that is not on sale, or the price of another pack", async () => {
    await mismatched((session) => {
      session.metadata.pack_credits = "1000";
    }, "pack");
    await mismatched((session) => {
      session.metadata.pack_credits = "500";
    }, "amount");
  });

  it("another currency", async () => {
    await mismatched((session) => {
      session.currency = "eur";
    }, "currency");
  });

  it("a workspace that does not exist, or that the metadata does not confirm", async () => {
    const missing = randomUUID();
    await mismatched((session) => {
      session.client_reference_id = missing;
      session.metadata.workspace_id = missing;
    }, "workspace");
    const other = await createWorkspace(t.app);
    await mismatched((session) => {
      session.client_reference_id = other.workspaceId;
    }, "workspace");
    expect((await balanceOf(other.workspaceId)).balance).toBe(10);
    await mismatched((session) => {
      session.client_reference_id = null;
    }, "workspace");
  });
});

describe("without Stripe configured", () => {
  it("has no webhook route (404) and no payments", async () => {
    // Another node on the same database, without the Stripe settings.
    const plain = await startSiblingApp(t.database.db);
    try {
      expect(plain.services.payments).toBeUndefined();
      const response = await plain.app.inject({ method: "POST", url: "/webhooks/stripe", payload: {} });
      expect(response.statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
