/**
 * Spending caps in a real browser (the project's headless Chromium), over real HTTP: a member
 * creates an API key with caps (a mistyped cap first: the error beside the field, what was typed
 * kept), the key spends through the API, the keys page shows what it spent against each cap, the
 * key's caps page, then a connected app's caps set from the connected-apps page, and the keys page
 * in French. Each page is checked with axe-core at desktop and 375 px and photographed into
 * docs/console/ (UPDATE_SCREENSHOTS=1 rewrites them).
 */
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { launchBrowser } from "../../support/browser.ts";
import { type HttpTestApp, obtainTokens, startHttpTestApp } from "../../support/oauth.ts";
import { checkConsolePage, ENGLISH_ONLY, joinByInvite } from "../../support/page-check.ts";

const PLACES_FIXTURE_FILE = fileURLToPath(new URL("../../../fixtures/places.example.json", import.meta.url));

let t: HttpTestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let workspace: TestWorkspace;

beforeAll(async () => {
  browser = await launchBrowser();
  t = await startHttpTestApp({ PLACES_FIXTURE_FILE });
  workspace = await createWorkspace(t.app, { name: "Atelier Web" });
  const bought = await adminRequest(
    t.app,
    "POST",
    `/admin/workspaces/${workspace.workspaceId}/credit-purchases`,
    {
      credits: 100,
    },
  );
  expect(bought.statusCode).toBe(201);
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(15_000);
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const keysUrl = () => `${t.baseUrl}/app/w/${workspace.workspaceId}/keys`;

describe("spending caps in Chromium", () => {
  it("creates a capped key (a mistyped cap shown beside its field), spends with it, and sees the spend against its caps", async () => {
    await joinByInvite(page, t, workspace.workspaceId, {
      email: "camille@atelier.test",
      name: "Camille Martin",
    });

    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Key name").fill("Assistant drafts");
    await page.getByLabel(/^Daily cap/).fill("2O");
    await page.getByLabel(/^Total cap/).fill("200");
    await page.getByRole("button", { name: "Create key" }).click();
    const daily = page.getByLabel(/^Daily cap/);
    await expect.poll(() => daily.getAttribute("aria-invalid")).toBe("true");
    expect(await daily.inputValue()).toBe("2O");
    expect(await page.getByLabel("Key name").inputValue()).toBe("Assistant drafts");
    expect(await page.locator("#key-daily-cap-error").textContent()).toContain("Enter a whole number");
    await checkConsolePage(page, "keys-caps-error");

    await daily.fill("20");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator("#new-key-value").textContent())?.trim() ?? "";
    expect(key).toMatch(/^ldk_[A-Za-z0-9_-]{43}$/);
    const searched = await fetch(`${t.baseUrl}/v1/searches`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ queries: [{ location: "Ottawa", category: "plumber" }], max_results: 3 }),
    });
    expect(searched.status).toBe(200);
    expect(((await searched.json()) as { credits_spent: number }).credits_spent).toBe(3);

    await page.goto(keysUrl());
    const row = page.locator("tbody tr", { hasText: "Assistant drafts" });
    expect(await row.locator('td[data-label="Spent today (UTC)"]').textContent()).toBe("3 of 20");
    expect(await row.locator('td[data-label="Spent in total"]').textContent()).toBe("3 of 200");
    await checkConsolePage(page, "keys-caps");

    await row.getByRole("link", { name: /Spending caps/ }).click();
    expect(await page.textContent("h1")).toBe(`Spending caps: Assistant drafts (${key.slice(0, 8)}…)`);
    expect(await page.getByLabel(/^Daily cap/).inputValue()).toBe("20");
    await checkConsolePage(page, "key-caps");
    await page.getByLabel(/^Daily cap/).fill("");
    await page.getByRole("button", { name: "Save caps" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Spending caps saved.");
    expect(await row.locator('td[data-label="Spent today (UTC)"]').textContent()).toBe("3 (no cap)");
  });

  it("sets a connected app's caps from the connected-apps page", async () => {
    const session = (await context.cookies()).find((cookie) => cookie.name === "ld_session")?.value ?? "";
    await obtainTokens(t.baseUrl, {
      session: `ld_session=${session}`,
      workspaceId: workspace.workspaceId,
      clientName: "Writing assistant",
    });
    await page.goto(`${t.baseUrl}/app/account/apps`);
    await page.getByRole("link", { name: /Spending caps/ }).click();
    expect(await page.textContent("main")).toContain("What this app may spend in Atelier Web.");
    await page.getByLabel(/^Daily cap/).fill("5");
    await page.getByLabel(/^Total cap/).fill("50");
    await page.getByRole("button", { name: "Save caps" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Spending caps saved.");
    const row = page.locator("tbody tr", { hasText: "Writing assistant" });
    expect(await row.locator('td[data-label="Spent today (UTC)"]').textContent()).toBe("0 of 5");
    expect(await row.locator('td[data-label="Spent in total"]').textContent()).toBe("0 of 50");
    await checkConsolePage(page, "connected-apps-caps");
  });

  it("shows the keys page and its caps in French, in words", async () => {
    await page.goto(`${t.baseUrl}/app/account`);
    await page.getByLabel("Language of the console").selectOption("fr");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.textContent("h1")).toBe("Votre compte");
    await page.goto(keysUrl());
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    const row = page.locator("tbody tr", { hasText: "Assistant drafts" });
    expect(await row.locator('td[data-label="Dépensé en tout"]').textContent()).toBe("3 sur 200");
    expect(await row.locator('td[data-label="Dépensé aujourd\'hui (UTC)"]').textContent()).toBe(
      "3 (sans plafond)",
    );
    const text = String(await page.evaluate("document.body.innerText"));
    expect(ENGLISH_ONLY.filter((sentence) => text.includes(sentence))).toEqual([]);
    await checkConsolePage(page, "keys-caps-fr");
  });
});
