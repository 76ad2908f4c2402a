/**
 * Lawful outreach in the console: the postal address in settings ends the drafts, the
 * do-not-contact page (add, CSV import, remove), a lead's "Do not contact" button, the warning on
 * a lead whose page refuses solicitation, the CSV export's status and latest draft, and refusals of a
 * listed business (single or bulk draft) that say who listed it, when and why.
 */
import { domainToASCII } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import { adminRequest, createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { csrfOf, signedUpMember } from "../../support/console.ts";
import { RICH_EVIDENCE, RICH_SIGNALS } from "../../support/drafting.ts";
import { seedLeads } from "../../support/seed.ts";

let harness: TestApp;
beforeAll(async () => {
  harness = await startTestApp({ RATE_LIMIT_READ_PER_MIN: "1000" });
});
afterAll(async () => harness?.close());

async function leadWithAddress(workspaceId: string, placeId: string, solicitationRefused: boolean) {
  const website = `https://${placeId}.ca/`;
  const [leadId] = await seedLeads(harness.database.db, workspaceId, [
    { place_id: placeId, name: `Maple ${placeId}`, website, country: "CA", user_rating_count: 4 },
  ]);
  await saveAudit(harness.database.db, {
    place_id: placeId,
    url: website,
    outcome: "ok",
    failure: null,
    signals: {
      ...RICH_SIGNALS,
      email: `info@${placeId}.ca`,
      email_status: "deliverable",
      solicitation_refused: solicitationRefused,
    },
    evidence: { ...RICH_EVIDENCE, email_found_in: ["mailto"], email_page_url: website },
    audited_at: new Date("2026-11-20T10:00:00Z"),
  });
  return leadId!;
}

describe("lawful outreach in the console", () => {
  it("sets the postal address, which ends the drafts; exports status and the latest draft", async () => {
    const workspace = await createWorkspace(harness.app);
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "postal@agency.test");
    const settings = `/app/w/${workspace.workspaceId}/settings`;
    const saved = await browser.submit(settings, settings, {
      language: "en",
      sender_name: "Claire Dubois",
      sender_company: "Pixel & Pine",
      offer_en: "",
      postal_address: "215 Bank Street\r\nOttawa ON K2P 1W8",
    });
    expect(saved.statusCode).toBe(303);
    expect((await browser.get(settings)).body).toContain("215 Bank Street\r\nOttawa ON K2P 1W8</textarea>");

    const leadId = await leadWithAddress(
      workspace.workspaceId,
      `postal-${workspace.workspaceId.slice(0, 8)}`,
      false,
    );
    const leadPath = `/app/w/${workspace.workspaceId}/leads/${leadId}`;
    expect((await browser.submit(leadPath, `${leadPath}/draft`, { locale: "en" })).statusCode).toBe(303);
    const draft = await harness.database.db
      .selectFrom("drafts")
      .select(["subject", "body"])
      .where("lead_id", "=", leadId)
      .executeTakeFirstOrThrow();
    expect(draft.body).toMatch(
      /\nPixel & Pine\n215 Bank Street\nOttawa ON K2P 1W8\n\nI'm writing to the address listed on your website\. If you'd rather not hear from me/,
    );

    const csv = await browser.get(`/app/w/${workspace.workspaceId}/leads.csv`);
    const [header, ...rows] = csv.body.split("\r\n");
    expect(header).toContain("outreach_status,");
    expect(
      header?.endsWith(
        "email_status,opportunity_score,opportunity_tier,latest_draft_subject,latest_draft_body",
      ),
    ).toBe(true);
    const row = rows.join("\r\n");
    expect(row).toContain(",drafted,");
    expect(row).toContain(",deliverable,");
    expect(row).toContain(draft.subject);
    // The body spans lines inside its quotes, as CSV allows.
    expect(row).toContain(`"${draft.body.replaceAll('"', '""')}"`);
  });

  it("adds, imports and removes do-not-contact entries; a lead's button suppresses it and drafting is refused", async () => {
    const workspace = await createWorkspace(harness.app, { language: "fr" });
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "dnc@agency.test");
    const list = `/app/w/${workspace.workspaceId}/suppressions`;

    const added = await browser.submit(list, list, { value: "Owner@Maple.ca", reason: "asked by phone" });
    expect(added.statusCode).toBe(303);
    expect(added.headers.location).toBe(`${list}?done=suppression_added`);
    const imported = await browser.submit(list, `${list}/import`, {
      csv: "email,reason\nblocked.ca,never\nChIJ-imported-1\nowner@maple.ca\nnot an entry here",
    });
    expect(imported.statusCode).toBe(303);
    const page = await browser.get(imported.headers.location as string);
    expect(page.body).toContain("2 entries added, 1 already on the list, 1 line refused.");
    for (const value of [
      "owner@maple.ca",
      "blocked.ca",
      "ChIJ-imported-1",
      "asked by phone",
      "dnc@agency.test",
    ]) {
      expect(page.body).toContain(value);
    }
    const entryId = /suppressions\/([0-9a-f-]{36})\/remove/.exec(page.body)?.[1];
    expect(entryId).toBeDefined();
    const removed = await browser.submit(list, `${list}/${entryId}/remove`, {});
    expect(removed.headers.location).toBe(`${list}?done=suppression_removed`);
    const entries = await harness.database.db
      .selectFrom("suppressions")
      .select("value")
      .where("workspace_id", "=", workspace.workspaceId)
      .execute();
    expect(entries).toHaveLength(2);

    // A lead whose page refuses solicitation: the warning, then the button.
    const placeId = `dnc-${workspace.workspaceId.slice(0, 8)}`;
    const leadId = await leadWithAddress(workspace.workspaceId, placeId, true);
    const leadPath = `/app/w/${workspace.workspaceId}/leads/${leadId}`;
    const lead = await browser.get(leadPath);
    expect(lead.body).toContain("says it does not want unsolicited email or marketing");
    expect(lead.body).toContain('<dd><span id="email-status">deliverable</span>');
    expect(lead.body).toContain(`https://${placeId}.ca/ (mailto)`);
    // The same warning in French for a member who reads the console in French.
    const account = await browser.submit("/app/account", "/app/account/profile", {
      name: "Camille Martin",
      language: "fr",
    });
    expect(account.statusCode).toBe(303);
    const french = await browser.get(leadPath);
    expect(french.body).toContain("refuse les courriels non sollicités ou la prospection");
    expect(french.body).toContain('<dd><span id="email-status">livrable</span>');
    const suppressed = await browser.submit(leadPath, `${leadPath}/do-not-contact`, {
      reason: "page says no",
    });
    expect(suppressed.statusCode).toBe(303);
    const values = await harness.database.db
      .selectFrom("suppressions")
      .select(["kind", "value", "reason"])
      .where("workspace_id", "=", workspace.workspaceId)
      .where("reason", "=", "page says no")
      .orderBy("kind")
      .execute();
    expect(values).toEqual([
      { kind: "email", value: `info@${placeId}.ca`, reason: "page says no" },
      { kind: "place", value: placeId, reason: "page says no" },
    ]);
    const balance = async () =>
      (
        await harness.database.db
          .selectFrom("workspaces")
          .select("balance")
          .where("id", "=", workspace.workspaceId)
          .executeTakeFirstOrThrow()
      ).balance;
    const before = await balance();
    const refused = await browser.submit(leadPath, `${leadPath}/draft`, { locale: "fr" });
    expect(refused.statusCode).toBe(403);
    // The refusal says who listed the business: this member, for the agency, with the reason given.
    expect(refused.body).toContain(
      "dnc@agency.test, de votre agence, a mis cette entreprise sur la liste «\u00a0Ne pas contacter\u00a0» le ",
    );
    expect(refused.body).toContain("Motif indiqué\u00a0: page says no");
    expect(refused.body).not.toContain("a demandé");
    expect(await balance()).toBe(before);
    expect((await browser.get(leadPath)).body).toContain(`<dd id="lead-status">Écarté</dd>`);
  });

  it("says on a listed lead's page at once who listed it and when, and offers neither drafting nor 'Do not contact', in English and in French", async () => {
    const workspace = await createWorkspace(harness.app);
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "listed-page@agency.test");
    const placeId = `lp-${workspace.workspaceId.slice(0, 8)}`;
    const leadId = await leadWithAddress(workspace.workspaceId, placeId, false);
    const leadPath = `/app/w/${workspace.workspaceId}/leads/${leadId}`;
    // Before it is listed, the page offers both.
    const open = await browser.get(leadPath);
    expect(open.body).toContain(`action="${leadPath}/draft"`);
    expect(open.body).toContain(`action="${leadPath}/do-not-contact"`);
    const list = `/app/w/${workspace.workspaceId}/suppressions`;
    const added = await browser.submit(list, list, { value: `${placeId}.ca`, reason: "asked by phone" });
    expect(added.statusCode).toBe(303);

    const english = await browser.get(leadPath);
    expect(english.statusCode).toBe(200);
    expect(english.body).toContain(`<dd id="lead-status">Skipped</dd>`);
    expect(english.body).toContain(
      "listed-page@agency.test of your agency put this business on the do-not-contact list on ",
    );
    expect(english.body).toContain("no draft, nothing charged. Reason given: asked by phone");
    expect(english.body).not.toContain(`action="${leadPath}/draft"`);
    expect(english.body).not.toContain(`action="${leadPath}/do-not-contact"`);
    expect(english.body).not.toContain("Write a draft (1 credit)");

    await browser.submit("/app/account", "/app/account/profile", { name: "Camille Martin", language: "fr" });
    const french = await browser.get(leadPath);
    expect(french.body).toContain(`<dd id="lead-status">Écarté</dd>`);
    expect(french.body).toContain(
      "listed-page@agency.test, de votre agence, a mis cette entreprise sur la liste «\u00a0Ne pas contacter\u00a0» le ",
    );
    expect(french.body).toContain("Motif indiqué\u00a0: asked by phone");
    expect(french.body).not.toContain(`action="${leadPath}/draft"`);
    expect(french.body).not.toContain(`action="${leadPath}/do-not-contact"`);

    // Drafting it anyway (a stale page) is still refused, with those words said once.
    const refused = await browser.submit(leadPath, `${leadPath}/draft`, { locale: "fr" });
    expect(refused.statusCode).toBe(403);
    expect(refused.body.split("de votre agence, a mis cette entreprise")).toHaveLength(2);
  });

  it("words a refusal for a business the operator listed as the operator's doing", async () => {
    const workspace = await createWorkspace(harness.app);
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "operator-listed@agency.test");
    const placeId = `op-${workspace.workspaceId.slice(0, 8)}`;
    const leadId = await leadWithAddress(workspace.workspaceId, placeId, false);
    await adminRequest(harness.app, "POST", `/admin/workspaces/${workspace.workspaceId}/suppressions`, {
      domain: `${placeId}.ca`,
    });
    const leadPath = `/app/w/${workspace.workspaceId}/leads/${leadId}`;
    const refused = await browser.submit(leadPath, `${leadPath}/draft`, { locale: "en" });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain("The service operator put this business on the do-not-contact list on ");
    expect(refused.body).not.toContain("Reason given");
  });

  it("says on each bulk draft line of a listed business who listed it, when and why, in English and in French", async () => {
    const workspace = await createWorkspace(harness.app);
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "bulk-dnc@agency.test");
    const tag = workspace.workspaceId.slice(0, 8);
    const byMember = await leadWithAddress(workspace.workspaceId, `bulkm-${tag}`, false);
    const byOperator = await leadWithAddress(workspace.workspaceId, `bulko-${tag}`, false);
    const list = `/app/w/${workspace.workspaceId}/suppressions`;
    expect(
      (await browser.submit(list, list, { value: `bulkm-${tag}.ca`, reason: "asked by phone" })).statusCode,
    ).toBe(303);
    await adminRequest(harness.app, "POST", `/admin/workspaces/${workspace.workspaceId}/suppressions`, {
      domain: `bulko-${tag}.ca`,
      reason: "bounced",
    });
    const leads = `/app/w/${workspace.workspaceId}/leads`;
    const bulkDraft = async (locale: string) => {
      const page = await browser.get(leads);
      const answer = await harness.app.inject({
        method: "POST",
        url: `${leads}/draft`,
        headers: { cookie: browser.cookieHeader, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams([
          ["csrf_token", csrfOf(page.body)],
          ["locale", locale],
          ["lead_id", byMember],
          ["lead_id", byOperator],
        ]).toString(),
      });
      expect(answer.statusCode).toBe(200);
      return answer.body;
    };
    const english = await bulkDraft("en");
    expect(english).toContain(
      `<li data-outcome="skipped"><strong>Maple bulkm-${tag}</strong>: bulk-dnc@agency.test of your agency put this business on the do-not-contact list on `,
    );
    expect(english).toContain("no draft, nothing charged. Reason given: asked by phone</li>");
    expect(english).toContain(
      `<li data-outcome="skipped"><strong>Maple bulko-${tag}</strong>: The service operator put this business on the do-not-contact list on `,
    );
    expect(english).toContain("no draft, nothing charged. Reason given: bounced</li>");

    await browser.submit("/app/account", "/app/account/profile", { name: "Camille Martin", language: "fr" });
    const french = await bulkDraft("fr");
    expect(french).toContain(
      `<strong>Maple bulkm-${tag}</strong>\u00a0: bulk-dnc@agency.test, de votre agence, a mis cette entreprise sur la liste «\u00a0Ne pas contacter\u00a0» le `,
    );
    expect(french).toContain("Motif indiqué\u00a0: asked by phone</li>");
    expect(french).toContain(
      `<strong>Maple bulko-${tag}</strong>\u00a0: L&#39;opérateur du service a mis cette entreprise sur la liste «\u00a0Ne pas contacter\u00a0» le `,
    );
    expect(french).toContain("Motif indiqué\u00a0: bounced</li>");
    const drafts = await harness.database.db
      .selectFrom("drafts")
      .select("id")
      .where("workspace_id", "=", workspace.workspaceId)
      .execute();
    expect(drafts).toHaveLength(0);
  });

  it("stores a lead's address on an IDN domain as it is matched: its other leads at that address read skipped", async () => {
    const workspace = await createWorkspace(harness.app);
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "idn-dnc@agency.test");
    const tag = workspace.workspaceId.slice(0, 8);
    const address = `Info@Café-${tag}.ca`;
    const leadIds = await seedLeads(harness.database.db, workspace.workspaceId, [
      { place_id: `idn-a-${tag}`, website: `https://idn-a-${tag}.ca/` },
      { place_id: `idn-b-${tag}`, website: `https://idn-b-${tag}.ca/` },
    ]);
    for (const placeId of [`idn-a-${tag}`, `idn-b-${tag}`]) {
      await saveAudit(harness.database.db, {
        place_id: placeId,
        url: `https://${placeId}.ca/`,
        outcome: "ok",
        failure: null,
        signals: { ...RICH_SIGNALS, email: address, email_status: "deliverable" },
        evidence: RICH_EVIDENCE,
        audited_at: new Date(),
      });
    }
    const leadPath = `/app/w/${workspace.workspaceId}/leads/${leadIds[0]}`;
    expect((await browser.submit(leadPath, `${leadPath}/do-not-contact`, { reason: "" })).statusCode).toBe(
      303,
    );
    const stored = await harness.database.db
      .selectFrom("suppressions")
      .select("value")
      .where("workspace_id", "=", workspace.workspaceId)
      .where("kind", "=", "email")
      .execute();
    expect(stored).toEqual([{ value: `info@${domainToASCII(`café-${tag}.ca`)}` }]);
    const other = await browser.get(`/app/w/${workspace.workspaceId}/leads/${leadIds[1]}`);
    expect(other.body).toContain(`<dd id="lead-status">Skipped</dd>`);
  });

  it("keeps a refused entry in the form with the reason beside it, on the list's own page", async () => {
    const workspace = await createWorkspace(harness.app);
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "typo@agency.test");
    const list = `/app/w/${workspace.workspaceId}/suppressions`;
    await browser.submit(list, list, { value: "kept@maple.ca", reason: "" });
    const refused = await browser.submit(list, list, { value: "owner@", reason: "asked at the counter" });
    expect(refused.statusCode).toBe(400);
    // The same page, the list still there, what was typed still in the form, the error beside it.
    expect(refused.body).toContain("<h1>Do not contact</h1>");
    expect(refused.body).toContain("kept@maple.ca");
    expect(refused.body).toMatch(
      /<input type="text" id="suppression-value" name="value" maxlength="300" required value="owner@" aria-invalid="true" aria-describedby="suppression-value-error">/,
    );
    expect(refused.body).toContain(
      '<p class="field-error" id="suppression-value-error">“owner@” is not an email address',
    );
    expect(refused.body).toContain('value="asked at the counter"');
    const entries = await harness.database.db
      .selectFrom("suppressions")
      .select("value")
      .where("workspace_id", "=", workspace.workspaceId)
      .execute();
    expect(entries).toEqual([{ value: "kept@maple.ca" }]);
  });
});
