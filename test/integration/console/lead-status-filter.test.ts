// The leads page's status filter, read in the statement (issue 27 item 4): every status, walked
// page by page, lists exactly the leads the unfiltered list shows with that status, newest first,
// every page full but the last, none skipped or repeated; the do-not-contact list (by place, by
// website domain, by the address the audit found, by that address's domain) decides `skipped`
// whatever is stored, and removing an entry gives the stored status back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import type { OutreachStatus } from "../../../shared/db/schema.ts";
import { adminRequest, createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { type ConsoleBrowser, signedUpMember } from "../../support/console.ts";
import { RICH_EVIDENCE, RICH_SIGNALS } from "../../support/drafting.ts";
import { seedLeads } from "../../support/seed.ts";

let harness: TestApp;
beforeAll(async () => {
  harness = await startTestApp();
});
afterAll(async () => harness?.close());

const PAGE = 25;
const STATUSES: OutreachStatus[] = ["new", "drafted", "sent", "skipped"];
const STORED: OutreachStatus[] = ["new", "drafted", "sent", "skipped", "drafted", "sent", "new"];

/** The business names a leads page lists, in its order. */
const namesOn = (body: string) =>
  [...body.matchAll(/data-label="Business"><a [^>]+>([^<]+)</g)].map((match) => match[1] ?? "");
const nextLink = (body: string) =>
  /href="([^"]+cursor=[^"]+)"/.exec(body)?.[1]?.replaceAll("&amp;", "&") ?? null;

/** Every page of the list (filtered or not), following its next links. */
async function walk(browser: ConsoleBrowser, firstPath: string): Promise<string[][]> {
  const pages: string[][] = [];
  let path: string | null = firstPath;
  while (path !== null) {
    const page = await browser.get(path);
    expect(page.statusCode).toBe(200);
    pages.push(namesOn(page.body));
    path = nextLink(page.body);
    expect(pages.length, "the walk ends").toBeLessThan(20);
  }
  return pages;
}

describe("the leads page's status filter", () => {
  it("lists, page by page, exactly the leads that read the status, suppressed ones as skipped", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Filter Agency" });
    const base = Date.parse("2026-03-01T00:00:00.000Z");
    // 140 leads: every fourteenth (stored sent) on a subdomain of maple-filter.ca, the others on their own site.
    const places = Array.from({ length: 140 }, (_, index) => ({
      place_id: `filter-${index}`,
      name: `Filter ${String(index).padStart(3, "0")}`,
      website: index % 14 === 2 ? `https://shop${index}.maple-filter.ca/` : `https://filter-${index}.ca/`,
    }));
    const ids = await seedLeads(
      harness.database.db,
      workspace.workspaceId,
      places,
      (index) => new Date(base + index * 1000),
    );
    for (const [index, id] of ids.entries()) {
      const status = STORED[index % STORED.length] ?? "new";
      if (status !== "new") {
        await harness.database.db
          .updateTable("leads")
          .set({ outreach_status: status })
          .where("id", "=", id)
          .execute();
      }
    }
    // Addresses the audits found: one listed itself, and a few at a listed domain.
    for (const index of [10, 11, 12, 40, 41, 90]) {
      await saveAudit(harness.database.db, {
        place_id: `filter-${index}`,
        url: `https://filter-${index}.ca/`,
        outcome: "ok",
        failure: null,
        signals: {
          ...RICH_SIGNALS,
          email: index === 90 ? "owner@filter-90.ca" : `info${index}@listed-mail.ca`,
        },
        evidence: RICH_EVIDENCE,
        audited_at: new Date(),
      });
    }
    const entries = [
      { place_id: "filter-1" },
      { place_id: "filter-2" },
      { place_id: "filter-100" },
      { domain: "maple-filter.ca" },
      { domain: "listed-mail.ca" },
      { email: "owner@filter-90.ca" },
    ];
    for (const entry of entries) {
      const added = await adminRequest(
        harness.app,
        "POST",
        `/admin/workspaces/${workspace.workspaceId}/suppressions`,
        entry,
      );
      expect(added.statusCode, JSON.stringify(entry)).toBeLessThan(300);
    }

    const browser = await signedUpMember(harness.app, workspace.workspaceId, "filter@agency.test");
    const leadsPath = `/app/w/${workspace.workspaceId}/leads`;
    // What each lead reads, from the API (the same statuses as the unfiltered page), newest first.
    const reads: { name: string; status: OutreachStatus }[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? "limit=100" : `limit=100&cursor=${encodeURIComponent(cursor)}`;
      const answer = await harness.app.inject({ url: `/v1/leads?${query}`, headers: workspace.auth });
      const body = answer.json() as {
        leads: { name: string; outreach_status: OutreachStatus }[];
        next_cursor: string | null;
      };
      reads.push(...body.leads.map((lead) => ({ name: lead.name, status: lead.outreach_status })));
      cursor = body.next_cursor;
    } while (cursor !== null);
    expect(reads).toHaveLength(140);
    // The list decides: every subdomain site, every listed address and listed place reads skipped.
    const skippedNames = reads.filter((lead) => lead.status === "skipped").map((lead) => lead.name);
    for (const index of [1, 2, 10, 11, 12, 16, 40, 41, 44, 90, 100, 128]) {
      expect(skippedNames, `Filter ${index}`).toContain(`Filter ${String(index).padStart(3, "0")}`);
    }
    expect((await walk(browser, leadsPath)).flat()).toEqual(reads.map((lead) => lead.name));

    for (const status of STATUSES) {
      const expected = reads.filter((lead) => lead.status === status).map((lead) => lead.name);
      expect(expected.length, status).toBeGreaterThan(PAGE);
      const pages = await walk(browser, `${leadsPath}?status=${status}`);
      expect(pages.flat(), status).toEqual(expected);
      // Every page is full but the last, which is not empty.
      expect(
        pages.slice(0, -1).every((names) => names.length === PAGE),
        status,
      ).toBe(true);
      expect(pages.at(-1)?.length, status).toBe(expected.length - PAGE * (pages.length - 1));
      expect(pages.at(-1)?.length, status).toBeGreaterThan(0);
    }

    // Removing an entry gives the stored status back: filter-16's site is no longer covered.
    const listed = await adminRequest(
      harness.app,
      "GET",
      `/admin/workspaces/${workspace.workspaceId}/suppressions`,
    );
    const domainEntry = (
      listed.json() as { suppressions: { id: string; value: string }[] }
    ).suppressions.find((entry) => entry.value === "maple-filter.ca");
    expect(domainEntry).toBeDefined();
    const removed = await adminRequest(
      harness.app,
      "DELETE",
      `/admin/workspaces/${workspace.workspaceId}/suppressions/${domainEntry?.id}`,
    );
    expect(removed.statusCode).toBeLessThan(300);
    const sent = (await walk(browser, `${leadsPath}?status=sent`)).flat();
    const skipped = (await walk(browser, `${leadsPath}?status=skipped`)).flat();
    // filter-16 is stored as sent and reads it again; filter-10 stays skipped (its address is listed).
    expect(sent).toContain("Filter 016");
    expect(skipped).not.toContain("Filter 016");
    expect(skipped).toContain("Filter 010");
  });
});
