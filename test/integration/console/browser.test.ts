/**
 * The console in a real browser (the project's headless Chromium, driven by playwright-core),
 * over real HTTP: a person is invited, sets a password, signs in, manages keys and members,
 * changes the language, works a lead. Every page is checked with axe-core (no serious or
 * critical violation) and photographed at desktop and 375 px widths into docs/console/
 * (UPDATE_SCREENSHOTS=1 rewrites them).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import { adminRequest, createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { seriousViolations } from "../../support/axe.ts";
import { launchBrowser } from "../../support/browser.ts";
import { PASSWORD } from "../../support/console.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { seedLeads } from "../../support/seed.ts";

const SCREENSHOTS = fileURLToPath(new URL("../../../docs/console/", import.meta.url));

let t: HttpTestApp;
let browser: Browser;
let owner: BrowserContext;
let page: Page;
let workspace: TestWorkspace;
let leadWithWebsite: string;
let leadWithoutWebsite: string;
const checkedPages: string[] = [];

/** The docs' screenshots are rewritten with UPDATE_SCREENSHOTS=1 (like docs/oauth-authorize.png). */
async function screenshot(target: Page, file: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS === "1")
    await target.screenshot({ path: `${SCREENSHOTS}${file}`, fullPage: true });
  expect(existsSync(`${SCREENSHOTS}${file}`), `${file}: run with UPDATE_SCREENSHOTS=1`).toBe(true);
}

/** Checks the page as it is now: accessibility, no sideways scrolling at 375 px, and its screenshots. */
async function checkPage(target: Page, name: string): Promise<void> {
  expect(await seriousViolations(target), `axe on ${name}`).toEqual([]);
  await screenshot(target, `${name}-desktop.png`);
  await target.setViewportSize({ width: 375, height: 812 });
  expect(await seriousViolations(target), `axe on ${name} at 375 px`).toEqual([]);
  const overflow = Number(await target.evaluate("document.documentElement.scrollWidth"));
  expect(overflow, `${name} scrolls sideways at 375 px`).toBeLessThanOrEqual(375);
  await screenshot(target, `${name}-375.png`);
  await target.setViewportSize({ width: 1280, height: 800 });
  checkedPages.push(name);
}

async function apiCredits(key: string): Promise<number> {
  const response = await fetch(`${t.baseUrl}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
  return response.status;
}

beforeAll(async () => {
  browser = await launchBrowser();
  t = await startHttpTestApp();
  workspace = await createWorkspace(t.app, { name: "Atelier Web" });
  await adminRequest(t.app, "PATCH", `/admin/workspaces/${workspace.workspaceId}`, {
    sender_name: "Camille Martin",
    sender_company: "Atelier Web",
    offer: "We build fast, mobile-friendly websites for local trades.",
  });
  const base = Date.parse("2026-03-02T14:00:00.000Z");
  [leadWithWebsite = "", leadWithoutWebsite = ""] = await seedLeads(
    t.database.db,
    workspace.workspaceId,
    [
      {
        place_id: "browser-old-site",
        name: "Plomberie Tremblay",
        category: "Plumber",
        address: "12 rue Principale, Gatineau, QC",
        website: "https://plomberie-tremblay.example",
        country: "CA",
      },
      {
        place_id: "browser-no-site",
        name: "Toitures Gagnon",
        category: "Roofing contractor",
        address: "4 chemin du Lac, Chelsea, QC",
        website: null,
        country: "CA",
      },
    ],
    (index) => new Date(base - index * 60_000),
  );
  await saveAudit(t.database.db, {
    place_id: "browser-old-site",
    url: "https://plomberie-tremblay.example",
    outcome: "ok",
    failure: null,
    signals: {
      no_mobile_viewport: true,
      legacy_site_tech: true,
      stale_copyright: true,
      last_media_year: 2016,
      stale_content: true,
      no_french_version: false,
      not_mobile_friendly: true,
      outdated_website: true,
    },
    evidence: {
      viewport: null,
      jquery_version: "1.8.3",
      copyright_text: "© 2014 Plomberie Tremblay",
      copyright_year: 2014,
      media_paths: ["/wp-content/uploads/2016/05/van.jpg"],
    },
    audited_at: new Date(),
  });
  owner = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  owner.setDefaultTimeout(10_000);
  page = await owner.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe("the console in Chromium", () => {
  it("joins through an invite, signs out and back in with the keyboard", async () => {
    const invite = await adminRequest(t.app, "POST", `/admin/workspaces/${workspace.workspaceId}/invites`, {
      email: "camille@atelier.test",
    });
    await page.goto(invite.json().url);
    await expect.poll(() => page.textContent("h1")).toBe("Join Atelier Web");
    await checkPage(page, "invite");
    await page.getByLabel("Your name").fill("Camille Martin");
    await page.getByLabel(/New password/).fill(PASSWORD);
    await page.getByRole("button", { name: "Join" }).click();
    await page.waitForURL(`${t.baseUrl}/app/w/${workspace.workspaceId}`);
    expect(await page.textContent("h1")).toBe("Overview");
    await checkPage(page, "overview");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/app\/sign-in/);
    await checkPage(page, "sign-in");
    // Keyboard only: skip link, email, password, Enter.
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Skip to content");
    await page.getByLabel("Email").focus();
    await page.keyboard.type("camille@atelier.test");
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${t.baseUrl}/app/w/${workspace.workspaceId}`);
  });

  it("creates a key seen once, uses it, sees its last use, revokes it and the API answers 401", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Key name").fill("CRM sync");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator("#new-key-value").textContent())?.trim() ?? "";
    expect(key).toMatch(/^ldk_[A-Za-z0-9_-]{43}$/);
    await expect.poll(() => page.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
    await checkPage(page, "keys-created");

    expect(await apiCredits(key)).toBe(200);
    await page.goto(`${t.baseUrl}/app/w/${workspace.workspaceId}/keys`);
    expect(await page.content()).not.toContain(key);
    const row = page.locator("tr", { hasText: "CRM sync" });
    expect(await row.locator("td").nth(1).textContent()).toBe("Camille Martin");
    expect(await row.locator("td").nth(3).textContent()).toMatch(/UTC$/);
    await checkPage(page, "keys");

    await row.getByRole("link", { name: /Revoke/ }).click();
    await checkPage(page, "keys-revoke");
    await page.getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("The key was revoked.");
    expect(await apiCredits(key)).toBe(401);
  });

  it("invites a member who joins in another browser, then removes them", async () => {
    await page.getByRole("link", { name: "Members" }).click();
    await page.getByLabel("Email").fill("nina@atelier.test");
    await page.getByLabel("Name").fill("Nina Roy");
    await page.getByRole("button", { name: "Invite" }).click();
    const link = (await page.locator("#invite-url").textContent())?.trim() ?? "";
    expect(link).toContain("/app/invite/");
    await checkPage(page, "members");

    const other = await browser.newContext();
    other.setDefaultTimeout(10_000);
    const nina = await other.newPage();
    await nina.goto(link);
    await nina.getByLabel("Your name").fill("Nina Roy");
    await nina.getByLabel(/New password/).fill("another long password");
    await nina.getByRole("button", { name: "Join" }).click();
    await nina.waitForURL(`${t.baseUrl}/app/w/${workspace.workspaceId}`);

    await page.goto(`${t.baseUrl}/app/w/${workspace.workspaceId}/members`);
    const ninaRow = page.locator("tr", { hasText: "nina@atelier.test" });
    await ninaRow.getByRole("link", { name: /Remove/ }).click();
    await page.getByRole("button", { name: "Remove" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("The member was removed.");
    expect(await page.locator("tr", { hasText: "nina@atelier.test" }).count()).toBe(0);

    await nina.reload();
    expect(new URL(nina.url()).pathname).toBe("/app/sign-in");
    await other.close();
  });

  it("opens a lead with its evidence, drafts it for 1 credit and exports the list as CSV", async () => {
    await page.getByRole("link", { name: "Leads" }).click();
    expect(await page.locator("tr", { hasText: "Plomberie Tremblay" }).textContent()).toContain(
      "Not mobile friendly",
    );
    await checkPage(page, "leads");
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Export CSV" }).click();
    const csv = await readFile((await (await download).path()) ?? "", "utf8");
    expect(csv.split("\r\n")[0]).toMatch(/^id,name,category/);
    expect(csv).toContain(`${leadWithWebsite},Plomberie Tremblay,Plumber`);
    expect(csv).toContain(`${leadWithoutWebsite},Toitures Gagnon,Roofing contractor`);

    await page.getByRole("link", { name: "Plomberie Tremblay" }).click();
    expect(await page.content()).toContain("© 2014 Plomberie Tremblay");
    await page.getByLabel("Draft language").selectOption("fr");
    await page.getByRole("button", { name: /Write a draft/ }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Draft written: 1 credit spent.");
    expect(await page.locator("article").count()).toBe(1);
    expect(await page.locator("article pre").textContent()).toContain("Camille Martin");
    await checkPage(page, "lead");

    await page.getByRole("link", { name: "Credits" }).click();
    expect(await page.locator(".stats .value").first().textContent()).toBe("9");
    expect(await page.locator("tr", { hasText: "Outreach draft" }).textContent()).toContain("-1");
    await checkPage(page, "credits");
    await page.getByRole("link", { name: "Settings" }).click();
    await checkPage(page, "settings");
  });

  it("switches the console to French", async () => {
    await page.getByRole("link", { name: "Camille Martin" }).click();
    await checkPage(page, "account");
    await page.getByLabel("Language of the console").selectOption("fr");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.textContent("h1")).toBe("Votre compte");
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    await page.goto(`${t.baseUrl}/app/w/${workspace.workspaceId}/leads`);
    expect(await page.textContent("h1")).toBe("Prospects");
    await checkPage(page, "leads-fr");
    expect(checkedPages).toHaveLength(13);
  });
});
