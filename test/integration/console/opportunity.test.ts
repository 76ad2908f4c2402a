/**
 * The opportunity score in the console (DESIGN "Opportunity score"): the score and its reasons in
 * words on the lead page, in English and in French, "not checked" shown as such; the score and tier
 * in the leads list, which sorts by score; the CSV's opportunity_score and opportunity_tier.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import { UNKNOWN_SIGNALS } from "../../../shared/audit/types.ts";
import { createWorkspace, startTestApp, type TestApp, type TestWorkspace } from "../../support/app.ts";
import { type ConsoleBrowser, signedUpMember } from "../../support/console.ts";
import { seedLeads } from "../../support/seed.ts";

let t: TestApp;
let workspace: TestWorkspace;
let browser: ConsoleBrowser;
let ids: Record<"old" | "none" | "unaudited", string>;

beforeAll(async () => {
  t = await startTestApp();
  workspace = await createWorkspace(t.app, { name: "Score agency" });
  const base = Date.parse("2026-11-01T12:00:00.000Z");
  // Oldest first in the list's newest-first order: unaudited, none, old.
  const [old, none, unaudited] = await seedLeads(
    t.database.db,
    workspace.workspaceId,
    [
      { place_id: "score-old", name: "Plomberie Tremblay", website: "https://old.example/", country: "CA" },
      { place_id: "score-none", name: "Toitures Gagnon", website: null, country: "CA" },
      { place_id: "score-unaudited", name: "Vitres Roy", website: "https://roy.example/", country: "CA" },
    ],
    (index) => new Date(base + index * 60_000),
  );
  ids = { old: old!, none: none!, unaudited: unaudited! };
  await saveAudit(t.database.db, {
    place_id: "score-old",
    url: "https://old.example/",
    outcome: "ok",
    failure: null,
    signals: {
      ...UNKNOWN_SIGNALS,
      no_mobile_viewport: true,
      legacy_site_tech: true,
      stale_copyright: true,
      last_media_year: null,
      stale_content: false,
      no_french_version: true,
      not_mobile_friendly: true,
      outdated_website: true,
      no_https: false,
      site_unreachable: false,
      parked_domain: false,
      social_profile_only: false,
    },
    evidence: {},
    audited_at: new Date(),
  });
  const keys = await t.app.inject({
    url: `/admin/workspaces/${workspace.workspaceId}/api-keys`,
    headers: { authorization: "Bearer test-admin-token-0123456789" },
  });
  const email = (keys.json() as { api_keys: { created_by_email: string }[] }).api_keys[0]!.created_by_email;
  browser = await signedUpMember(t.app, workspace.workspaceId, email, "Score Member");
});
afterAll(async () => {
  await t?.close();
});

const path = (rest: string) => `/app/w/${workspace.workspaceId}/${rest}`;
/** The page's text with tags and line breaks as single spaces. */
const textOf = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/[^\S\u00a0]+/g, " ");

describe("the opportunity score in the console", () => {
  it("on the lead page: the score, the tier and each reason in words, in English", async () => {
    const old = textOf((await browser.get(path(`leads/${ids.old}`))).body);
    expect(old).toContain("Opportunity: 50/100 · Medium");
    for (const reason of [
      "no mobile viewport: +20",
      "old web technology: +10",
      "old copyright year: +10",
      "no French version: +10",
    ]) {
      expect(old).toContain(reason);
    }
    expect(old).toContain("Checked: 100% of the points");
    expect(old).not.toContain("Not checked:");

    // Never checked: shown as not checked, dimension by dimension, never as fine or low.
    const unaudited = textOf((await browser.get(path(`leads/${ids.unaudited}`))).body);
    expect(unaudited).toContain("Opportunity: 0/100 · Not checked");
    expect(unaudited).toContain(
      "Not checked: web presence, security (HTTPS), phones, web technology, fresh content, French version",
    );
    expect(unaudited).toContain("Checked: 9% of the points");
  });

  it("in the leads list, newest first by default, sorted by score on request", async () => {
    const newest = (await browser.get(path("leads"))).body;
    const order = (html: string) =>
      ["Plomberie Tremblay", "Toitures Gagnon", "Vitres Roy"].sort(
        (a, b) => html.indexOf(a) - html.indexOf(b),
      );
    expect(order(newest)).toEqual(["Vitres Roy", "Toitures Gagnon", "Plomberie Tremblay"]);
    expect(textOf(newest)).toContain("50 Medium");
    expect(textOf(newest)).toContain("0 Not checked");
    const byScore = await browser.get(path("leads?sort=score"));
    expect(byScore.statusCode).toBe(200);
    expect(order(byScore.body)).toEqual(["Plomberie Tremblay", "Toitures Gagnon", "Vitres Roy"]);
    expect(byScore.body).toContain('<option value="score" selected>');
    // The status filter and the sort together; a bad page number is the first page.
    const filtered = await browser.get(path("leads?sort=score&status=new&page=x"));
    expect(order(filtered.body)).toEqual(["Plomberie Tremblay", "Toitures Gagnon", "Vitres Roy"]);
  });

  it("in the CSV: opportunity_score and opportunity_tier", async () => {
    const csv = (await browser.get(path("leads.csv"))).body.trim().split("\r\n");
    const header = csv[0]!.split(",");
    const score = header.indexOf("opportunity_score");
    const tier = header.indexOf("opportunity_tier");
    expect(score).toBeGreaterThan(0);
    expect(tier).toBe(score + 1);
    const byName = new Map(
      csv.slice(1).map((line) => {
        const cells = line.split(",");
        return [cells[1], [cells[score], cells[tier]]];
      }),
    );
    expect(byName.get("Plomberie Tremblay")).toEqual(["50", "medium"]);
    expect(byName.get("Toitures Gagnon")).toEqual(["40", "medium"]);
    expect(byName.get("Vitres Roy")).toEqual(["0", "unchecked"]);
  });

  it("in French: the reasons and what was not checked in words", async () => {
    await browser.submit("/app/account", "/app/account/profile", { name: "Score Member", language: "fr" });
    const old = textOf((await browser.get(path(`leads/${ids.old}`))).body);
    expect(old).toContain("Potentiel\u00a0: 50/100 · Moyen");
    expect(old).toContain("pas de réglage pour mobile\u00a0: +20");
    expect(old).toContain("pas de version française\u00a0: +10");
    const unaudited = textOf((await browser.get(path(`leads/${ids.unaudited}`))).body);
    expect(unaudited).toContain("Non vérifié\u00a0: présence en ligne, sécurité (HTTPS), téléphones");
    const list = textOf((await browser.get(path("leads?sort=score"))).body);
    expect(list).toContain("50 Moyen");
    expect(list).toContain("0 Non vérifié");
  });
});
