/**
 * Tables that never break inside a word (issue 33 item 5), in a real browser (the project's
 * headless Chromium, driven by playwright-core) over real HTTP: every console page with a table,
 * at 375, 768 and 1280 px, in English and in French. Each word of each table cell (a run of
 * letters or digits) is measured with a Range: a word whose boxes lie on more than one line is
 * broken ("Ne/w", "Éc/art/é", "Plomberi/e Vanier", "Remov/e" before). A URL or an address may
 * wrap only at its punctuation. French pages are checked for the no-break space before : ; ? !
 * as the reader sees them (labels, values and the views' own colons included).
 *
 * Photographs for docs/console/ (UPDATE_SCREENSHOTS=1 rewrites them): the leads list sorted by
 * score, the lead page with its opportunity score and reasons and the address's status with its
 * reason (English and French), and the do-not-contact page keeping a refused entry (issue 29's
 * and issue 33's pages).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import type { AuditEvidence, AuditSignals } from "../../../shared/audit/types.ts";
import { UNKNOWN_SIGNALS } from "../../../shared/audit/types.ts";
import { adminRequest, createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { launchBrowser } from "../../support/browser.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { checkConsolePage, joinByInvite } from "../../support/page-check.ts";
import { seedLeads } from "../../support/seed.ts";

let t: HttpTestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let workspace: TestWorkspace;
const leadIds = new Map<string, string>();

const WIDTHS = [375, 768, 1280] as const;

/**
 * Each word of a table cell whose boxes lie on more than one line, with where it is. A word is a
 * run of letters or digits: a URL or an address may wrap at its punctuation, never inside a word.
 */
const BROKEN_WORDS = `(() => {
  const broken = [];
  const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const cell = node.parentElement && node.parentElement.closest("td, th");
    if (!cell || node.parentElement.closest(".visually-hidden")) continue;
    for (const match of node.data.matchAll(/[\\p{L}\\p{N}]+/gu)) {
      if (match[0].length < 2) continue;
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].filter((box) => box.width > 0).map((box) => Math.round(box.top)));
      if (tops.size > 1) broken.push(match[0] + " (" + (cell.getAttribute("data-label") || cell.textContent.trim().slice(0, 30)) + ")");
    }
  }
  return broken;
})()`;

/** Whether a table is wider than its frame (the frame would scroll sideways). */
const TABLE_SCROLLS_SIDEWAYS = `[...document.querySelectorAll(".table-wrap")].some(
  (frame) => frame.scrollWidth > frame.clientWidth + 1,
) || document.documentElement.scrollWidth > window.innerWidth`;

/** French high punctuation as the reader sees it, without the no-break space before it. */
const BARE_FRENCH_MARKS = `(() => {
  const text = document.body.innerText;
  return [...text.matchAll(/[^\\u00a0\\u202f]([:;?!])(?!\\/\\/)/g)]
    .map((match) => text.slice(Math.max(0, match.index - 20), match.index + 2))
    // A time of day and an id are not punctuation: 14:05, ldk_...
    .filter((fragment) => !/\\d[:]\\d?$/.test(fragment));
})()`;

const OLD_SITE_SIGNALS: AuditSignals = {
  ...UNKNOWN_SIGNALS,
  no_mobile_viewport: true,
  legacy_site_tech: true,
  stale_copyright: true,
  last_media_year: null,
  stale_content: false,
  no_french_version: true,
  not_mobile_friendly: true,
  outdated_website: true,
  no_https: true,
  site_unreachable: false,
  parked_domain: false,
  social_profile_only: false,
};
const OLD_SITE_EVIDENCE: AuditEvidence = {
  viewport: null,
  jquery_version: "1.8.3",
  legacy_tags: ["<center>", "<font>"],
  table_layout: "fixed-width layout table: <table width=900>",
  copyright_text: "© 2013 Plomberie Vanier",
  copyright_year: 2013,
  canadian_by: "address",
  final_url: "http://www.plomberie-vanier-et-fils.example/",
  https_result: "connection_refused",
  email_page_url: "http://www.plomberie-vanier-et-fils.example/",
  email_found_in: ["mailto"],
};

/** The leads: long French and English names and categories, every status, audited or not. */
const LEADS = [
  {
    name: "Plomberie Vanier et Fils",
    category: "Plombier",
    website: "http://www.plomberie-vanier-et-fils.example/",
    email: "info@plomberie-vanier-et-fils.example",
    status: "new",
  },
  {
    name: "Électricité Beauregard-Lévesque",
    category: "Électricien",
    website: null,
    email: null,
    status: "skipped",
  },
  {
    name: "Rénovations Montmartre",
    category: "Entrepreneur en rénovation",
    website: "https://renovations-montmartre.example/",
    email: "bonjour@renovations-montmartre.example",
    status: "drafted",
  },
  {
    name: "Westboro Waterproofing Specialists",
    category: "Waterproofing service",
    website: "https://westboro-waterproofing.example/",
    email: null,
    status: "sent",
  },
] as const;

beforeAll(async () => {
  browser = await launchBrowser();
  t = await startHttpTestApp({ RATE_LIMIT_READ_PER_MIN: "1000" });
  workspace = await createWorkspace(t.app, { name: "Atelier Pixel & Pin" });
  const db = t.database.db;
  const ids = await seedLeads(
    db,
    workspace.workspaceId,
    LEADS.map((lead, index) => ({
      place_id: `words-${index}`,
      name: lead.name,
      category: lead.category,
      address: `${120 + index} rue Saint-Patrick, Ottawa (Ontario) K1N 5K3, Canada`,
      website: lead.website,
      country: "CA",
      user_rating_count: 4 + index * 30,
    })),
    (index) => new Date(Date.parse("2026-11-20T14:00:00Z") - index * 3_600_000),
  );
  for (const [index, lead] of LEADS.entries()) {
    const id = ids[index] ?? "";
    leadIds.set(lead.name, id);
    await db.updateTable("leads").set({ outreach_status: lead.status }).where("id", "=", id).execute();
    if (lead.website === null || index === 3) continue;
    await saveAudit(db, {
      place_id: `words-${index}`,
      url: lead.website,
      outcome: "ok",
      failure: null,
      signals:
        index === 0
          ? { ...OLD_SITE_SIGNALS, email: lead.email, email_status: "undeliverable" }
          : { ...UNKNOWN_SIGNALS, no_mobile_viewport: false, not_mobile_friendly: false, email: lead.email },
      evidence:
        index === 0
          ? { ...OLD_SITE_EVIDENCE, email_status_reason: "not_public" }
          : { viewport: "width=device-width, initial-scale=1", email_page_url: lead.website },
      audited_at: new Date("2026-11-20T13:00:00Z"),
    });
  }
  // The other tables: keys, members, the credit history, the do-not-contact list.
  await adminRequest(t.app, "POST", `/admin/workspaces/${workspace.workspaceId}/credit-purchases`, {
    credits: 500,
  });
  for (const entry of [
    {
      email: "proprietaire@toitures-gagnon-et-associes.example",
      reason: "Demandé au téléphone le 12 novembre",
    },
    { domain: "quincaillerie-beaubien.example", reason: "Client existant" },
  ]) {
    await adminRequest(t.app, "POST", `/admin/workspaces/${workspace.workspaceId}/suppressions`, entry);
  }
  await adminRequest(t.app, "POST", `/admin/workspaces/${workspace.workspaceId}/members`, {
    email: "genevieve.beauregard-levesque@atelier-pixel-pin.example",
  });
  // A pending invite: the members page's second table.
  await adminRequest(t.app, "POST", `/admin/workspaces/${workspace.workspaceId}/invites`, {
    email: "maximilien.desrochers-thibodeau@renovations-montmartre.example",
  });

  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(15_000);
  page = await context.newPage();
  await joinByInvite(page, t, workspace.workspaceId, {
    email: "camille@atelier-pixel-pin.example",
    name: "Camille Martin-Beauregard",
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const path = (rest: string) => `${t.baseUrl}/app/w/${workspace.workspaceId}/${rest}`;
const TABLE_PAGES = ["leads", "leads?sort=score", "suppressions", "keys", "members", "credits"];

/** Every table page at each width: the words broken, by page and width. */
async function brokenWordsEverywhere(): Promise<string[]> {
  const found: string[] = [];
  for (const pagePath of TABLE_PAGES) {
    await page.goto(path(pagePath));
    expect(await page.locator("main table").count(), pagePath).toBeGreaterThan(0);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const broken = (await page.evaluate(BROKEN_WORDS)) as string[];
      found.push(...broken.map((word) => `${pagePath} at ${width} px: ${word}`));
      // Words kept whole by a table wider than the page would only move the problem sideways.
      if (await page.evaluate(TABLE_SCROLLS_SIDEWAYS))
        found.push(`${pagePath} at ${width} px: scrolls sideways`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  return found;
}

async function setLanguage(language: "en" | "fr"): Promise<void> {
  await page.goto(`${t.baseUrl}/app/account`);
  await page.locator("#account-language").selectOption(language);
  await page.locator("form:has(#account-language) button[type=submit]").click();
  await page.waitForLoadState();
  expect(await page.getAttribute("html", "lang")).toBe(language);
}

describe("tables in Chromium", () => {
  it("break no word at 375, 768 and 1280 px, in English", async () => {
    expect(await brokenWordsEverywhere()).toEqual([]);
  });

  it("photographs the leads sorted by score, and the lead's score, reasons and address status, in English", async () => {
    await page.goto(path("leads?sort=score"));
    const names = await page.locator("tbody tr td:nth-child(2) a").allTextContents();
    expect(names[0]).toBe("Plomberie Vanier et Fils");
    await checkConsolePage(page, "leads-score");
    await page.goto(path(`leads/${leadIds.get("Plomberie Vanier et Fils")}`));
    expect(await page.locator("#opportunity-title").textContent()).toMatch(
      /^Opportunity: \d+\/100 · (High|Medium)$/,
    );
    expect(await page.locator("#opportunity li").count()).toBeGreaterThanOrEqual(4);
    expect(await page.locator("#email-status-reason").textContent()).toContain(
      "not a domain of the public internet",
    );
    await checkConsolePage(page, "lead-score");
  });

  it("keeps a refused do-not-contact entry in the form, with the reason beside it", async () => {
    await page.goto(path("suppressions"));
    await page.locator("#suppression-value").fill("proprietaire@");
    await page.locator("#suppression-reason").fill("Demandé par courriel");
    await page.locator("form:has(#suppression-value) button[type=submit]").click();
    await expect.poll(() => page.locator("#suppression-value-error").count()).toBe(1);
    expect(await page.locator("#suppression-value").inputValue()).toBe("proprietaire@");
    expect(await page.locator("#suppression-reason").inputValue()).toBe("Demandé par courriel");
    expect(await page.locator("#suppression-value").getAttribute("aria-describedby")).toBe(
      "suppression-value-error",
    );
    await checkConsolePage(page, "suppressions-refused");
  });

  it("break no word at 375, 768 and 1280 px in French, where every : ; ? ! has its no-break space", async () => {
    await setLanguage("fr");
    expect(await brokenWordsEverywhere()).toEqual([]);
    const pages = [
      ...TABLE_PAGES,
      "",
      "search",
      "settings",
      `leads/${leadIds.get("Plomberie Vanier et Fils")}`,
    ];
    for (const pagePath of pages) {
      await page.goto(path(pagePath));
      expect(await page.evaluate(BARE_FRENCH_MARKS), pagePath).toEqual([]);
    }
    await page.goto(`${t.baseUrl}/app/account`);
    expect(await page.evaluate(BARE_FRENCH_MARKS), "account").toEqual([]);
  });

  it("photographs the lead's score, reasons and address status in French", async () => {
    await page.goto(path(`leads/${leadIds.get("Plomberie Vanier et Fils")}`));
    expect(await page.locator("#opportunity-title").textContent()).toMatch(/^Potentiel\u00a0: \d+\/100 · /);
    expect(await page.locator("#email-status-reason").textContent()).toContain(
      "n'est pas un domaine de l'internet public",
    );
    await checkConsolePage(page, "lead-score-fr");
    await page.goto(path("leads?sort=score"));
    await checkConsolePage(page, "leads-score-fr");
  });
});
