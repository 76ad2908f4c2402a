/**
 * Buying credits in a real browser (the project's headless Chromium), over real HTTP, against a
 * fake Stripe on loopback: a member joins, opens Credits, buys a pack, "pays" on the fake's
 * checkout page (which posts the signed webhook while it sends the browser back, as Stripe does,
 * so the two race), returns, and sees the new balance and the purchase in a history that adds up.
 * The Credits page is checked with axe-core at desktop and 375 px, in English and French, and
 * photographed into docs/console/ (UPDATE_SCREENSHOTS=1 rewrites them).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { launchBrowser } from "../../support/browser.ts";
import { type FakeStripe, startFakeStripe } from "../../support/fake-stripe.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { checkConsolePage, ENGLISH_ONLY, joinByInvite } from "../../support/page-check.ts";

let stripe: FakeStripe;
let t: HttpTestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let workspace: TestWorkspace;

beforeAll(async () => {
  stripe = await startFakeStripe();
  browser = await launchBrowser();
  t = await startHttpTestApp({ ...stripe.env, OPERATOR_CONTACT_EMAIL: "sales@operator.test" });
  stripe.webhookUrl = `${t.baseUrl}/webhooks/stripe`;
  stripe.deliveryMode = "background";
  workspace = await createWorkspace(t.app, { name: "Atelier Web" });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(15_000);
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await stripe?.close();
});

const sqlBalance = async () =>
  (
    await t.database.db
      .selectFrom("workspaces")
      .select("balance")
      .where("id", "=", workspace.workspaceId)
      .executeTakeFirstOrThrow()
  ).balance;

describe("buying credits in Chromium", () => {
  it("a member buys a pack on Stripe's page, returns, and sees the balance and the purchase", async () => {
    await joinByInvite(page, t, workspace.workspaceId, {
      email: "camille@atelier.test",
      name: "Camille Martin",
    });

    await page.getByRole("link", { name: "Credits" }).click();
    expect(await page.locator("#balance").textContent()).toBe("10");
    expect(await page.locator("ul.packs li").count()).toBe(3);
    expect(await page.locator("ul.packs li").nth(1).textContent()).toContain("US$79.00");
    await checkConsolePage(page, "credits");

    // Buy: the browser leaves for Stripe's page (the fake's), where one click pays.
    await page.getByRole("button", { name: "Buy 500 credits" }).click();
    await page.waitForURL(`${stripe.apiUrl}/c/pay/**`);
    expect(await page.textContent("h1")).toBe("Pay 500 credits");
    expect(await page.textContent("main")).toContain("camille@atelier.test");
    const clicked = performance.now();
    await page.getByRole("button", { name: /^Pay/ }).click();

    // Back on the return page: credited at once, whichever of the page and the webhook came first.
    await page.waitForURL(`${t.baseUrl}/app/w/${workspace.workspaceId}/credits/return?session_id=cs_test_*`);
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Payment received");
    const backMs = performance.now() - clicked;
    expect(await page.locator("#balance").textContent()).toBe("510");
    const purchase = page.locator("tbody tr", { hasText: "Purchase: 500 credits, US$79.00" });
    expect(await purchase.count()).toBe(1);
    expect(await purchase.locator("td").last().textContent()).toBe("+500");
    expect(await page.locator("#history-total").textContent()).toBe("510");
    await checkConsolePage(page, "credits-return");

    // The webhook's delivery (posted in the background by the fake) credited nothing more.
    await expect.poll(() => stripe.deliveries.length, { timeout: 30_000 }).toBe(1);
    expect(stripe.deliveries[0]?.status).toBe(200);
    expect(await sqlBalance()).toBe(510);
    const reloaded = await page.reload();
    expect(reloaded?.request().method()).toBe("GET");
    expect(await page.locator("#balance").textContent()).toBe("510");
    const rows = await t.database.db
      .selectFrom("credit_purchases")
      .select(["credits", "source"])
      .where("workspace_id", "=", workspace.workspaceId)
      .execute();
    expect(rows).toEqual([{ credits: 500, source: "stripe" }]);
    console.info(
      `Pay click to return page shown: ${backMs.toFixed(0)} ms; webhook delivery: ${stripe.deliveries[0]?.ms.toFixed(0)} ms`,
    );
  });

  it("shows the Credits page in French, in words, at desktop and 375 px", async () => {
    await page.goto(`${t.baseUrl}/app/account`);
    await page.getByLabel("Language of the console").selectOption("fr");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.textContent("h1")).toBe("Votre compte");
    await page.goto(`${t.baseUrl}/app/w/${workspace.workspaceId}/credits`);
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    expect(await page.locator("h2#buy").textContent()).toBe("Acheter des crédits");
    expect(await page.locator("tbody tr", { hasText: "Achat\u00a0: 500 crédits" }).count()).toBe(1);
    const text = String(await page.evaluate("document.body.innerText"));
    expect(ENGLISH_ONLY.filter((sentence) => text.includes(sentence))).toEqual([]);
    await checkConsolePage(page, "credits-fr");
  });
});
