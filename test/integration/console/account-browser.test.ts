/**
 * Accounts in a real browser (the project's headless Chromium), over real HTTP, with account
 * mail going to an SMTP server on loopback: a new agency signs up, opens the mailed link and
 * creates its first API key; a forgotten password is reset from the mailed link; the member's
 * connected apps are listed and one is disconnected. Each new page is checked with axe-core and
 * photographed at desktop and 375 px into docs/console/ (UPDATE_SCREENSHOTS=1 rewrites them).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../support/browser.ts";
import { PASSWORD } from "../../support/console.ts";
import { type HttpTestApp, obtainTokens, startHttpTestApp } from "../../support/oauth.ts";
import { checkConsolePage } from "../../support/page-check.ts";
import { linkIn, type SmtpSink, startSmtpSink } from "../../support/smtp-sink.ts";

let t: HttpTestApp;
let sink: SmtpSink;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let workspaceId: string;
const EMAIL = "dominique@roy-web.test";

beforeAll(async () => {
  sink = await startSmtpSink();
  browser = await launchBrowser();
  t = await startHttpTestApp({
    SMTP_URL: sink.url,
    MAIL_FROM: "Lead discovery <accounts@service.test>",
    SIGNUP: "open",
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await sink?.close();
});

describe("accounts in Chromium", () => {
  it("a new agency signs up, opens the mailed link and creates its first API key", async () => {
    await page.goto(`${t.baseUrl}/app/sign-in`);
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.waitForURL(`${t.baseUrl}/app/sign-up`);
    await checkConsolePage(page, "sign-up");
    await page.getByLabel("Your name").fill("Dominique Roy");
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Agency name").fill("Roy Web");
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Check your mailbox");
    await checkConsolePage(page, "sign-up-sent");

    const link = linkIn(await sink.next(EMAIL), `${t.baseUrl}/app/sign-up/confirm/`);
    await page.goto(link);
    expect(await page.textContent("h1")).toBe("Confirm your sign-up");
    await checkConsolePage(page, "sign-up-confirm");
    // The password is chosen here, by whoever reads the mailbox.
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole("button", { name: "Create my account" }).click();
    await page.waitForURL(/\/app\/w\/[0-9a-f-]{36}$/);
    workspaceId = page.url().split("/").at(-1) ?? "";
    expect(await page.textContent("h1")).toBe("Overview");
    expect(await page.locator(".stats .value").first().textContent()).toBe("10");

    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Key name").fill("First key");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator("#new-key-value").textContent())?.trim() ?? "";
    expect(key).toMatch(/^ldk_[A-Za-z0-9_-]{43}$/);
    const credits = await fetch(`${t.baseUrl}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
    expect(credits.status).toBe(200);
    expect(((await credits.json()) as { balance: number }).balance).toBe(10);
  });

  it("lists the connected apps and disconnects one", async () => {
    const session = (await context.cookies()).find((cookie) => cookie.name === "ld_session")?.value ?? "";
    const tokens = await obtainTokens(t.baseUrl, {
      session: `ld_session=${session}`,
      workspaceId,
      clientName: "Writing assistant",
    });
    await page.goto(`${t.baseUrl}/app/account`);
    await page.getByRole("link", { name: "Connected apps" }).click();
    await expect.poll(() => page.locator("tbody tr", { hasText: "Writing assistant" }).count()).toBe(1);
    await checkConsolePage(page, "connected-apps");
    await page.getByRole("button", { name: /Disconnect/ }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("disconnected");
    const after = await fetch(`${t.baseUrl}/v1/credits`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(after.status).toBe(401);
  });

  it("resets a forgotten password from the mailed link", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/app\/sign-in/);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await checkConsolePage(page, "forgot-password");
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByRole("button", { name: "Send the link" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("on its way");
    const link = linkIn(await sink.next(EMAIL), `${t.baseUrl}/app/reset-password/`);
    await page.goto(link);
    await checkConsolePage(page, "reset-password");
    await page.getByLabel(/New password/).fill("a brand new password");
    await page.getByRole("button", { name: "Choose a new password" }).click();
    await page.waitForURL(/\/app\/account\?done=reset$/);
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Your password was changed");
  });
});
