/**
 * Findings 1, 2, 5, 6, 7 and 11 of the outside review of the console's accounts, each as the
 * attacker or the victim would meet it, over HTTP (Fastify's inject with a chosen client address,
 * or the listening app for OAuth). Findings 3, 4 and 10 are in console-findings.test.ts.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, createWorkspace, startSiblingApp } from "../../support/app.ts";
import {
  ConsoleBrowser,
  csrfOf,
  inviteByAdmin,
  PASSWORD,
  signedUpMember,
  tokenOf,
} from "../../support/console.ts";
import { type HttpTestApp, memberSession, obtainTokens, startHttpTestApp } from "../../support/oauth.ts";
import { type SmtpSink, startSmtpSink } from "../../support/smtp-sink.ts";

let t: HttpTestApp;
beforeAll(async () => {
  t = await startHttpTestApp();
});
afterAll(() => t?.close());

const sessionCookieOf = (setCookie: string | string[] | undefined): string | undefined =>
  [setCookie ?? []].flat().find((line) => line.startsWith("ld_session=") && !line.startsWith("ld_session=;"));

/** A sign-in from one client address, as a browser does it (sign-in page, then the form). */
async function signInFrom(app: FastifyInstance, email: string, password: string, remoteAddress: string) {
  const page = await app.inject({ method: "GET", url: "/app/sign-in", remoteAddress });
  const pre = /ld_pre=([^;]+)/.exec([page.headers["set-cookie"]].flat().join(";"))?.[1] ?? "";
  return app.inject({
    method: "POST",
    url: "/app/sign-in",
    remoteAddress,
    headers: { cookie: `ld_pre=${pre}`, "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({ csrf_token: csrfOf(page.body), email, password }).toString(),
  });
}

/**
 * A member of another agency invites `email` from the console: the page she sees afterwards (after
 * the form's redirect, where the console redirects), with the link when the page shows one.
 */
async function inviteFromConsole(member: ConsoleBrowser, workspaceId: string, email: string) {
  const invited = await member.submit(
    `/app/w/${workspaceId}/members`,
    `/app/w/${workspaceId}/members/invite`,
    { email, name: "" },
  );
  if (invited.statusCode === 303) return member.get(invited.headers.location as string);
  expect(invited.statusCode, invited.body.slice(0, 2000)).toBe(201);
  return invited;
}

const shownInviteLink = (html: string) => /\/app\/invite\/([A-Za-z0-9_-]{43})/.exec(html)?.[0];

describe("finding 1: an invite link never checks an existing account's password", () => {
  it("the right password typed on the invite page of another agency signs nobody in", async () => {
    const victimHome = await createWorkspace(t.app, { name: "Victim agency" });
    await signedUpMember(t.app, victimHome.workspaceId, "victim@agency.test");
    const attackerHome = await createWorkspace(t.app, { name: "Attacker agency" });
    const attacker = await signedUpMember(t.app, attackerHome.workspaceId, "attacker@agency.test");
    const invited = await inviteFromConsole(attacker, attackerHome.workspaceId, "victim@agency.test");
    const link = shownInviteLink(invited.body);
    expect(link).toBeDefined();

    // The attacker opens the link in a fresh browser and types guesses, the right one first.
    const stranger = new ConsoleBrowser(t.app);
    for (const guess of [PASSWORD, "wrong guess one", "wrong guess two"]) {
      const answer = await stranger.submit(link ?? "", "/app/invite", {
        token: tokenOf(link ?? ""),
        name: "Not the victim",
        password: guess,
      });
      expect(sessionCookieOf(answer.headers["set-cookie"]), guess).toBeUndefined();
      expect(answer.statusCode, guess).toBe(400);
      // The same answer for every guess: the password is not even looked at.
      expect(answer.body).toContain("already has an account");
    }
    // Nothing opened the victim's workspace to the stranger, and the victim's password is unchanged.
    expect((await stranger.get(`/app/w/${victimHome.workspaceId}`)).statusCode).toBe(303);
    expect((await signInFrom(t.app, "victim@agency.test", PASSWORD, "10.9.0.1")).statusCode).toBe(303);
  });
});

describe("finding 2: with mail configured, an invite link goes only to the mailbox", () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(() => sink?.close());

  it("the inviting member never sees the link, the mailbox gets it, and an owner can reset a password", async () => {
    const mailed = await startSiblingApp(t.database.db, {
      SMTP_URL: sink.url,
      MAIL_FROM: "Lead discovery <accounts@service.test>",
      PUBLIC_URL: "https://leads.service.test",
    });
    try {
      const home = await createWorkspace(t.app, { name: "Squatter agency" });
      // Joined before mail was configured (the same database): the session works on this node too.
      const joined = await signedUpMember(t.app, home.workspaceId, "squatter@agency.test");
      const squatter = new ConsoleBrowser(mailed.app);
      for (const [name, value] of joined.cookies) squatter.cookies.set(name, value);
      const invited = await inviteFromConsole(squatter, home.workspaceId, "owner@business.test");
      expect(shownInviteLink(invited.body)).toBeUndefined();
      expect(invited.body).toContain("owner@business.test");
      const mail = await sink.next("owner@business.test");
      expect(mail.text).toMatch(/https:\/\/leads\.service\.test\/app\/invite\/[A-Za-z0-9_-]{43}/);

      // The owner of an address someone else signed up can take it back by reset.
      const forgot = await new ConsoleBrowser(mailed.app).submit(
        "/app/forgot-password",
        "/app/forgot-password",
        {
          email: "squatter@agency.test",
        },
      );
      expect(forgot.statusCode).toBe(200);
      expect((await sink.next("squatter@agency.test")).text).toContain("/app/reset-password/");
    } finally {
      await mailed.close();
    }
  });
});

describe("finding 5: sign-in limits count failures only, per account-and-address and per address", () => {
  it("a stranger's wrong passwords never lock the owner out of their own address", async () => {
    const home = await createWorkspace(t.app, { name: "Lockout agency" });
    await signedUpMember(t.app, home.workspaceId, "owner@lockout.test");
    let refused = 0;
    for (let attempt = 0; attempt < 25; attempt += 1) {
      const answer = await signInFrom(t.app, "owner@lockout.test", `wrong password ${attempt}`, "10.66.0.1");
      expect([401, 429]).toContain(answer.statusCode);
      if (answer.statusCode === 429) refused += 1;
    }
    // The stranger's own address is throttled...
    expect(refused).toBeGreaterThan(0);
    // ...and the owner, from theirs, signs in at once.
    const owner = await signInFrom(t.app, "owner@lockout.test", PASSWORD, "10.1.0.1");
    expect(owner.statusCode).toBe(303);
    expect(sessionCookieOf(owner.headers["set-cookie"])).toBeDefined();
  });

  it("successful sign-ins never count: 25 in a row from one address all succeed", async () => {
    const home = await createWorkspace(t.app, { name: "Busy agency" });
    await signedUpMember(t.app, home.workspaceId, "busy@agency.test");
    for (let attempt = 0; attempt < 25; attempt += 1) {
      expect(
        (await signInFrom(t.app, "busy@agency.test", PASSWORD, "10.2.0.1")).statusCode,
        `${attempt}`,
      ).toBe(303);
    }
  });
});

describe("finding 6: the password change checks the current password through the same limiter", () => {
  it("wrong current passwords end in 429 with Retry-After, and then even the right one waits", async () => {
    const home = await createWorkspace(t.app, { name: "Change agency" });
    const member = await signedUpMember(t.app, home.workspaceId, "change@agency.test");
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 25; attempt += 1) {
      const answer = await member.submit("/app/account", "/app/account/password", {
        current_password: `not my password ${attempt}`,
        new_password: "a brand new password",
      });
      statuses.push(answer.statusCode);
      if (answer.statusCode === 429) expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
    }
    expect(statuses).toContain(429);
    const right = await member.submit("/app/account", "/app/account/password", {
      current_password: PASSWORD,
      new_password: "a brand new password",
    });
    expect(right.statusCode).toBe(429);
  });
});

describe("finding 7: a password change ends the OAuth grants; Connected apps lists and revokes them", () => {
  it("connected apps stop working after a password change, and one can be disconnected from the page", async () => {
    const workspace = await createWorkspace(t.app, { name: "Connected agency" });
    const session = await memberSession(t.app, workspace);
    const first = await obtainTokens(t.baseUrl, {
      session,
      workspaceId: workspace.workspaceId,
      clientName: "Writer bot",
    });
    const second = await obtainTokens(t.baseUrl, {
      session,
      workspaceId: workspace.workspaceId,
      clientName: "Second bot",
    });
    const credits = (token: string) =>
      fetch(`${t.baseUrl}/v1/credits`, { headers: { authorization: `Bearer ${token}` } });
    expect((await credits(first.access_token)).status).toBe(200);

    const browser = new ConsoleBrowser(t.app);
    browser.cookies.set("ld_session", session.replace("ld_session=", ""));
    const apps = await browser.get("/app/account/apps");
    expect(apps.statusCode).toBe(200);
    expect(apps.body).toContain("Writer bot");
    expect(apps.body).toContain("Second bot");
    const grantId = /\/app\/account\/apps\/([0-9a-f-]{36})\/revoke/.exec(
      apps.body.slice(apps.body.indexOf("Second bot")),
    )?.[1];
    const revoked = await browser.post(`/app/account/apps/${grantId}/revoke`, {
      csrf_token: csrfOf(apps.body),
    });
    expect(revoked.statusCode).toBe(303);
    expect((await credits(second.access_token)).status).toBe(401);
    expect((await credits(first.access_token)).status).toBe(200);

    const changed = await browser.submit("/app/account", "/app/account/password", {
      current_password: PASSWORD,
      new_password: "a brand new password",
    });
    expect(changed.statusCode).toBe(303);
    expect((await credits(first.access_token)).status).toBe(401);
    const refreshed = await fetch(`${t.baseUrl}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
        client_id: first.clientId,
      }),
    });
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await browser.get("/app/account/apps")).body).not.toContain("Writer bot");
  });
});

describe("finding 7, by reset: an operator's reset link ends every session and every OAuth grant", () => {
  it("the connected app and the other browser stop working once the password is reset", async () => {
    const workspace = await createWorkspace(t.app, { name: "Reset grants agency" });
    const session = await memberSession(t.app, workspace);
    const app = await obtainTokens(t.baseUrl, { session, workspaceId: workspace.workspaceId });
    const credits = (token: string) =>
      fetch(`${t.baseUrl}/v1/credits`, { headers: { authorization: `Bearer ${token}` } });
    expect((await credits(app.access_token)).status).toBe(200);
    const email = (
      await t.database.db
        .selectFrom("members")
        .select("email")
        .where("id", "=", workspace.memberId)
        .executeTakeFirstOrThrow()
    ).email;
    const made = await adminRequest(t.app, "POST", "/admin/accounts/reset-link", { email });
    expect(made.statusCode).toBe(201);
    const browser = new ConsoleBrowser(t.app);
    const path = new URL((made.json() as { url: string }).url).pathname;
    const page = await browser.get(path);
    const reset = await browser.post("/app/reset-password", {
      csrf_token: csrfOf(page.body),
      token: path.split("/").at(-1) ?? "",
      new_password: "a brand new password",
    });
    expect(reset.statusCode).toBe(303);
    expect((await credits(app.access_token)).status).toBe(401);
    const old = await fetch(`${t.baseUrl}/app/w/${workspace.workspaceId}`, {
      redirect: "manual",
      headers: { cookie: session },
    });
    expect(old.status).toBe(303);
    expect((await browser.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(200);
  });
});

describe("finding 11: the invite page reads the same whether or not the address has an account", () => {
  it("an invite to an existing account and one to a new address differ only in address and secrets", async () => {
    const existingHome = await createWorkspace(t.app, { name: "Existing agency" });
    await signedUpMember(t.app, existingHome.workspaceId, "known@agency.test");
    const inviting = await createWorkspace(t.app, { name: "Inviting agency" });
    const pages: string[] = [];
    for (const email of ["known@agency.test", "unknown@agency.test"]) {
      const link = await inviteByAdmin(t.app, inviting.workspaceId, email);
      const page = await new ConsoleBrowser(t.app).get(link);
      expect(page.statusCode).toBe(200);
      pages.push(
        page.body
          .replaceAll(email, "EMAIL")
          .replaceAll(tokenOf(link), "TOKEN")
          .replace(/name="csrf_token" value="[^"]+"/g, 'name="csrf_token" value="CSRF"'),
      );
    }
    expect(pages[0]).toBe(pages[1]);
    expect(pages[0]).not.toContain('autocomplete="current-password"');
  });
});
