/**
 * Account mail against a real SMTP server on loopback (nodemailer's `smtp-server` as a sink):
 * sign-up confirmation, invites and password reset, each link single-use and expiring, nothing
 * created before a sign-up is confirmed, a mail that cannot be sent shown to the person, and the
 * process that refuses SIGNUP=open without SMTP_URL.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, adminRequest, createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { ConsoleBrowser, csrfOf, PASSWORD, signedUpMember } from "../../support/console.ts";
import { startHttpTestApp } from "../../support/oauth.ts";
import { startServerProcess } from "../../support/server-process.ts";
import { linkIn, type ReceivedMail, type SmtpSink, startSmtpSink } from "../../support/smtp-sink.ts";
import { nodeBinary } from "../../support/worker-process.ts";

const PUBLIC_URL = "https://leads.service.test";
let sink: SmtpSink;
let harness: TestApp;

beforeAll(async () => {
  sink = await startSmtpSink();
  harness = await startTestApp({
    SMTP_URL: sink.url,
    MAIL_FROM: "Lead discovery <accounts@service.test>",
    SIGNUP: "open",
    PUBLIC_URL,
  });
});
afterAll(async () => {
  await harness?.close();
  await sink?.close();
});

const db = () => harness.database.db;
/** A mailed link as the browser opens it: its path on this app. */
const pathOf = (link: string) => new URL(link).pathname;

function expectBothBodies(mail: ReceivedMail, link: string) {
  expect(mail.from).toContain("accounts@service.test");
  expect(mail.text).toContain(link);
  expect(mail.html).toContain(`href="${link}"`);
}

/** Signs up as a browser does: a refusal is the answer; a request is a 303 to the page read next. */
async function signUp(browser: ConsoleBrowser, fields: Record<string, string>) {
  const answer = await browser.submit("/app/sign-up", "/app/sign-up", {
    name: "Dominique Roy",
    password: PASSWORD,
    agency_name: "Roy Web",
    ...fields,
  });
  if (answer.statusCode >= 400) return answer;
  expect(answer.statusCode, answer.body.slice(0, 300)).toBe(303);
  expect(answer.headers.location).toMatch(/^\/app\/sign-up\/sent\?flash=[\w-]{22}$/);
  return browser.get(answer.headers.location as string);
}

describe("sign-up confirmed by mail", () => {
  it("creates nothing until the mailed link is opened, then the account and a free-trial workspace, once", async () => {
    const browser = new ConsoleBrowser(harness.app);
    const email = "dominique@roy-web.test";
    const answer = await signUp(browser, { email, agency_name: "Roy Web" });
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain("Check your mailbox");
    expect(answer.body).not.toContain("/app/sign-up/confirm/");
    // Nothing exists before the link is opened.
    expect(await db().selectFrom("accounts").select("id").where("email", "=", email).execute()).toEqual([]);
    expect(await db().selectFrom("workspaces").select("id").where("name", "=", "Roy Web").execute()).toEqual(
      [],
    );
    expect(await db().selectFrom("members").select("id").where("email", "=", email).execute()).toEqual([]);

    const mail = await sink.next(email);
    expect(mail.subject).toBe("Confirm your Lead discovery account");
    expect(mail.language).toBe("en");
    const link = linkIn(mail, `${PUBLIC_URL}/app/sign-up/confirm/`);
    expectBothBodies(mail, link);

    const confirmPage = await browser.get(pathOf(link));
    expect(confirmPage.statusCode).toBe(200);
    expect(confirmPage.body).toContain("Roy Web");
    // Still nothing: a link scanner that only opens the page creates nothing either.
    expect(await db().selectFrom("accounts").select("id").where("email", "=", email).execute()).toEqual([]);
    const token = pathOf(link).split("/").at(-1) ?? "";
    const confirmed = await browser.post("/app/sign-up/confirm", {
      csrf_token: csrfOf(confirmPage.body),
      token,
      password: PASSWORD,
    });
    expect(confirmed.statusCode).toBe(303);
    const workspace = await db()
      .selectFrom("workspaces")
      .selectAll()
      .where("name", "=", "Roy Web")
      .executeTakeFirstOrThrow();
    expect(workspace).toMatchObject({ balance: 10, free_trial: true });
    expect(confirmed.headers.location).toBe(`/app/w/${workspace.id}`);
    expect((await browser.get(`/app/w/${workspace.id}`)).statusCode).toBe(200);

    // Single use: the link and its form answer 404, and nothing is created twice.
    expect((await new ConsoleBrowser(harness.app).get(pathOf(link))).statusCode).toBe(404);
    const again = new ConsoleBrowser(harness.app);
    const page = await again.get("/app/sign-in");
    expect(
      (await again.post("/app/sign-up/confirm", { csrf_token: csrfOf(page.body), token, password: PASSWORD }))
        .statusCode,
    ).toBe(404);
    expect(
      await db().selectFrom("workspaces").select("id").where("name", "=", "Roy Web").execute(),
    ).toHaveLength(1);
  });

  it("writes the mail in the language chosen, as text and HTML", async () => {
    const email = "camille@tremblay-web.test";
    await signUp(new ConsoleBrowser(harness.app), { email, agency_name: "Tremblay Web", language: "fr" });
    const mail = await sink.next(email);
    expect(mail.subject).toBe("Confirmez votre compte Prospection");
    expect(mail.language).toBe("fr");
    expect(mail.text).toContain("Ouvrez le lien");
    expectBothBodies(mail, linkIn(mail, `${PUBLIC_URL}/app/sign-up/confirm/`));
  });

  it("an expired link creates nothing", async () => {
    const email = "late@late-web.test";
    await signUp(new ConsoleBrowser(harness.app), { email, agency_name: "Late Web" });
    const link = linkIn(await sink.next(email), `${PUBLIC_URL}/app/sign-up/confirm/`);
    await db()
      .updateTable("sign_ups")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("email", "=", email)
      .execute();
    const browser = new ConsoleBrowser(harness.app);
    expect((await browser.get(pathOf(link))).statusCode).toBe(404);
    const page = await browser.get("/app/sign-in");
    const token = pathOf(link).split("/").at(-1) ?? "";
    expect(
      (await browser.post("/app/sign-up/confirm", { csrf_token: csrfOf(page.body), token })).statusCode,
    ).toBe(404);
    expect(await db().selectFrom("accounts").select("id").where("email", "=", email).execute()).toEqual([]);
    expect(await db().selectFrom("workspaces").select("id").where("name", "=", "Late Web").execute()).toEqual(
      [],
    );
  });

  it("refuses throwaway addresses, and answers an address with an account as a new one (its owner is told)", async () => {
    const before = sink.mails.length;
    const disposable = await signUp(new ConsoleBrowser(harness.app), { email: "someone@mailinator.com" });
    expect(disposable.statusCode).toBe(400);
    expect(disposable.body).toContain("throwaway");
    expect(sink.mails.length).toBe(before);

    const owner = "owner@has-account.test";
    await db()
      .insertInto("accounts")
      .values({ email: owner, name: "Owner", password_hash: "scrypt$x", language: "en" })
      .execute();
    const fresh = await signUp(new ConsoleBrowser(harness.app), { email: "nobody-yet@new-agency.test" });
    const taken = await signUp(new ConsoleBrowser(harness.app), { email: owner });
    expect(taken.statusCode).toBe(fresh.statusCode);
    expect(taken.body.replace(owner, "EMAIL").replace(/value="[^"]+"/g, "")).toBe(
      fresh.body.replace("nobody-yet@new-agency.test", "EMAIL").replace(/value="[^"]+"/g, ""),
    );
    expect((await sink.next(owner)).subject).toBe("You already have a Lead discovery account");
    expect(await db().selectFrom("sign_ups").select("id").where("email", "=", owner).execute()).toEqual([]);
  });

  it("limits sign-ups per client address (429 with Retry-After)", async () => {
    const address = "10.77.0.1";
    const attempt = async (index: number) => {
      const page = await harness.app.inject({ method: "GET", url: "/app/sign-up", remoteAddress: address });
      const pre = /ld_pre=([^;]+)/.exec([page.headers["set-cookie"]].flat().join(";"))?.[1] ?? "";
      return harness.app.inject({
        method: "POST",
        url: "/app/sign-up",
        remoteAddress: address,
        headers: { cookie: `ld_pre=${pre}`, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({
          csrf_token: csrfOf(page.body),
          name: "Flood",
          email: `flood-${index}@flood-agency.test`,
          password: PASSWORD,
          agency_name: `Flood ${index}`,
        }).toString(),
      });
    };
    const statuses: number[] = [];
    for (let index = 0; index < 11; index += 1) statuses.push((await attempt(index)).statusCode);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(303));
    const refused = await attempt(99);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(
      await db()
        .selectFrom("sign_ups")
        .select("id")
        .where("email", "=", "flood-99@flood-agency.test")
        .execute(),
    ).toEqual([]);
  });

  it("answers before the mail is sent, and tries again when the mail server refuses it", async () => {
    sink.refuse = true;
    try {
      const answer = await signUp(new ConsoleBrowser(harness.app), { email: "unlucky@unlucky-web.test" });
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toContain("Check your mailbox");
    } finally {
      sink.refuse = false;
    }
    // The queued mail's next try (a few seconds later) goes through.
    expect((await sink.next("unlucky@unlucky-web.test")).subject).toBe("Confirm your Lead discovery account");
  });
});

describe("invites by mail", () => {
  it("mails the link only, lists the invite as pending, joins once, and a cancelled link stops working", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Mail agency" });
    // The operator's invite by mail: the admin API answers without the link.
    const byAdmin = await adminRequest(
      harness.app,
      "POST",
      `/admin/workspaces/${workspace.workspaceId}/invites`,
      {
        email: "first@mail-agency.test",
      },
    );
    expect(byAdmin.statusCode).toBe(201);
    expect(byAdmin.json()).toMatchObject({ email: "first@mail-agency.test", mailed: true });
    expect(byAdmin.body).not.toContain("/app/invite/");
    const firstMail = await sink.next("first@mail-agency.test");
    expect(firstMail.subject).toBe("You are invited to a workspace on Lead discovery");
    expect(firstMail.text).toContain("Mail agency");
    const firstLink = linkIn(firstMail, `${PUBLIC_URL}/app/invite/`);
    expectBothBodies(firstMail, firstLink);
    const first = new ConsoleBrowser(harness.app);
    const joined = await first.submit(pathOf(firstLink), "/app/invite", {
      token: pathOf(firstLink).split("/").at(-1) ?? "",
      name: "First Member",
      password: PASSWORD,
    });
    expect(joined.statusCode).toBe(303);
    expect(joined.headers.location).toBe(`/app/w/${workspace.workspaceId}`);
    // Single use.
    expect((await new ConsoleBrowser(harness.app).get(pathOf(firstLink))).statusCode).toBe(404);

    // A member invites from the console: the page says it was sent, never shows the link.
    const invited = await first.submit(
      `/app/w/${workspace.workspaceId}/members`,
      `/app/w/${workspace.workspaceId}/members/invite`,
      { email: "second@mail-agency.test", name: "" },
    );
    // POST, 303, GET: the page the redirect leads to says it was sent.
    expect(invited.statusCode).toBe(303);
    const sentPage = await first.get(invited.headers.location as string);
    expect(sentPage.body).toContain("Invite sent to second@mail-agency.test");
    expect(sentPage.body).not.toContain("/app/invite/");
    const secondMail = await sink.next("second@mail-agency.test");
    expect(secondMail.text).toContain("First Member invited you");
    const secondLink = linkIn(secondMail, `${PUBLIC_URL}/app/invite/`);
    const members = await first.get(`/app/w/${workspace.workspaceId}/members`);
    expect(members.body).toContain("Pending invites");
    expect(members.body).toContain("second@mail-agency.test");
    const inviteId = /members\/invites\/([0-9a-f-]{36})\/cancel/.exec(members.body)?.[1] ?? "";
    const cancel = await first.get(`/app/w/${workspace.workspaceId}/members/invites/${inviteId}/cancel`);
    expect(cancel.statusCode).toBe(200);
    const cancelled = await first.post(`/app/w/${workspace.workspaceId}/members/invites/${inviteId}/cancel`, {
      csrf_token: csrfOf(cancel.body),
    });
    expect(cancelled.statusCode).toBe(303);
    expect((await new ConsoleBrowser(harness.app).get(pathOf(secondLink))).statusCode).toBe(404);
    expect((await first.get(`/app/w/${workspace.workspaceId}/members`)).body).not.toContain(
      "second@mail-agency.test",
    );
  });

  it("an invite whose mail cannot be sent is an error page, and the invite is cancelled", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Unlucky agency" });
    await adminRequest(harness.app, "POST", `/admin/workspaces/${workspace.workspaceId}/invites`, {
      email: "member@unlucky-agency.test",
    });
    const link = linkIn(await sink.next("member@unlucky-agency.test"), `${PUBLIC_URL}/app/invite/`);
    const member = new ConsoleBrowser(harness.app);
    await member.submit(pathOf(link), "/app/invite", {
      token: pathOf(link).split("/").at(-1) ?? "",
      name: "Unlucky Member",
      password: PASSWORD,
    });
    sink.refuse = true;
    try {
      const invited = await member.submit(
        `/app/w/${workspace.workspaceId}/members`,
        `/app/w/${workspace.workspaceId}/members/invite`,
        { email: "never-reached@unlucky-agency.test", name: "" },
      );
      expect(invited.statusCode).toBe(503);
      expect(invited.body).toContain("The mail could not be sent");
    } finally {
      sink.refuse = false;
    }
    const invite = await db()
      .selectFrom("invites")
      .select("cancelled_at")
      .where("email", "=", "never-reached@unlucky-agency.test")
      .executeTakeFirstOrThrow();
    expect(invite.cancelled_at).not.toBeNull();
    expect((await member.get(`/app/w/${workspace.workspaceId}/members`)).body).not.toContain("never-reached");
  });

  it("an expired invite link answers 404", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Expiry agency" });
    await adminRequest(harness.app, "POST", `/admin/workspaces/${workspace.workspaceId}/invites`, {
      email: "late@expiry-agency.test",
    });
    const link = linkIn(await sink.next("late@expiry-agency.test"), `${PUBLIC_URL}/app/invite/`);
    await db()
      .updateTable("invites")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("email", "=", "late@expiry-agency.test")
      .execute();
    expect((await new ConsoleBrowser(harness.app).get(pathOf(link))).statusCode).toBe(404);
  });

  it("an address that has an account accepts after signing in through the sign-in form", async () => {
    const home = await createWorkspace(harness.app, { name: "Home agency" });
    const byAdmin = await adminRequest(harness.app, "POST", `/admin/workspaces/${home.workspaceId}/invites`, {
      email: "roaming@home-agency.test",
    });
    expect(byAdmin.statusCode).toBe(201);
    const homeLink = linkIn(await sink.next("roaming@home-agency.test"), `${PUBLIC_URL}/app/invite/`);
    await new ConsoleBrowser(harness.app).submit(pathOf(homeLink), "/app/invite", {
      token: pathOf(homeLink).split("/").at(-1) ?? "",
      name: "Roaming",
      password: PASSWORD,
    });
    const other = await createWorkspace(harness.app, { name: "Other agency" });
    await adminRequest(harness.app, "POST", `/admin/workspaces/${other.workspaceId}/invites`, {
      email: "roaming@home-agency.test",
    });
    const otherLink = linkIn(await sink.next("roaming@home-agency.test"), `${PUBLIC_URL}/app/invite/`);
    const browser = new ConsoleBrowser(harness.app);
    const page = await browser.get(pathOf(otherLink));
    expect(page.statusCode).toBe(200);
    // The page offers sign-in and comes back to /app/invite: the token never enters a URL.
    expect(page.body).toContain(`/app/sign-in?next=${encodeURIComponent("/app/invite")}`);
    const signedIn = await browser.submit(
      `/app/sign-in?next=${encodeURIComponent("/app/invite")}`,
      "/app/sign-in",
      {
        email: "roaming@home-agency.test",
        password: PASSWORD,
        next: "/app/invite",
      },
    );
    expect(signedIn.headers.location).toBe("/app/invite");
    const back = await browser.get("/app/invite");
    expect(back.statusCode).toBe(200);
    expect(back.body).toContain("/app/invite/accept");
    const token = pathOf(otherLink).split("/").at(-1) ?? "";
    const accepted = await browser.post("/app/invite/accept", { csrf_token: csrfOf(back.body), token });
    expect(accepted.statusCode).toBe(303);
    expect(accepted.headers.location).toBe(`/app/w/${other.workspaceId}`);
    expect((await browser.get(`/app/w/${home.workspaceId}`)).statusCode).toBe(200);
  });
});

describe("password reset by mail and by the operator", () => {
  it("mails a single-use link for an account (the page answers the same for an unknown address)", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Reset agency" });
    const byAdmin = await adminRequest(
      harness.app,
      "POST",
      `/admin/workspaces/${workspace.workspaceId}/invites`,
      {
        email: "forgetful@reset-agency.test",
      },
    );
    expect(byAdmin.statusCode).toBe(201);
    const inviteLink = linkIn(await sink.next("forgetful@reset-agency.test"), `${PUBLIC_URL}/app/invite/`);
    const laptop = new ConsoleBrowser(harness.app);
    await laptop.submit(pathOf(inviteLink), "/app/invite", {
      token: pathOf(inviteLink).split("/").at(-1) ?? "",
      name: "Forgetful",
      password: PASSWORD,
    });
    expect((await laptop.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(200);

    const before = sink.mails.length;
    const unknown = await new ConsoleBrowser(harness.app).submit(
      "/app/forgot-password",
      "/app/forgot-password",
      {
        email: "nobody@reset-agency.test",
      },
    );
    const known = await new ConsoleBrowser(harness.app).submit(
      "/app/forgot-password",
      "/app/forgot-password",
      {
        email: "forgetful@reset-agency.test",
      },
    );
    expect(known.statusCode).toBe(unknown.statusCode);
    expect(known.body.replace(/value="[^"]+"/g, "")).toBe(unknown.body.replace(/value="[^"]+"/g, ""));
    const mail = await sink.next("forgetful@reset-agency.test");
    expect(sink.mails.length).toBe(before + 1);
    expect(mail.subject).toBe("Reset your Lead discovery password");
    const link = linkIn(mail, `${PUBLIC_URL}/app/reset-password/`);
    expectBothBodies(mail, link);

    const browser = new ConsoleBrowser(harness.app);
    const page = await browser.get(pathOf(link));
    expect(page.statusCode).toBe(200);
    const token = pathOf(link).split("/").at(-1) ?? "";
    const reset = await browser.post("/app/reset-password", {
      csrf_token: csrfOf(page.body),
      token,
      new_password: "a brand new password",
    });
    expect(reset.statusCode).toBe(303);
    // The laptop's session ended with the old password; the new one signs in.
    expect((await laptop.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(303);
    expect((await browser.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(200);
    const signIn = await new ConsoleBrowser(harness.app).submit("/app/sign-in", "/app/sign-in", {
      email: "forgetful@reset-agency.test",
      password: "a brand new password",
    });
    expect(signIn.statusCode).toBe(303);
    // Single use.
    expect((await new ConsoleBrowser(harness.app).get(pathOf(link))).statusCode).toBe(404);
    const replay = new ConsoleBrowser(harness.app);
    const replayPage = await replay.get("/app/sign-in");
    expect(
      (
        await replay.post("/app/reset-password", {
          csrf_token: csrfOf(replayPage.body),
          token,
          new_password: "the attacker's password",
        })
      ).statusCode,
    ).toBe(404);
  });

  it("the operator's reset link works once, for an hour", async () => {
    const workspace = await createWorkspace(harness.app, { name: "Operator reset agency" });
    await adminRequest(harness.app, "POST", `/admin/workspaces/${workspace.workspaceId}/invites`, {
      email: "locked-out@operator-reset.test",
    });
    const inviteLink = linkIn(await sink.next("locked-out@operator-reset.test"), `${PUBLIC_URL}/app/invite/`);
    await new ConsoleBrowser(harness.app).submit(pathOf(inviteLink), "/app/invite", {
      token: pathOf(inviteLink).split("/").at(-1) ?? "",
      name: "Locked Out",
      password: PASSWORD,
    });
    const made = await adminRequest(harness.app, "POST", "/admin/accounts/reset-link", {
      email: "Locked-Out@operator-reset.test",
    });
    expect(made.statusCode).toBe(201);
    const { url, expires_at } = made.json() as { url: string; expires_at: string };
    expect(new Date(expires_at).getTime() - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(new Date(expires_at).getTime() - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    expect((await new ConsoleBrowser(harness.app).get(pathOf(url))).statusCode).toBe(200);
    await db()
      .updateTable("password_resets")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("token_hash", "is not", null)
      .where("account_id", "in", (eb) =>
        eb.selectFrom("accounts").select("id").where("email", "=", "locked-out@operator-reset.test"),
      )
      .execute();
    expect((await new ConsoleBrowser(harness.app).get(pathOf(url))).statusCode).toBe(404);
    expect(
      (
        await adminRequest(harness.app, "POST", "/admin/accounts/reset-link", {
          email: "nobody@operator-reset.test",
        })
      ).statusCode,
    ).toBe(404);
  });
});

describe("without mail", () => {
  it("SIGNUP=open without SMTP_URL refuses to start, naming the variable", async () => {
    await expect(
      startServerProcess(
        { SIGNUP: "open", DATA_DIR: "/nonexistent-never-opened" },
        { readyTimeoutMs: 30_000 },
      ),
    ).rejects.toThrow(/exited \(code 1\) before listening[\s\S]*SMTP_URL: required when SIGNUP=open/);
  });

  it("the sign-up page does not exist and the invite link is shown to its maker", async () => {
    const plain = await startTestApp();
    try {
      expect((await new ConsoleBrowser(plain.app).get("/app/sign-up")).statusCode).toBe(404);
      const workspace = await createWorkspace(plain.app, { name: "No mail agency" });
      const member = await signedUpMember(plain.app, workspace.workspaceId, "plain@no-mail.test");
      const invited = await member.submit(
        `/app/w/${workspace.workspaceId}/members`,
        `/app/w/${workspace.workspaceId}/members/invite`,
        { email: "colleague@no-mail.test", name: "" },
      );
      expect(invited.statusCode).toBe(303);
      expect((await member.get(invited.headers.location as string)).body).toMatch(
        /\/app\/invite\/[A-Za-z0-9_-]{43}/,
      );
      const forgot = await new ConsoleBrowser(plain.app).get("/app/forgot-password");
      expect(forgot.body).toContain("Ask the service operator for a reset link");
    } finally {
      await plain.close();
    }
  });

  it("`npm run admin -- accounts reset-link --email E` prints a working link for the operator", async () => {
    const listening = await startHttpTestApp();
    try {
      const workspace = await createWorkspace(listening.app, { name: "CLI reset agency" });
      await signedUpMember(listening.app, workspace.workspaceId, "cli@reset-agency.test");
      const { stdout } = await promisify(execFile)(
        nodeBinary(),
        [
          fileURLToPath(new URL("../../../cli/admin.ts", import.meta.url)),
          "accounts",
          "reset-link",
          "--email",
          "cli@reset-agency.test",
        ],
        { env: { PATH: process.env.PATH ?? "", ADMIN_TOKEN, API_URL: listening.baseUrl } },
      );
      const printed = JSON.parse(stdout) as { email: string; url: string; expires_at: string };
      expect(printed.email).toBe("cli@reset-agency.test");
      expect(printed.url).toMatch(new RegExp(`^${listening.baseUrl}/app/reset-password/[A-Za-z0-9_-]{43}$`));
      const page = await new ConsoleBrowser(listening.app).get(new URL(printed.url).pathname);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain("cli@reset-agency.test");
    } finally {
      await listening.close();
    }
  });
});
