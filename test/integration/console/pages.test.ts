import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { ConsoleBrowser, csrfOf, PASSWORD, signedUpMember, tokenOf } from "../../support/console.ts";
import { seedLeads } from "../../support/seed.ts";

let harness: TestApp;
beforeAll(async () => {
  harness = await startTestApp();
});
afterAll(async () => harness?.close());

const KEY_PATTERN = /ldk_[A-Za-z0-9_-]{43}/;

describe("console pages", () => {
  it("creates a key shown once, sees its last use, revokes it after a confirmation, and the API refuses it", async () => {
    const workspace = await createWorkspace(harness.app);
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "keys@agency.test", "Kim Keys");
    const keysPath = `/app/w/${workspace.workspaceId}/keys`;
    // POST, 303, GET: the key is shown on the page the redirect leads to, once.
    const created = await browser.submit(keysPath, keysPath, { name: "CRM sync" });
    expect(created.statusCode).toBe(303);
    const shownAt = created.headers.location as string;
    expect(shownAt).toMatch(/\/keys\?flash=[A-Za-z0-9_-]{22}$/);
    expect(shownAt).not.toMatch(KEY_PATTERN);
    const shown = await browser.get(shownAt);
    const key = KEY_PATTERN.exec(shown.body)?.[0] ?? "";
    expect(key).not.toBe("");
    expect(shown.body).toContain('data-copy="new-key-value"');
    expect(shown.body).toContain(`<code>${key.slice(0, 8)}…</code>`);
    // A reload shows it no more, and creates nothing.
    const reloaded = await browser.get(shownAt);
    expect(reloaded.body).not.toContain(key);
    expect(reloaded.body).toContain("already shown");
    const keyRows = await harness.database.db
      .selectFrom("api_keys")
      .select("id")
      .where("workspace_id", "=", workspace.workspaceId)
      .where("name", "=", "CRM sync")
      .execute();
    expect(keyRows).toHaveLength(1);

    const listed = await browser.get(keysPath);
    expect(listed.body).not.toContain(key);
    const row = () =>
      /<tr>\s*<td data-label="Key name">CRM sync<\/td>([\s\S]*?)<\/tr>/.exec(listed.body)?.[1] ?? "";
    expect(row()).toContain("Kim Keys");
    expect(row()).toMatch(/<td data-label="Last used">never<\/td>/);

    const credits = await harness.app.inject({
      url: "/v1/credits",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(credits.statusCode).toBe(200);
    const afterUse = await browser.get(keysPath);
    const usedRow =
      /<tr>\s*<td data-label="Key name">CRM sync<\/td>([\s\S]*?)<\/tr>/.exec(afterUse.body)?.[1] ?? "";
    expect(usedRow).not.toMatch(/<td data-label="Last used">never<\/td>/);
    expect(usedRow).toMatch(/<td data-label="Last used">[^<]*UTC<\/td>/);

    const keyId =
      /keys\/([0-9a-f-]{36})\/revoke"[^>]*>Revoke<span class="visually-hidden"> CRM sync \(ldk_/.exec(
        afterUse.body,
      )?.[1];
    expect(keyId).toBeDefined();
    const confirmPath = `${keysPath}/${keyId}/revoke`;
    const confirm = await browser.get(confirmPath);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain("cannot be undone");
    const revoked = await browser.post(confirmPath, { csrf_token: csrfOf(confirm.body) });
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe(`${keysPath}?done=revoked`);
    const refused = await harness.app.inject({
      url: "/v1/credits",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe("invalid_api_key");
  });

  it("invites a member who sets a password and signs in, then removes them", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Invite Agency" });
    const owner = await signedUpMember(
      harness.app,
      workspace.workspaceId,
      "owner@invite.test",
      "Olive Owner",
    );
    const membersPath = `/app/w/${workspace.workspaceId}/members`;
    const invited = await owner.submit(membersPath, `${membersPath}/invite`, {
      email: "new@invite.test",
      name: "",
    });
    expect(invited.statusCode).toBe(303);
    const shownAt = invited.headers.location as string;
    expect(shownAt).toMatch(/\/members\?flash=/);
    const link = /<code id="invite-url">([^<]+)<\/code>/.exec((await owner.get(shownAt)).body)?.[1] ?? "";
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:3000\/app\/invite\/[A-Za-z0-9_-]{43}$/);
    expect((await owner.get(shownAt)).body).not.toContain(link);
    expect((await owner.get(membersPath)).body).not.toContain(link);

    const newcomer = new ConsoleBrowser(harness.app);
    const invitePath = new URL(link).pathname;
    const page = await newcomer.get(invitePath);
    expect(page.body).toContain("Join Invite Agency");
    expect(
      (
        await newcomer.post("/app/invite", {
          token: tokenOf(invitePath),
          csrf_token: csrfOf(page.body),
          name: "Nina New",
          password: PASSWORD,
        })
      ).statusCode,
    ).toBe(303);
    await newcomer.post("/app/sign-out", { csrf_token: csrfOf((await newcomer.get("/app/account")).body) });
    expect((await newcomer.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(303);
    const signIn = await newcomer.submit("/app/sign-in", "/app/sign-in", {
      email: "NEW@invite.test",
      password: PASSWORD,
    });
    expect(signIn.statusCode).toBe(303);
    expect((await newcomer.get(`/app/w/${workspace.workspaceId}`)).body).toContain("Invite Agency");

    const members = await owner.get(membersPath);
    expect(members.body).toContain("Nina New");
    const memberId =
      /members\/([0-9a-f-]{36})\/remove"[^>]*>Remove<span class="visually-hidden"> new@invite.test/.exec(
        members.body,
      )?.[1];
    const confirmPath = `${membersPath}/${memberId}/remove`;
    expect((await owner.submit(confirmPath, confirmPath, {})).statusCode).toBe(303);
    expect((await owner.get(membersPath)).body).not.toContain("Nina New");
    expect((await newcomer.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(303);
  });

  it("follows the member's language, and saves the workspace settings", async () => {
    const workspace = await createWorkspace(harness.app);
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "lang@agency.test", "Luc");
    expect((await browser.get(`/app/w/${workspace.workspaceId}/keys`)).body).toContain('<html lang="en">');
    expect(
      (await browser.submit("/app/account", "/app/account/profile", { name: "Luc", language: "fr" }))
        .statusCode,
    ).toBe(303);
    const french = await browser.get(`/app/w/${workspace.workspaceId}/keys`);
    expect(french.body).toContain('<html lang="fr">');
    expect(french.body).toContain("<h1>Clés d&#39;API</h1>");

    const settingsPath = `/app/w/${workspace.workspaceId}/settings`;
    const saved = await browser.submit(settingsPath, settingsPath, {
      language: "fr",
      sender_name: "Luc Tremblay",
      sender_company: "Web Boréal",
      offer_en: "",
      offer_fr: "Des sites rapides pour les artisans",
    });
    expect(saved.statusCode).toBe(303);
    const row = await harness.database.db
      .selectFrom("workspaces")
      .selectAll()
      .where("id", "=", workspace.workspaceId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      language: "fr",
      sender_name: "Luc Tremblay",
      sender_company: "Web Boréal",
      offer_en: null,
      offer_fr: "Des sites rapides pour les artisans",
    });
    const bad = await browser.submit(settingsPath, settingsPath, {
      language: "de",
      sender_name: "",
      sender_company: "",
      offer_en: "",
    });
    expect(bad.statusCode).toBe(400);
  });

  it("lists leads with flags and pages, drafts one for 1 credit, exports CSV and shows the ledger", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Lead Agency" });
    await adminRequest(harness.app, "PATCH", `/admin/workspaces/${workspace.workspaceId}`, {
      sender_name: "Sam",
    });
    const base = new Date("2026-01-01T00:00:00.000Z").getTime();
    const ids = await seedLeads(
      harness.database.db,
      workspace.workspaceId,
      Array.from({ length: 30 }, (_, index) => ({
        place_id: `lead-agency-${index}`,
        name: index === 29 ? "=HYPERLINK(evil)" : `Plomberie ${index}`,
        website: index === 29 ? null : undefined,
      })),
      (index) => new Date(base + index * 1000),
    );
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "leads@agency.test");
    const leadsPath = `/app/w/${workspace.workspaceId}/leads`;
    const first = await browser.get(leadsPath);
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain("No website");
    expect((first.body.match(/<td data-label="Business"><a href=/g) ?? []).length).toBe(25);
    const next = /href="([^"]+cursor=[^"]+)"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    const second = await browser.get(next);
    expect((second.body.match(/<td data-label="Business"><a href=/g) ?? []).length).toBe(5);
    expect(second.body).toContain("Plomberie 0");

    const noWebsiteLead = ids[29] ?? "";
    const leadPath = `${leadsPath}/${noWebsiteLead}`;
    const drafted = await browser.submit(leadPath, `${leadPath}/draft`, { locale: "en" });
    expect(drafted.statusCode).toBe(303);
    const leadPage = await browser.get(drafted.headers.location as string);
    expect(leadPage.body).toContain("Draft written: 1 credit spent.");
    // The facts of the draft in words, never as codes.
    expect(leadPage.body).toContain("Facts used: no website");
    expect(leadPage.body).not.toContain("no_website");
    const stored = await harness.database.db
      .selectFrom("drafts")
      .selectAll()
      .where("lead_id", "=", noWebsiteLead)
      .executeTakeFirstOrThrow();
    expect(leadPage.body).toContain(stored.subject.replaceAll("'", "&#39;"));
    const credits = await harness.app.inject({ url: "/v1/credits", headers: workspace.auth });
    expect(credits.json().balance).toBe(9);

    // A lead with nothing verified: 422 like the API, nothing charged.
    const unverified = `${leadsPath}/${ids[0]}`;
    const refused = await browser.submit(unverified, `${unverified}/draft`, { locale: "en" });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain("Nothing verified to write about for this business yet");
    expect((await harness.app.inject({ url: "/v1/credits", headers: workspace.auth })).json().balance).toBe(
      9,
    );

    const csv = await browser.get(`/app/w/${workspace.workspaceId}/leads.csv`);
    expect(csv.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(csv.headers["content-disposition"]).toContain("leads.csv");
    const lines = csv.body.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "id,name,category,address,website,phone,email,outreach_status,added_at,no_website_flag,not_mobile_friendly_flag,outdated_website_flag,last_media_year,email_status,opportunity_score,opportunity_tier,latest_draft_subject,latest_draft_body",
    );
    expect(lines).toHaveLength(31);
    expect(lines[1]).toContain(`${noWebsiteLead},'=HYPERLINK(evil),Plumber,,,,,drafted,`);

    await adminRequest(harness.app, "POST", `/admin/workspaces/${workspace.workspaceId}/credit-purchases`, {
      credits: 50,
    });
    const ledger = await browser.get(`/app/w/${workspace.workspaceId}/credits`);
    expect(ledger.body).toContain(`<span class="value" id="balance">59</span>`);
    expect(ledger.body).toContain("Purchase");
    expect(ledger.body).toContain("+50");
    expect(ledger.body).toContain("Outreach draft: =HYPERLINK(evil)");
    expect(ledger.body).toContain("Purchase from the operator");
    // Every line of the history adds up to the balance: 10 free, +50 bought, one draft.
    expect(ledger.body).toContain('id="history-total">59</td>');
  });

  it("counts console drafts against the workspace's hourly draft-attempt limit, like the API (429, Retry-After)", async () => {
    const limited = await startTestApp({ COST_DRAFT_ATTEMPTS_PER_HOUR_FREE_TRIAL: "1" });
    try {
      const workspace = await createWorkspace(limited.app, { name: "Limited Agency" });
      const [leadId] = await seedLeads(limited.database.db, workspace.workspaceId, [
        { place_id: `limited-${workspace.workspaceId}`, website: null },
      ]);
      const browser = await signedUpMember(limited.app, workspace.workspaceId, "limited@agency.test");
      const leadPath = `/app/w/${workspace.workspaceId}/leads/${leadId}`;
      const first = await browser.submit(leadPath, `${leadPath}/draft`, { locale: "en" });
      expect(first.statusCode).toBe(303);
      const second = await browser.submit(leadPath, `${leadPath}/draft`, { locale: "en" });
      expect(second.statusCode).toBe(429);
      expect(second.headers["retry-after"]).toBe("60");
      expect(second.headers["content-type"]).toContain("text/html");
      // The API route shares the same hourly count.
      const api = await limited.app.inject({
        method: "POST",
        url: `/v1/leads/${leadId}/outreach-draft`,
        headers: workspace.auth,
      });
      expect(api.statusCode).toBe(429);
      expect(api.json().error.code).toBe("rate_limited");
      const credits = await limited.app.inject({ url: "/v1/credits", headers: workspace.auth });
      expect(credits.json().balance).toBe(9);
    } finally {
      await limited.close();
    }
  });

  it("shows clear empty states and the overview", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Empty Agency" });
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "empty@agency.test");
    const overview = await browser.get(`/app/w/${workspace.workspaceId}`);
    expect(overview.body).toMatch(/Credit balance<\/span><span class="value"><a [^>]+>10</);
    // An empty workspace says what to do next, each step a link to where it is done.
    const steps = /<ol class="steps">([\s\S]*?)<\/ol>/.exec(overview.body)?.[1] ?? "";
    expect(steps).toContain(`href="/app/w/${workspace.workspaceId}/settings">Tell us who signs the drafts`);
    expect(steps).toContain(`href="/app/w/${workspace.workspaceId}/search">Run a first search`);
    expect((await browser.get(`/app/w/${workspace.workspaceId}/leads`)).body).toContain("No leads yet");
    // The history starts with the free credits, and its total is the balance.
    const credits = (await browser.get(`/app/w/${workspace.workspaceId}/credits`)).body;
    expect(credits).toContain("Free credits to start");
    expect(credits).toContain('<td data-label="Balance" id="history-total">10</td>');
    const signedOut = new ConsoleBrowser(harness.app);
    const redirected = await signedOut.get(`/app/w/${workspace.workspaceId}/leads`);
    expect(redirected.statusCode).toBe(303);
    expect(redirected.headers.location).toBe(
      `/app/sign-in?next=${encodeURIComponent(`/app/w/${workspace.workspaceId}/leads`)}`,
    );
  });
});

describe("admin invites", () => {
  it("makes a single-use link for the console, refusing unknown workspaces and people already joined", async () => {
    const workspace = await createWorkspace(harness.app);
    const invite = await adminRequest(
      harness.app,
      "POST",
      `/admin/workspaces/${workspace.workspaceId}/invites`,
      {
        email: "joiner@agency.test",
        name: "Jo",
      },
    );
    expect(invite.statusCode).toBe(201);
    expect(invite.headers["cache-control"]).toBe("no-store");
    expect(invite.json()).toMatchObject({
      email: "joiner@agency.test",
      url: expect.stringMatching(/\/app\/invite\//),
    });
    const unknown = await adminRequest(
      harness.app,
      "POST",
      `/admin/workspaces/${crypto.randomUUID()}/invites`,
      {
        email: "x@agency.test",
      },
    );
    expect(unknown.statusCode).toBe(404);
    await signedUpMember(harness.app, workspace.workspaceId, "joined@agency.test");
    const again = await adminRequest(
      harness.app,
      "POST",
      `/admin/workspaces/${workspace.workspaceId}/invites`,
      {
        email: "JOINED@agency.test",
      },
    );
    expect(again.statusCode).toBe(400);
  });

  it("links an operator-added member to the person who joins with that email, keeping the keys they created", async () => {
    const workspace = await createWorkspace(harness.app);
    const operatorMember = await harness.database.db
      .selectFrom("members")
      .select(["id", "email"])
      .where("id", "=", workspace.memberId)
      .executeTakeFirstOrThrow();
    const browser = await signedUpMember(
      harness.app,
      workspace.workspaceId,
      operatorMember.email,
      "Owen Operator",
    );
    const members = await harness.database.db
      .selectFrom("members")
      .select(["id", "account_id"])
      .where("workspace_id", "=", workspace.workspaceId)
      .execute();
    expect(members).toHaveLength(1);
    expect(members[0]?.id).toBe(workspace.memberId);
    expect(members[0]?.account_id).not.toBeNull();
    const keys = await browser.get(`/app/w/${workspace.workspaceId}/keys`);
    expect(keys.body).toMatch(
      /<td data-label="Key name">server<\/td>\s*<td data-label="Key starts with"><code>ldk_[^<]{4}…<\/code><\/td>\s*<td data-label="Created by">Owen Operator<\/td>/,
    );
  });
});

describe("lead status", () => {
  it("marks sent and skipped (the API reads it), and filters the list by status across pages", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Status Agency" });
    const base = Date.parse("2026-02-01T00:00:00.000Z");
    const ids = await seedLeads(
      harness.database.db,
      workspace.workspaceId,
      Array.from({ length: 60 }, (_, index) => ({ place_id: `status-${index}`, name: `Status ${index}` })),
      (index) => new Date(base + index * 1000),
    );
    const browser = await signedUpMember(harness.app, workspace.workspaceId, "status@agency.test");
    const leadsPath = `/app/w/${workspace.workspaceId}/leads`;
    // 30 leads stored as sent, spread among the others; one more is suppressed and reads skipped.
    const sent = ids.filter((_, index) => index % 2 === 0);
    await harness.database.db
      .updateTable("leads")
      .set({ outreach_status: "sent" })
      .where("id", "in", sent)
      .execute();
    const suppressed = await adminRequest(
      harness.app,
      "POST",
      `/admin/workspaces/${workspace.workspaceId}/suppressions`,
      { place_id: "status-1" },
    );
    expect(suppressed.statusCode).toBeLessThan(300);

    const names = (body: string) =>
      [...body.matchAll(/data-label="Business"><a [^>]+>([^<]+)</g)].map((m) => m[1]);
    const first = await browser.get(`${leadsPath}?status=sent`);
    expect(names(first.body)).toHaveLength(25);
    const next = /href="([^"]+cursor=[^"]+)"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(next).toContain("status=sent");
    const second = await browser.get(next);
    expect(names(second.body)).toHaveLength(5);
    expect(new Set([...names(first.body), ...names(second.body)]).size).toBe(30);
    expect(/cursor=/.test(second.body)).toBe(false);
    expect(names((await browser.get(`${leadsPath}?status=skipped`)).body)).toEqual(["Status 1"]);
    expect(names((await browser.get(`${leadsPath}?status=new`)).body)).toHaveLength(25);
    expect(names((await browser.get(`${leadsPath}?status=`)).body)).toHaveLength(25);

    // A mark from the lead page: 303 back to it, and GET /v1/leads/{id} reads it.
    const lead = ids[3] ?? "";
    const leadPath = `${leadsPath}/${lead}`;
    const apiStatus = async () =>
      (await harness.app.inject({ url: `/v1/leads/${lead}`, headers: workspace.auth })).json()
        .outreach_status;
    expect(await apiStatus()).toBe("new");
    const marked = await browser.submit(leadPath, `${leadPath}/mark`, { status: "sent" });
    expect(marked.statusCode).toBe(303);
    expect(marked.headers.location).toBe(`${leadPath}?done=sent`);
    expect(await apiStatus()).toBe("sent");
    expect((await browser.get(marked.headers.location as string)).body).toContain("Marked as sent.");
    expect((await browser.submit(leadPath, `${leadPath}/mark`, { status: "skipped" })).statusCode).toBe(303);
    expect(await apiStatus()).toBe("skipped");
    // Only sent and skipped: the other states are the service's to set.
    expect((await browser.submit(leadPath, `${leadPath}/mark`, { status: "new" })).statusCode).toBe(400);
    expect(await apiStatus()).toBe("skipped");
  });
});

describe("what a browser asks of every page (issue 33: best practices)", () => {
  it("serves the favicon every page links to, as an icon the pages' content policy allows", async () => {
    const icon = await harness.app.inject({ url: "/favicon.ico" });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers["content-type"]).toBe("image/x-icon");
    // An ICO directory of one 32x32 image.
    expect([...icon.rawPayload.subarray(0, 8)]).toEqual([0, 0, 1, 0, 1, 0, 32, 32]);
    const signIn = await harness.app.inject({ url: "/app/sign-in" });
    expect(signIn.body).toContain('<link rel="icon" href="/favicon.ico">');
    // Same origin: `img-src 'self'` covers it.
    expect(signIn.headers["content-security-policy"]).toContain("img-src 'self'");
  });

  it("compresses pages, the style sheet, the legal pages and the reference for a browser that accepts it", async () => {
    const signIn = await harness.app.inject({
      url: "/app/sign-in",
      headers: { "accept-encoding": "br, gzip" },
    });
    expect(signIn.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(signIn.rawPayload).toString()).toContain("<!doctype html>");
    // A client that asks for nothing gets the page as it is.
    const plain = await harness.app.inject({ url: "/app/sign-in" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const stylesheet = /href="(\/app\/assets\/app-[0-9a-f]{12}\.css)"/.exec(plain.body);
    // The consent page's answer to a request it cannot serve is a page too.
    const consent = await harness.app.inject({
      url: "/oauth/authorize",
      headers: { "accept-encoding": "gzip" },
    });
    expect(consent.headers["content-type"]).toContain("text/html");
    expect(consent.headers["content-encoding"]).toBe("gzip");
    for (const url of [stylesheet?.[1] ?? "no stylesheet link", "/privacy", "/v1/docs"]) {
      const answer = await harness.app.inject({ url, headers: { "accept-encoding": "gzip" } });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.headers["content-encoding"], url).toBe("gzip");
      expect(gunzipSync(answer.rawPayload).length, url).toBeGreaterThan(answer.rawPayload.length);
    }
  });

  it("describes the public pages in the visitor's language", async () => {
    for (const url of ["/app/sign-in", "/app/forgot-password", "/privacy", "/terms"]) {
      const english = await harness.app.inject({ url });
      expect(english.body, url).toMatch(/<meta name="description" content="Find local businesses [^"]+">/);
      const french = await harness.app.inject({ url, headers: { "accept-language": "fr-CA" } });
      expect(french.body, url).toMatch(/<meta name="description" content="Trouvez les entreprises [^"]+">/);
    }
  });
});
