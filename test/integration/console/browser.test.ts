/**
 * The console in a real browser (the project's headless Chromium, driven by playwright-core),
 * over real HTTP: a person is invited, sets a password, signs in, manages keys and members,
 * searches with a live filter (fake places provider and fake business sites on loopback), marks
 * leads sent and skipped, drafts, changes the language, and approves an assistant in French.
 *
 * Every page is checked with axe-core (no serious or critical violation) and at 375 px (no
 * sideways scrolling, not even inside a table); every form's answer is reloaded and the reload
 * must be a GET that repeats nothing; every French page is checked for raw values and English.
 * Screenshots at desktop and 375 px go to docs/console/ (UPDATE_SCREENSHOTS=1 rewrites them).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import { adminRequest, createWorkspace, startSiblingApp, type TestWorkspace } from "../../support/app.ts";
import { seriousViolations } from "../../support/axe.ts";
import { launchBrowser } from "../../support/browser.ts";
import { PASSWORD } from "../../support/console.ts";
import { RICH_EVIDENCE, RICH_SIGNALS } from "../../support/drafting.ts";
import { type FakeGooglePlacesServer, syntheticPlaces } from "../../support/fake-google-places.ts";
import { type FakeSitesServer, startFakeSites } from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { captureLogs } from "../../support/log-capture.ts";
import {
  authorizeUrl,
  type HttpTestApp,
  pkcePair,
  registerTestClient,
  startHttpTestApp,
} from "../../support/oauth.ts";
import { ENGLISH_ONLY } from "../../support/page-check.ts";
import { seedLeads } from "../../support/seed.ts";

const SCREENSHOTS = fileURLToPath(new URL("../../../docs/console/", import.meta.url));

let t: HttpTestApp;
let places: FakeGooglePlacesServer;
let sites: FakeSitesServer;
let browser: Browser;
let owner: BrowserContext;
let page: Page;
let workspace: TestWorkspace;
let leadWithWebsite: string;
let leadWithoutWebsite: string;
/** The lead the console's search found (its first result). */
let searchedLead = "";
const checkedPages: string[] = [];
/** The app's warnings and errors: normal use must log none about a second reply (issue 31 item 10). */
const logs = captureLogs();

/** The docs' screenshots are rewritten with UPDATE_SCREENSHOTS=1 (like docs/oauth-authorize.png). */
async function screenshot(target: Page, file: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS === "1")
    await target.screenshot({ path: `${SCREENSHOTS}${file}`, fullPage: true });
  expect(existsSync(`${SCREENSHOTS}${file}`), `${file}: run with UPDATE_SCREENSHOTS=1`).toBe(true);
}

/** What scrolls sideways at this width: the page itself, or any box inside it (a table's wrapper). */
const SIDEWAYS_SCROLLERS = `(() => {
  const found = [];
  if (document.documentElement.scrollWidth > window.innerWidth) found.push("document");
  for (const element of document.querySelectorAll("body *")) {
    const overflow = getComputedStyle(element).overflowX;
    if ((overflow === "auto" || overflow === "scroll") && element.scrollWidth > element.clientWidth + 1)
      found.push(element.tagName.toLowerCase() + "." + element.className);
  }
  return found;
})()`;

/** Checks the page as it is now: accessibility, no sideways scrolling at 375 px, and its screenshots. */
async function checkPage(target: Page, name: string, options: { screenshots?: boolean } = {}): Promise<void> {
  const screenshots = options.screenshots ?? true;
  expect(await seriousViolations(target), `axe on ${name}`).toEqual([]);
  if (screenshots) await screenshot(target, `${name}-desktop.png`);
  await target.setViewportSize({ width: 375, height: 812 });
  expect(await seriousViolations(target), `axe on ${name} at 375 px`).toEqual([]);
  expect(await target.evaluate(SIDEWAYS_SCROLLERS), `${name} scrolls sideways at 375 px`).toEqual([]);
  expect(Number(await target.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(
    Number(await target.evaluate("window.innerWidth")),
  );
  if (screenshots) await screenshot(target, `${name}-375.png`);
  await target.setViewportSize({ width: 1280, height: 800 });
  checkedPages.push(name);
}

/** A form's answer reloaded: the browser asks again with GET (POST, 303, GET), so nothing repeats. */
async function reloadRepeatsNothing(target: Page): Promise<void> {
  const response = await target.reload();
  expect(response?.request().method(), `reload of ${target.url()}`).toBe("GET");
  expect(response?.status(), `reload of ${target.url()}`).toBeLessThan(400);
}

/** Stored codes that a page must put in words. */
const RAW_VALUE =
  /\b(new|drafted|sent|skipped|no_website|not_mobile_friendly|outdated_website|stale_content|no_mobile_viewport|legacy_site_tech|stale_copyright|low_review_count|no_french_version)\b/g;

/** Raw values and English left on a French page (the text a person reads, header included). */
async function notFrench(target: Page): Promise<string[]> {
  const text = String(await target.evaluate("document.body.innerText"));
  return [...(text.match(RAW_VALUE) ?? []), ...ENGLISH_ONLY.filter((sentence) => text.includes(sentence))];
}

async function apiCredits(key: string): Promise<number> {
  const response = await fetch(`${t.baseUrl}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
  return response.status;
}
async function balance(): Promise<number> {
  const response = await fetch(`${t.baseUrl}/v1/credits`, { headers: workspace.auth });
  return ((await response.json()) as { balance: number }).balance;
}
async function apiLeadStatus(leadId: string): Promise<string> {
  const response = await fetch(`${t.baseUrl}/v1/leads/${leadId}`, { headers: workspace.auth });
  return ((await response.json()) as { outreach_status: string }).outreach_status;
}
const count = async (table: "api_keys" | "invites" | "drafts" | "search_charges") =>
  Number(
    (
      await t.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("workspace_id", "=", workspace.workspaceId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const OLD_HOMEPAGE = `<!doctype html><html><head><title>Plomberie Lavoie</title>
<script src="/js/jquery-1.8.3.min.js"></script></head><body><center><font size="2">Plomberie Lavoie</font></center>
<p>Appelez-nous : <a href="mailto:contact@plomberie-lavoie.ca">contact@plomberie-lavoie.ca</a></p>
<p>© 2013 Plomberie Lavoie</p></body></html>`;
const MODERN_HOMEPAGE = `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Modern Plumbing</title></head><body><p>© ${new Date().getUTCFullYear()} Modern Plumbing</p></body></html>`;

test.beforeAll(async ({ googlePlaces }) => {
  browser = await launchBrowser();
  places = googlePlaces;
  sites = await startFakeSites();
  sites.set("/lavoie", { html: OLD_HOMEPAGE });
  sites.set("/modern", { html: MODERN_HOMEPAGE });
  const found = syntheticPlaces(3, { prefix: "console-search" });
  const [old, modern, none] = found;
  if (!old || !modern || !none) throw new Error("three places");
  old.displayName = { text: "Plomberie Lavoie", languageCode: "fr" };
  old.websiteUri = sites.url("/lavoie");
  modern.websiteUri = sites.url("/modern");
  delete none.websiteUri;
  places.setPlaces("plumber in Gatineau", found);
  t = await startHttpTestApp(
    {
      ...places.env,
      AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    },
    { logger: logs.logger },
  );
  workspace = await createWorkspace(t.app, { name: "Atelier Web" });
  await adminRequest(t.app, "PATCH", `/admin/workspaces/${workspace.workspaceId}`, {
    sender_name: "Camille Martin",
    sender_company: "Atelier Web",
    offer_en: "We build fast, mobile-friendly websites for local trades.",
    offer_fr: "Des sites rapides et adaptés aux téléphones pour les artisans.",
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
      table_layout: "fixed-width layout table: <table width=900>",
      copyright_text: "© 2014 Plomberie Tremblay",
      copyright_year: 2014,
      media_paths: ["/wp-content/uploads/2016/05/van.jpg"],
    },
    audited_at: new Date(),
  });
  owner = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  owner.setDefaultTimeout(15_000);
  page = await owner.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await sites?.close();
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
    await reloadRepeatsNothing(page);
    expect(await page.textContent("h1")).toBe("Overview");
    // Next steps of a workspace that has leads but no draft, no key of its own, one member.
    expect(await page.locator("ol.steps").textContent()).toContain("Open a lead");
    await checkPage(page, "overview");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/app\/sign-in/);
    await reloadRepeatsNothing(page);
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
    await reloadRepeatsNothing(page);
  });

  it("creates a key seen once (a reload neither shows it again nor makes another), revokes it", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Key name").fill("CRM sync");
    const keysBefore = await count("api_keys");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator("#new-key-value").textContent())?.trim() ?? "";
    expect(key).toMatch(/^ldk_[A-Za-z0-9_-]{43}$/);
    expect(page.url()).not.toContain(key);
    await expect.poll(() => page.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
    await checkPage(page, "keys-created");
    await reloadRepeatsNothing(page);
    expect(await page.content()).not.toContain(key);
    expect(await count("api_keys")).toBe(keysBefore + 1);

    expect(await apiCredits(key)).toBe(200);
    await page.goto(`${t.baseUrl}/app/w/${workspace.workspaceId}/keys`);
    expect(await page.content()).not.toContain(key);
    const row = page.locator("tr", { hasText: "CRM sync" });
    // Two keys of the same name are told apart by their first characters.
    expect(await row.locator("td").nth(1).textContent()).toBe(`${key.slice(0, 8)}…`);
    expect(await row.locator("td").nth(2).textContent()).toBe("Camille Martin");
    expect(await row.locator("td").nth(4).textContent()).toMatch(/UTC$/);
    await checkPage(page, "keys");

    await row.getByRole("link", { name: /Revoke/ }).click();
    await checkPage(page, "keys-revoke");
    await page.getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("The key was revoked.");
    await reloadRepeatsNothing(page);
    expect(await apiCredits(key)).toBe(401);
  });

  it("invites a member who joins in another browser, then removes them; reloads repeat nothing", async () => {
    await page.getByRole("link", { name: "Members" }).click();
    await page.getByLabel("Email").fill("nina@atelier.test");
    await page.getByLabel("Name").fill("Nina Roy");
    const invitesBefore = await count("invites");
    await page.getByRole("button", { name: "Invite" }).click();
    const link = (await page.locator("#invite-url").textContent())?.trim() ?? "";
    expect(link).toContain("/app/invite/");
    await checkPage(page, "members");
    await reloadRepeatsNothing(page);
    expect(await page.content()).not.toContain(link);
    expect(await count("invites")).toBe(invitesBefore + 1);

    const other = await browser.newContext();
    other.setDefaultTimeout(15_000);
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
    await reloadRepeatsNothing(page);
    expect(await page.locator("tr", { hasText: "nina@atelier.test" }).count()).toBe(0);

    await nina.reload();
    expect(new URL(nina.url()).pathname).toBe("/app/sign-in");
    await other.close();
  });

  it("searches with a live filter: the balance drops by what the page shows; a reload searches nothing", async () => {
    const before = await balance();
    const chargesBefore = await count("search_charges");
    await page.getByRole("link", { name: "Search", exact: true }).click();
    await checkPage(page, "search");
    await page.getByLabel("City or region").first().fill("Gatineau");
    await page.getByLabel("Trade or business type").first().fill("plumber");
    await page.getByLabel("Most leads to return").fill("5");
    await page.getByLabel(/Only websites not made for phones/).check();
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/\/search\?flash=/);

    const spent = Number(await page.locator("#search-summary").getAttribute("data-credits-spent"));
    expect(spent).toBe(1);
    expect(await page.locator("#search-summary").textContent()).toBe(
      `Credits spent: 1. Balance now: ${before - 1}.`,
    );
    expect(await balance()).toBe(before - spent);
    // Only the old site passed the live filter; its flags come from the check just made.
    const rows = page.locator("table.rows tbody tr");
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("Plomberie Lavoie");
    expect(await rows.first().locator('td[data-label="Mobile friendly"]').textContent()).toBe("no");
    expect(await page.locator("#search-truncated").count()).toBe(0);
    await checkPage(page, "search-results");

    await reloadRepeatsNothing(page);
    expect(await page.locator("table.rows tbody tr").count()).toBe(1);
    expect(await balance()).toBe(before - spent);
    expect(await count("search_charges")).toBe(chargesBefore + 1);

    await page.getByRole("link", { name: "Plomberie Lavoie" }).click();
    searchedLead = /\/leads\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? "";
    expect(searchedLead).not.toBe("");
    expect(await page.textContent("h1")).toBe("Plomberie Lavoie");
    expect(await page.locator("dl.facts").first().textContent()).toContain("contact@plomberie-lavoie.ca");
  });

  it("marks the lead sent then skipped: the API's outreach_status follows, the list filters by it", async () => {
    expect(await apiLeadStatus(searchedLead)).toBe("new");
    await page.getByRole("button", { name: "Mark as sent" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Marked as sent.");
    expect(await page.locator("#lead-status").textContent()).toBe("Sent");
    expect(await apiLeadStatus(searchedLead)).toBe("sent");
    await reloadRepeatsNothing(page);
    await checkPage(page, "lead-marked");

    await page.getByRole("button", { name: "Mark as skipped" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Marked as skipped.");
    expect(await page.locator("#lead-status").textContent()).toBe("Skipped");
    expect(await apiLeadStatus(searchedLead)).toBe("skipped");
    await reloadRepeatsNothing(page);

    await page.getByRole("link", { name: "Leads", exact: true }).click();
    await page.getByLabel("Status").selectOption("skipped");
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL(/status=skipped/);
    const listed = page.locator("table.rows tbody tr");
    expect(await listed.count()).toBe(1);
    expect(await listed.first().textContent()).toContain("Plomberie Lavoie");
    await page.getByLabel("Status").selectOption("sent");
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL(/status=sent/);
    expect(await page.locator(".empty").textContent()).toBe("No lead has this status.");
  });

  it("opens a lead with its evidence, drafts it for 1 credit (once, whatever the reloads), exports CSV", async () => {
    await page.goto(`${t.baseUrl}/app/w/${workspace.workspaceId}/leads`);
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

    const before = await balance();
    await page.getByRole("link", { name: "Plomberie Tremblay" }).click();
    expect(await page.content()).toContain("© 2014 Plomberie Tremblay");
    await page.getByLabel("Draft language").selectOption("fr");
    // No address is known for this lead: the page warns, and drafting asks to be confirmed.
    expect(await page.locator("#draft-warnings").textContent()).toContain("No email address is known");
    await page.getByLabel(/draft it anyway/).check();
    await page.getByRole("button", { name: /Write a draft/ }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Draft written: 1 credit spent.");
    await reloadRepeatsNothing(page);
    // One draft: the latest, on top; no earlier ones.
    expect(await page.locator("#latest-body").count()).toBe(1);
    expect(await page.locator("article").count()).toBe(0);
    expect(await count("drafts")).toBe(1);
    expect(await balance()).toBe(before - 1);
    expect(await page.locator("#latest-body").textContent()).toContain("Camille Martin");
    await checkPage(page, "lead");

    await page.getByRole("link", { name: "Credits" }).click();
    expect(await page.locator(".stats .value").first().textContent()).toBe(String(before - 1));
    expect(await page.locator("tr", { hasText: "Outreach draft" }).first().textContent()).toContain("-1");
    // Its screenshots, packs on sale, come from credits-browser.test.ts (this app sells none).
    await checkPage(page, "credits", { screenshots: false });
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByLabel("Sender name").fill("Camille Martin");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Saved.");
    await reloadRepeatsNothing(page);
    await checkPage(page, "settings");

    // The do-not-contact list: an entry added, the page checked like every other.
    await page.getByRole("link", { name: "Do not contact" }).click();
    await page.getByLabel("Address, domain or place id").fill("owner@toitures-gagnon.ca");
    await page.getByLabel("Reason", { exact: true }).fill("asked by phone");
    await page.getByRole("button", { name: "Add" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Added to the do-not-contact list.");
    await reloadRepeatsNothing(page);
    expect(await page.locator("td", { hasText: "owner@toitures-gagnon.ca" }).count()).toBe(1);
    await checkPage(page, "suppressions");
  });

  // Eleven pages, each checked by axe at two widths: well over the default 30 s on a busy machine.
  it("switches the console to French: every page in words, no raw value, no English, fits 375 px", async () => {
    await page.getByRole("link", { name: "Camille Martin" }).click();
    await checkPage(page, "account");
    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByLabel(/New password/).fill(PASSWORD);
    await page.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => page.getByRole("status").count()).toBe(1);
    await reloadRepeatsNothing(page);
    await page.getByLabel("Language of the console").selectOption("fr");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.textContent("h1")).toBe("Votre compte");
    await reloadRepeatsNothing(page);
    expect(await page.getAttribute("html", "lang")).toBe("fr");

    const w = `${t.baseUrl}/app/w/${workspace.workspaceId}`;
    const frenchPages: [string, string][] = [
      ["overview-fr", w],
      ["search-fr", `${w}/search`],
      ["leads-fr", `${w}/leads`],
      ["lead-fr", `${w}/leads/${leadWithWebsite}`],
      ["lead-marked-fr", `${w}/leads/${searchedLead}`],
      ["keys-fr", `${w}/keys`],
      ["members-fr", `${w}/members`],
      ["credits-fr", `${w}/credits`],
      ["settings-fr", `${w}/settings`],
      ["suppressions-fr", `${w}/suppressions`],
      ["account-fr", `${t.baseUrl}/app/account`],
    ];
    for (const [name, url] of frenchPages) {
      await page.goto(url);
      expect(await page.getAttribute("html", "lang"), name).toBe("fr");
      expect(await notFrench(page), `${name}: raw values or English`).toEqual([]);
      await checkPage(page, name, { screenshots: name === "leads-fr" || name === "lead-fr" });
    }
    // The evidence in French words: the quoted tag and notice are the site's own.
    await page.goto(`${w}/leads/${leadWithWebsite}`);
    const evidence = await page.locator("dl.facts.small").textContent();
    expect(evidence).toContain("aucune balise <meta name=viewport>");
    expect(evidence).toContain("tableau de mise en page à largeur fixe\u00a0: <table width=900>");
    expect(
      await page.locator('section[aria-labelledby="latest-draft-title"] .muted').first().textContent(),
    ).toMatch(/Français · Faits utilisés[ \u00a0\u202f]?: \S/);

    // A French search: the results page too.
    await page.goto(`${w}/search`);
    await page.getByLabel("Ville ou région").first().fill("Gatineau");
    await page.getByLabel("Métier ou type d'entreprise").first().fill("plumber");
    await page.getByLabel("Nombre maximal de prospects").fill("5");
    await page.getByRole("button", { name: "Rechercher" }).click();
    await page.waitForURL(/\/search\?flash=/);
    expect(await notFrench(page), "search results: raw values or English").toEqual([]);
    await checkPage(page, "search-results-fr", { screenshots: false });
  }, 120_000);

  it("shows an assistant's consent page in French, in the console's layout", async () => {
    const client = await registerTestClient(t.baseUrl, {
      client_name: "Assistant Exemple",
      redirect_uris: ["http://127.0.0.1:9/oauth/callback"],
    });
    await page.goto(
      authorizeUrl(t.baseUrl, {
        clientId: client.client_id,
        redirectUri: "http://127.0.0.1:9/oauth/callback",
        challenge: pkcePair().challenge,
        state: "fr",
        scope: "email profile",
      }),
    );
    expect(await page.textContent("h1")).toBe("Connecter Assistant Exemple");
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    expect(await page.getByRole("button", { name: "Approuver" }).count()).toBe(1);
    expect(await page.locator("main").textContent()).toContain("votre adresse courriel");
    expect(await notFrench(page), "consent: raw values or English").toEqual([]);
    await checkPage(page, "consent-fr");
    expect(checkedPages).toHaveLength(29);
  });

  // Issue 31 (a person's clicks are not a script's calls): at the console's own budget
  // (RATE_LIMIT_CONSOLE_READ_PER_MIN, 300 by default), a person working fast is never refused.
  it("opens 60 lead pages and drafts 12 leads in a minute without a refusal", async () => {
    await adminRequest(t.app, "POST", `/admin/workspaces/${workspace.workspaceId}/credit-purchases`, {
      credits: 20,
    });
    const base = Date.parse("2026-02-01T09:00:00.000Z");
    const leadIds = await seedLeads(
      t.database.db,
      workspace.workspaceId,
      Array.from({ length: 60 }, (_, n) => ({
        place_id: `browser-fast-${n}`,
        name: `Atelier Rapide ${n}`,
        category: "Plumber",
        website: `https://fast-${n}.example/`,
        country: "CA",
      })),
      (index) => new Date(base - index * 60_000),
    );
    for (const n of leadIds.keys()) {
      await saveAudit(t.database.db, {
        place_id: `browser-fast-${n}`,
        url: `https://fast-${n}.example/`,
        outcome: "ok",
        failure: null,
        signals: { ...RICH_SIGNALS, email: `info@fast-${n}.example`, email_status: "deliverable" },
        evidence: {
          ...RICH_EVIDENCE,
          email_found_in: ["mailto"],
          email_page_url: `https://fast-${n}.example/`,
        },
        audited_at: new Date(),
      });
    }
    const drafted = await count("drafts");
    const w = `${t.baseUrl}/app/w/${workspace.workspaceId}`;
    const statuses: number[] = [];
    const started = Date.now();
    for (const leadId of leadIds) {
      const response = await page.goto(`${w}/leads/${leadId}`);
      statuses.push(response?.status() ?? 0);
    }
    for (const leadId of leadIds.slice(0, 12)) {
      statuses.push((await page.goto(`${w}/leads/${leadId}`))?.status() ?? 0);
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith(`/leads/${leadId}/draft`)),
        page.locator(`form[action$="/leads/${leadId}/draft"] button[type="submit"]`).click(),
      ]);
      statuses.push(answer.status());
      await page.waitForLoadState();
      statuses.push((await page.reload())?.status() ?? 0);
    }
    const seconds = (Date.now() - started) / 1000;
    // A figure, not an assertion: how long 60 pages and 12 drafts (with their pages) took here.
    console.log(`60 lead pages and 12 drafts (${statuses.length} requests) in ${seconds.toFixed(1)} s`);
    expect(statuses.filter((status) => status !== 200 && status !== 303)).toEqual([]);
    expect(await count("drafts")).toBe(drafted + 12);
  }, 120_000);

  it("over the console's budget, says in French how many seconds to wait (429, Retry-After)", async () => {
    // A second node on the same database with a budget of 3 a minute: the same session opens it.
    const narrow = await startSiblingApp(
      t.database.db,
      { ...places.env, RATE_LIMIT_CONSOLE_READ_PER_MIN: "3" },
      {},
      { logger: logs.logger },
    );
    try {
      await narrow.app.listen({ port: 0, host: "127.0.0.1" });
      const narrowUrl = `http://127.0.0.1:${(narrow.app.server.address() as { port: number }).port}`;
      const lead = `${narrowUrl}/app/w/${workspace.workspaceId}/leads/${leadWithWebsite}`;
      const statuses: number[] = [];
      for (let n = 0; n < 4; n += 1) statuses.push((await page.goto(lead))?.status() ?? 0);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await page.goto(lead);
      expect(refused?.status()).toBe(429);
      const retryAfter = Number(refused?.headers()["retry-after"]);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await page.getAttribute("html", "lang")).toBe("fr");
      const alert = (await page.getByRole("alert").textContent()) ?? "";
      expect(alert).toMatch(
        /^Vous allez plus vite que la console ne le permet en une minute\. Attendez \d+ secondes, puis rechargez cette page\u00a0: rien n'est perdu\.$/,
      );
      expect(await notFrench(page), "rate-limit page: raw values or English").toEqual([]);
      expect(await seriousViolations(page), "axe on the rate-limit page").toEqual([]);
    } finally {
      await narrow.close();
    }
  });

  it("logged no second reply, and nothing at warn or above, while a person used the console", () => {
    expect(logs.mentioning("already sent")).toEqual([]);
    expect(logs.lines.map((line) => `${String(line.level)} ${String(line.msg)}`)).toEqual([]);
  });
});
