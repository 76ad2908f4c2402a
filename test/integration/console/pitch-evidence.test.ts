/**
 * The console shows the pitch facts with their evidence (DESIGN "Pitch facts"), in English and in
 * French: a site down at two attempts (a failed audit), a parked domain, a social profile, a site
 * without https and one whose certificate is invalid (a failed audit too). Audits are stored as the
 * audit stack stores them (saveAudit); the pages are read by a signed-in member.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import { type SiteAudit, UNKNOWN_SIGNALS } from "../../../shared/audit/types.ts";
import { createWorkspace, startTestApp, type TestApp, type TestWorkspace } from "../../support/app.ts";
import { type ConsoleBrowser, signedUpMember } from "../../support/console.ts";
import { seedLeads } from "../../support/seed.ts";

let t: TestApp;
let workspace: TestWorkspace;
let browser: ConsoleBrowser;
const leadIds: Record<string, string> = {};

const audit = (placeId: string, website: string, audit: Partial<SiteAudit>): SiteAudit => ({
  place_id: placeId,
  url: website,
  outcome: "ok",
  failure: null,
  signals: { ...UNKNOWN_SIGNALS },
  evidence: {},
  audited_at: new Date("2026-11-20T10:00:00Z"),
  ...audit,
});

const WEBSITES = {
  down: "https://down.example/",
  parked: "https://parked.example/",
  social: "https://www.facebook.com/shop",
  insecure: "http://insecure.example/",
  badcert: "https://badcert.example/",
};

beforeAll(async () => {
  t = await startTestApp();
  workspace = await createWorkspace(t.app, { name: "Pitch agency" });
  const ids = await seedLeads(
    t.database.db,
    workspace.workspaceId,
    Object.entries(WEBSITES).map(([key, website]) => ({ place_id: `pitch-${key}`, website })),
  );
  for (const [index, key] of Object.keys(WEBSITES).entries()) leadIds[key] = ids[index]!;
  const db = t.database.db;
  await saveAudit(
    db,
    audit("pitch-down", WEBSITES.down, {
      outcome: "failed",
      failure: "site_unreachable",
      signals: { ...UNKNOWN_SIGNALS, site_unreachable: true },
      evidence: {
        attempts: [
          { at: "2026-11-20T10:00:00.000Z", result: "http_503" },
          { at: "2026-11-20T10:00:05.000Z", result: "connection_refused" },
        ],
      },
    }),
  );
  await saveAudit(
    db,
    audit("pitch-parked", WEBSITES.parked, {
      signals: { ...UNKNOWN_SIGNALS, parked_domain: true, site_unreachable: false, no_https: false },
      evidence: { parking_marker: "parking service sedoparking.com" },
    }),
  );
  await saveAudit(
    db,
    audit("pitch-social", WEBSITES.social, {
      signals: { ...UNKNOWN_SIGNALS, social_profile_only: true },
      evidence: { social_profile_host: "www.facebook.com", social_platform: "Facebook" },
    }),
  );
  await saveAudit(
    db,
    audit("pitch-insecure", WEBSITES.insecure, {
      signals: { ...UNKNOWN_SIGNALS, no_https: true, site_unreachable: false, parked_domain: false },
      evidence: {
        final_url: WEBSITES.insecure,
        https_result: "connection_failed (ECONNREFUSED)",
        certificate_problem: null,
      },
    }),
  );
  await saveAudit(
    db,
    audit("pitch-badcert", WEBSITES.badcert, {
      outcome: "failed",
      failure: "tls_failed",
      signals: { ...UNKNOWN_SIGNALS, no_https: true },
      evidence: { final_url: WEBSITES.badcert, https_result: "tls_failed", certificate_problem: "expired" },
    }),
  );
  const member = await t.app.inject({
    method: "GET",
    url: `/admin/workspaces/${workspace.workspaceId}/api-keys`,
    headers: { authorization: "Bearer test-admin-token-0123456789" },
  });
  const email = (member.json() as { api_keys: { created_by_email: string }[] }).api_keys[0]!.created_by_email;
  browser = await signedUpMember(t.app, workspace.workspaceId, email, "Pitch Member");
});
afterAll(async () => {
  await t?.close();
});

const leadPage = (key: keyof typeof WEBSITES) =>
  browser.get(`/app/w/${workspace.workspaceId}/leads/${leadIds[key]}`);

describe("the console shows the pitch facts with their evidence", () => {
  it("on each lead's page, in English", async () => {
    const down = (await leadPage("down")).body;
    expect(down).toContain('<span class="flag">Site down</span>');
    expect(down).toMatch(
      /<dt>Attempts<\/dt><dd>HTTP error 503 \([^)]+\), connection refused \([^)]+\)<\/dd>/,
    );

    const parked = (await leadPage("parked")).body;
    expect(parked).toContain('<span class="flag">Parked domain</span>');
    expect(parked).toContain("<dt>Parking page</dt><dd>parking service sedoparking.com</dd>");

    const social = (await leadPage("social")).body;
    expect(social).toContain('<span class="flag">Social profile only</span>');
    expect(social).toContain("<dt>Profile</dt><dd>Facebook (www.facebook.com)</dd>");

    const insecure = (await leadPage("insecure")).body;
    expect(insecure).toContain('<span class="flag">Not secure (no HTTPS)</span>');
    expect(insecure).toContain(
      `<dt>https</dt><dd>${WEBSITES.insecure} · connection failed (ECONNREFUSED)</dd>`,
    );

    const badcert = (await leadPage("badcert")).body;
    expect(badcert).toContain(`<dt>https</dt><dd>${WEBSITES.badcert} · invalid certificate (expired)</dd>`);
  });

  it("in the lead list, and in French", async () => {
    const list = (await browser.get(`/app/w/${workspace.workspaceId}/leads`)).body;
    for (const flag of ["Site down", "Parked domain", "Social profile only", "Not secure (no HTTPS)"]) {
      expect(list).toContain(`<span class="flag">${flag}</span>`);
    }
    await browser.submit("/app/account", "/app/account/profile", { name: "Pitch Member", language: "fr" });
    const french = (await leadPage("down")).body;
    expect(french).toContain('<html lang="fr">');
    expect(french).toContain('<span class="flag">Site hors service</span>');
    expect(french).toMatch(/<dt>Tentatives<\/dt><dd>erreur HTTP 503 /);
    expect((await leadPage("badcert")).body).toContain("certificat invalide (expiré)");
    expect((await leadPage("parked")).body).toContain("<dt>Page de parking</dt>");
  });
});
