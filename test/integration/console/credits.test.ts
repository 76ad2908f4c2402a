/**
 * The console's Credits page over `inject`, with a fake Stripe on loopback: packs with prices,
 * Buy (CSRF form, 303 to Stripe's page), the return page (credits a paid session at once, says
 * pending otherwise), the history whose lines add up to the balance, and, without Stripe, the
 * page naming OPERATOR_CONTACT_EMAIL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chargeNewPlaces, lockWorkspaceBalance } from "../../../shared/credits/ledger.ts";
import { adminRequest, createWorkspace, type SiblingApp, startSiblingApp } from "../../support/app.ts";
import { type ConsoleBrowser, signedUpMember } from "../../support/console.ts";
import { type FakeStripe, startFakeStripe } from "../../support/fake-stripe.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { seedLeads } from "../../support/seed.ts";

let stripe: FakeStripe;
let t: HttpTestApp;

beforeAll(async () => {
  stripe = await startFakeStripe();
  t = await startHttpTestApp({ ...stripe.env, CREDIT_PACKS: "100:1900,500:7900,2000:24900" });
  stripe.webhookUrl = `${t.baseUrl}/webhooks/stripe`;
  stripe.deliveryMode = "none";
}, 60_000);

afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

/** The history's amounts (the Credits column), in page order. */
const historyAmounts = (page: string): number[] =>
  [...page.matchAll(/<td data-label="Credits">([+-]?\d+)<\/td>/g)].map((match) => Number(match[1]));
const total = (page: string) => Number(/id="history-total">(-?\d+)</.exec(page)?.[1]);
const balance = (page: string) => Number(/id="balance">(\d+)</.exec(page)?.[1]);

async function buy(browser: ConsoleBrowser, workspaceId: string, pack: string) {
  const credits = `/app/w/${workspaceId}/credits`;
  const answer = await browser.submit(credits, `${credits}/checkout`, { pack });
  return answer;
}

describe("the Credits page with Stripe", () => {
  it("lists the packs with their prices, and Buy is a CSRF form sent to Stripe's page (303)", async () => {
    const ws = await createWorkspace(t.app);
    const browser = await signedUpMember(
      t.app,
      ws.workspaceId,
      `buyer-${ws.workspaceId.slice(0, 8)}@agency.test`,
    );
    const page = (await browser.get(`/app/w/${ws.workspaceId}/credits`)).body;
    for (const [credits, price] of [
      ["100", "US$19.00"],
      ["500", "US$79.00"],
      ["2000", "US$249.00"],
    ]) {
      expect(page).toContain(`${credits} credits</span>\n<span class="price">${price}</span>`);
      expect(page).toContain(`<input type="hidden" name="pack" value="${credits}">`);
    }
    expect(page).toContain("US$0.19 per credit");

    // Without the form's token: refused, and Stripe was never asked.
    const before = stripe.apiRequests.length;
    const forged = await browser.post(`/app/w/${ws.workspaceId}/credits/checkout`, { pack: "100" });
    expect(forged.statusCode).toBe(403);
    expect(stripe.apiRequests.length).toBe(before);

    const answer = await buy(browser, ws.workspaceId, "100");
    expect(answer.statusCode).toBe(303);
    const sessionId = answer.headers.location?.split("/").at(-1) ?? "";
    expect(answer.headers.location).toBe(`${stripe.apiUrl}/c/pay/${sessionId}`);
    const session = stripe.sessions.get(sessionId);
    expect(session).toMatchObject({
      amount_total: 1900,
      currency: "usd",
      client_reference_id: ws.workspaceId,
      customer_email: `buyer-${ws.workspaceId.slice(0, 8)}@agency.test`,
      metadata: { workspace_id: ws.workspaceId, pack_credits: "100" },
      success_url: `${t.baseUrl}/app/w/${ws.workspaceId}/credits/return?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${t.baseUrl}/app/w/${ws.workspaceId}/credits?done=checkout_cancelled`,
      product_name: "100 credits",
    });

    // A pack that is not on sale is a form error, not a session.
    const wrong = await buy(browser, ws.workspaceId, "300");
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain("credit pack: not one of the choices offered");
  });

  it("the return page credits a paid session at once, and the history adds up to the balance", async () => {
    const ws = await createWorkspace(t.app);
    const browser = await signedUpMember(
      t.app,
      ws.workspaceId,
      `return-${ws.workspaceId.slice(0, 8)}@agency.test`,
    );
    await adminRequest(t.app, "POST", `/admin/workspaces/${ws.workspaceId}/credit-purchases`, { credits: 7 });
    const sessionId = (await buy(browser, ws.workspaceId, "500")).headers.location?.split("/").at(-1) ?? "";
    const paid = stripe.pay(sessionId);
    const returned = await browser.get(`/app/w/${ws.workspaceId}/credits/return?session_id=${sessionId}`);
    expect(returned.statusCode).toBe(200);
    expect(returned.body).toContain("Payment received: the credits are in your balance.");
    expect(balance(returned.body)).toBe(517);
    expect(returned.body).toContain("Purchase: 500 credits, US$79.00");
    expect(returned.body).toContain("Purchase from the operator");
    expect(returned.body).toContain("Free credits to start");
    expect(historyAmounts(returned.body)).toEqual([500, 7, 10]);
    expect(total(returned.body)).toBe(517);

    // The webhook then, and a refund of half: the page shows the reversal, still adding up.
    expect((await stripe.deliver(stripe.sessionCompleted(paid))).status).toBe(200);
    expect((await stripe.deliver(stripe.chargeRefunded(paid, 3950))).status).toBe(200);
    const after = (await browser.get(`/app/w/${ws.workspaceId}/credits`)).body;
    expect(after).toContain("Refund of the 500-credit purchase (US$39.50 refunded)");
    expect(historyAmounts(after)).toEqual([-250, 500, 7, 10]);
    expect(balance(after)).toBe(267);
    expect(total(after)).toBe(267);
  });

  it("says pending for a payment still settling, unknown for another workspace's session", async () => {
    const ws = await createWorkspace(t.app);
    const browser = await signedUpMember(
      t.app,
      ws.workspaceId,
      `pending-${ws.workspaceId.slice(0, 8)}@agency.test`,
    );
    const sessionId = (await buy(browser, ws.workspaceId, "100")).headers.location?.split("/").at(-1) ?? "";
    stripe.pay(sessionId, { asyncMethod: true });
    const pending = await browser.get(`/app/w/${ws.workspaceId}/credits/return?session_id=${sessionId}`);
    expect(pending.body).toContain("Your bank is still confirming the payment.");
    expect(balance(pending.body)).toBe(10);

    const other = await createWorkspace(t.app);
    const stranger = await signedUpMember(
      t.app,
      other.workspaceId,
      `other-${other.workspaceId.slice(0, 8)}@agency.test`,
    );
    stripe.settle(sessionId);
    const foreign = await stranger.get(`/app/w/${other.workspaceId}/credits/return?session_id=${sessionId}`);
    expect(foreign.body).toContain("No payment of this workspace matches this link.");
    expect(balance(foreign.body)).toBe(10);
    // A member of neither workspace cannot open the first one's return page at all.
    expect(
      (await stranger.get(`/app/w/${ws.workspaceId}/credits/return?session_id=${sessionId}`)).statusCode,
    ).toBe(404);

    const cancelled = await browser.get(`/app/w/${ws.workspaceId}/credits?done=checkout_cancelled`);
    expect(cancelled.body).toContain("Payment cancelled: nothing was charged.");
  });

  it("when Stripe cannot be reached, Buy says so and nothing is charged", async () => {
    const down = await startSiblingApp(t.database.db, {
      ...stripe.env,
      STRIPE_API_URL: "http://127.0.0.1:9",
      PUBLIC_URL: t.baseUrl,
    });
    try {
      const ws = await createWorkspace(down.app);
      const browser = await signedUpMember(
        down.app,
        ws.workspaceId,
        `down-${ws.workspaceId.slice(0, 8)}@agency.test`,
      );
      const answer = await buy(browser, ws.workspaceId, "100");
      expect(answer.statusCode).toBe(502);
      expect(answer.body).toContain("The payment page could not be opened, and nothing was charged.");
    } finally {
      await down.close();
    }
  });
});

describe("the credit history", () => {
  it("sums the lines beyond the newest 200 into one, so that the page still adds up to the balance", async () => {
    const ws = await createWorkspace(t.app);
    const browser = await signedUpMember(
      t.app,
      ws.workspaceId,
      `long-${ws.workspaceId.slice(0, 8)}@agency.test`,
    );
    await adminRequest(t.app, "POST", `/admin/workspaces/${ws.workspaceId}/credit-purchases`, {
      credits: 300,
    });
    // 250 places charged through the real ledger, as a search charges them.
    const places = Array.from({ length: 250 }, (_, index) => ({
      place_id: `long-${ws.workspaceId}-${index}`,
    }));
    await seedLeads(t.database.db, ws.workspaceId, places);
    await t.database.db.transaction().execute(async (trx) => {
      await lockWorkspaceBalance(trx, ws.workspaceId);
      await chargeNewPlaces(
        trx,
        ws.workspaceId,
        places.map((place) => place.place_id),
      );
    });
    const page = (await browser.get(`/app/w/${ws.workspaceId}/credits`)).body;
    const amounts = historyAmounts(page);
    // 252 movements: 200 charges shown, the 52 older ones (50 charges, the purchase, the free credits) in one line.
    expect(amounts).toHaveLength(201);
    expect(page).toContain("52 earlier movements");
    expect(amounts.at(-1)).toBe(-50 + 300 + 10);
    expect(amounts.reduce((sum, amount) => sum + amount, 0)).toBe(60);
    expect(total(page)).toBe(60);
    expect(balance(page)).toBe(60);
  });
});

describe("the Credits page without Stripe", () => {
  let plain: SiblingApp;
  beforeAll(async () => {
    plain = await startSiblingApp(t.database.db, { OPERATOR_CONTACT_EMAIL: "sales@operator.test" });
  });
  afterAll(() => plain?.close());

  it("names OPERATOR_CONTACT_EMAIL and the workspace id, offers no Buy, and has no checkout route", async () => {
    const ws = await createWorkspace(plain.app);
    const browser = await signedUpMember(
      plain.app,
      ws.workspaceId,
      `plain-${ws.workspaceId.slice(0, 8)}@agency.test`,
    );
    const page = (await browser.get(`/app/w/${ws.workspaceId}/credits`)).body;
    expect(page).toContain(
      `Credits are sold by the service operator: write to <a href="mailto:sales@operator.test">sales@operator.test</a> with this workspace&#39;s id`,
    );
    expect(page).toContain(`<code>${ws.workspaceId}</code>`);
    expect(page).not.toContain('name="pack"');
    const checkout = await browser.submit(
      `/app/w/${ws.workspaceId}/credits`,
      `/app/w/${ws.workspaceId}/credits/checkout`,
      {
        pack: "100",
      },
    );
    expect(checkout.statusCode).toBe(404);
  });
});
