/**
 * The lead page built around sending, and drafting several leads from the list (issue 30), in
 * Chromium over real HTTP: the latest draft at the top with "Copy" and a mailto: link filled with
 * the address, subject and body; the warnings before drafting a lead with no address, an
 * undeliverable one or a refusal of solicitation; five leads drafted from the list, the balance
 * read before and after (and a second batch that stops at the first lead the balance cannot pay).
 * Pages checked with axe at desktop and 375 px; screenshots in docs/console/ (UPDATE_SCREENSHOTS=1
 * rewrites them).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import type { AuditSignals } from "../../../shared/audit/types.ts";
import { adminRequest, createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { seriousViolations } from "../../support/axe.ts";
import { launchBrowser } from "../../support/browser.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { joinByInvite } from "../../support/page-check.ts";
import { seedLeads } from "../../support/seed.ts";

const SCREENSHOTS = fileURLToPath(new URL("../../../docs/console/", import.meta.url));

let browser: Browser;
let t: HttpTestApp;
let workspace: TestWorkspace;
let owner: BrowserContext;
let page: Page;
const leadIds = new Map<string, string>();

const SIGNALS: AuditSignals = {
  no_mobile_viewport: true,
  legacy_site_tech: false,
  stale_copyright: true,
  last_media_year: null,
  stale_content: false,
  no_french_version: false,
  not_mobile_friendly: true,
  outdated_website: true,
};

/** name -> what its homepage said about the address. */
const LEADS: Record<string, Partial<AuditSignals>> = {
  "Glebe Pipe & Drain": { email: "info@glebe-pipe.example", email_status: "deliverable" },
  "Vanier Bakery": {},
  "Bounce Plumbing": { email: "hello@bounce-plumbing.example", email_status: "undeliverable" },
  "Quiet Roofing": {
    email: "office@quiet-roofing.example",
    email_status: "deliverable",
    solicitation_refused: true,
  },
  "Kanata Leak Stoppers": { email: "info@kanata-leak.example", email_status: "deliverable" },
  "Westboro Water Works": { email: "info@westboro-water.example", email_status: "deliverable" },
  "Hintonburg Sourdough": { email: "bonjour@hintonburg.example", email_status: "deliverable" },
  "Sandy Hill Bagels": { email: "info@sandy-hill.example", email_status: "deliverable" },
};

async function screenshot(target: Page, file: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS === "1")
    await target.screenshot({ path: `${SCREENSHOTS}${file}`, fullPage: true });
  expect(existsSync(`${SCREENSHOTS}${file}`), `${file}: run with UPDATE_SCREENSHOTS=1`).toBe(true);
}

/** axe at desktop and 375 px, nothing scrolling sideways, and the two screenshots. */
async function checkPage(target: Page, name: string): Promise<void> {
  expect(await seriousViolations(target), `axe on ${name}`).toEqual([]);
  await screenshot(target, `${name}-desktop.png`);
  await target.setViewportSize({ width: 375, height: 812 });
  expect(await seriousViolations(target), `axe on ${name} at 375 px`).toEqual([]);
  const wide = await target.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1");
  expect(wide, `${name} scrolls sideways at 375 px`).toBe(false);
  await screenshot(target, `${name}-375.png`);
  await target.setViewportSize({ width: 1280, height: 800 });
}

async function balance(): Promise<number> {
  const response = await fetch(`${t.baseUrl}/v1/credits`, { headers: workspace.auth });
  return ((await response.json()) as { balance: number }).balance;
}

async function draftCount(): Promise<number> {
  const row = await t.database.db
    .selectFrom("drafts")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("workspace_id", "=", workspace.workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const leadUrl = (name: string) => `${t.baseUrl}/app/w/${workspace.workspaceId}/leads/${leadIds.get(name)}`;

beforeAll(async () => {
  browser = await launchBrowser();
  t = await startHttpTestApp({ RATE_LIMIT_READ_PER_MIN: "1000" });
  workspace = await createWorkspace(t.app, { name: "Pixel & Pine" });
  await adminRequest(t.app, "PATCH", `/admin/workspaces/${workspace.workspaceId}`, {
    sender_name: "Claire Dubois",
    sender_company: "Pixel & Pine Studio",
    offer_en: "Websites for local trades, live in two weeks",
    offer_fr: "Des sites web pour les artisans, en ligne en deux semaines",
    postal_address: "215 Bank Street\nOttawa ON K2P 1W8",
  });
  await adminRequest(t.app, "POST", `/admin/workspaces/${workspace.workspaceId}/credit-purchases`, {
    credits: 90,
  });
  const names = Object.keys(LEADS);
  const base = Date.parse("2026-11-02T14:00:00.000Z");
  const ids = await seedLeads(
    t.database.db,
    workspace.workspaceId,
    names.map((name, index) => ({
      place_id: `sending-${index}`,
      name,
      category: "Plumber",
      address: `${100 + index} Bank St, Ottawa, ON K2P 1Y4, Canada`,
      website: `https://sending-${index}.example`,
      country: "CA",
    })),
    (index) => new Date(base - index * 60_000),
  );
  for (const [index, name] of names.entries()) {
    leadIds.set(name, ids[index] ?? "");
    await saveAudit(t.database.db, {
      place_id: `sending-${index}`,
      url: `https://sending-${index}.example`,
      outcome: "ok",
      failure: null,
      signals: { ...SIGNALS, ...LEADS[name] },
      evidence: { viewport: null, copyright_text: "© 2016", copyright_year: 2016 },
      audited_at: new Date(),
    });
  }
  owner = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await owner.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.baseUrl });
  owner.setDefaultTimeout(20_000);
  page = await owner.newPage();
  await joinByInvite(page, t, workspace.workspaceId, {
    email: "claire@pixel-pine.test",
    name: "Claire Dubois",
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe("the lead page, built around sending", () => {
  it("puts the latest draft on top: Copy puts the email on the clipboard, the mailto link carries address, subject and body", async () => {
    await page.goto(leadUrl("Glebe Pipe & Drain"));
    // A lead with a deliverable address and no refusal: no warning, no box to tick.
    expect(await page.locator("#draft-warnings").count()).toBe(0);
    const before = await balance();
    await page.getByRole("button", { name: /Write a draft/ }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Draft written: 1 credit spent.");
    expect(await balance()).toBe(before - 1);

    // The latest draft comes before what is known about the lead.
    const order = await page.evaluate(
      `Boolean(document.getElementById("latest-draft-title").compareDocumentPosition(document.querySelector("dl.facts")) & 4)`,
    );
    expect(order).toBe(true);
    const subject = (await page.locator("#latest-subject").textContent()) ?? "";
    const body = (await page.locator("#latest-body").textContent()) ?? "";
    expect(subject).toContain("Glebe Pipe & Drain");
    expect(body).toContain("in Ottawa");
    expect(body).toContain("Websites for local trades, live in two weeks");

    await page.getByRole("button", { name: "Copy the email" }).click();
    await expect.poll(() => page.evaluate("navigator.clipboard.readText()")).toBe(body.trim());
    await page.getByRole("button", { name: "Copy the subject" }).click();
    await expect.poll(() => page.evaluate("navigator.clipboard.readText()")).toBe(subject);

    const href = (await page.locator("#latest-mailto").getAttribute("href")) ?? "";
    expect(await page.locator("#latest-mailto").textContent()).toContain("info@glebe-pipe.example");
    const mailto = new URL(href);
    expect(mailto.protocol).toBe("mailto:");
    expect(decodeURIComponent(mailto.pathname)).toBe("info@glebe-pipe.example");
    expect(decodeURIComponent(href.match(/[?&]subject=([^&]*)/)?.[1] ?? "")).toBe(subject);
    // RFC 6068: line breaks as CRLF; the body arrives whole.
    expect(decodeURIComponent(href.match(/[?&]body=([^&]*)/)?.[1] ?? "")).toBe(body.replace(/\n/g, "\r\n"));
    await checkPage(page, "lead-sending");
  });

  it("warns before drafting a lead with no address, an undeliverable one or a refusal of solicitation", async () => {
    const cases: [string, RegExp][] = [
      ["Vanier Bakery", /No email address is known for this business/],
      ["Bounce Plumbing", /hello@bounce-plumbing\.example cannot receive mail/],
      ["Quiet Roofing", /does not want unsolicited|refuses unsolicited|unsolicited/i],
    ];
    for (const [name, warning] of cases) {
      await page.goto(leadUrl(name));
      expect(await page.locator("#draft-warnings").textContent(), name).toMatch(warning);
      // The box is required: the button alone drafts nothing.
      const drafts = await draftCount();
      await page.getByRole("button", { name: /Write a draft/ }).click();
      expect(await page.locator("#draft-warnings").count()).toBe(1);
      expect(await draftCount()).toBe(drafts);
    }
    await checkPage(page, "lead-warning");
    // Ticked, it drafts as usual.
    await page.getByLabel(/draft it anyway/).check();
    await page.getByRole("button", { name: /Write a draft/ }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Draft written: 1 credit spent.");
    // No address: the draft can be copied, and there is no mailto link to follow.
    await page.goto(leadUrl("Vanier Bakery"));
    await page.getByLabel(/draft it anyway/).check();
    await page.getByRole("button", { name: /Write a draft/ }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Draft written: 1 credit spent.");
    expect(await page.locator("#latest-mailto").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Copy the email" }).count()).toBe(1);
  });
});

describe("drafting several leads from the list", () => {
  const batch = [
    "Kanata Leak Stoppers",
    "Westboro Water Works",
    "Hintonburg Sourdough",
    "Sandy Hill Bagels",
    "Bounce Plumbing",
  ];

  it("drafts 5 ticked leads, one credit each, the balance read before and after", async () => {
    await page.goto(`${t.baseUrl}/app/w/${workspace.workspaceId}/leads`);
    const before = await balance();
    const drafts = await draftCount();
    for (const name of batch) await page.getByLabel(`Select ${name}`).check();
    await page.getByRole("button", { name: "Draft the selected leads" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("5 of 5 leads drafted.");
    expect(await page.locator('#bulk-report li[data-outcome="drafted"]').count()).toBe(5);
    expect(await balance()).toBe(before - 5);
    expect(await draftCount()).toBe(drafts + 5);
    await checkPage(page, "leads-bulk-draft");
  });

  it("stops at the first lead the balance cannot pay for, charging nothing more", async () => {
    await t.database.db
      .updateTable("workspaces")
      .set({ balance: 2 })
      .where("id", "=", workspace.workspaceId)
      .execute();
    await page.goto(`${t.baseUrl}/app/w/${workspace.workspaceId}/leads`);
    const drafts = await draftCount();
    for (const name of batch.slice(0, 4)) await page.getByLabel(`Select ${name}`).check();
    await page.getByRole("button", { name: "Draft the selected leads" }).click();
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("2 of 4 leads drafted.");
    const outcomes = await page
      .locator("#bulk-report li")
      .evaluateAll((items) => items.map((item) => item.getAttribute("data-outcome")));
    expect(outcomes).toEqual(["drafted", "drafted", "stopped", "not_reached"]);
    expect(await balance()).toBe(0);
    expect(await draftCount()).toBe(drafts + 2);
  });
});
