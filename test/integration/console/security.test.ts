import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../api/app.ts";
import { CONSOLE_PREFIX } from "../../../api/console/paths.ts";
import { createServices } from "../../../api/services.ts";
import { loggerOptions } from "../../../shared/logger.ts";
import { hashSecret } from "../../../shared/secrets.ts";
import {
  adminRequest,
  createWorkspace,
  startSiblingApp,
  startTestApp,
  type TestApp,
  type TestWorkspace,
} from "../../support/app.ts";
import {
  ConsoleBrowser,
  csrfOf,
  inviteByAdmin,
  PASSWORD,
  routeList,
  signedUpMember,
  tokenOf,
} from "../../support/console.ts";
import { seedLeads } from "../../support/seed.ts";

let harness: TestApp;
beforeAll(async () => {
  harness = await startTestApp();
});
afterAll(async () => harness?.close());

const sessionCookieOf = (setCookie: string | string[] | undefined): string | undefined =>
  [setCookie ?? []].flat().find((line) => line.startsWith("ld_session="));

interface SeededWorkspace extends TestWorkspace {
  leadId: string;
  browser: ConsoleBrowser;
  consoleMemberId: string;
  /** A pending invite of the workspace (members see and cancel these). */
  inviteId: string;
}

/** A workspace with a signed-in member, a lead and a key: everything a console page can show. */
async function seededWorkspace(name: string, email: string): Promise<SeededWorkspace> {
  const workspace = await createWorkspace(harness.app, { name });
  const [leadId = ""] = await seedLeads(harness.database.db, workspace.workspaceId, [
    { place_id: `place-${name.replaceAll(" ", "-")}`, name: `${name} Plumbing` },
  ]);
  const browser = await signedUpMember(harness.app, workspace.workspaceId, email, `${name} Person`);
  const member = await harness.database.db
    .selectFrom("members")
    .select("id")
    .where("workspace_id", "=", workspace.workspaceId)
    .where("email", "=", email)
    .executeTakeFirstOrThrow();
  const pendingEmail = `pending-${workspace.workspaceId.slice(0, 8)}@agency.test`;
  await inviteByAdmin(harness.app, workspace.workspaceId, pendingEmail);
  const invite = await harness.database.db
    .selectFrom("invites")
    .select("id")
    .where("workspace_id", "=", workspace.workspaceId)
    .where("email", "=", pendingEmail)
    .executeTakeFirstOrThrow();
  return { ...workspace, leadId, browser, consoleMemberId: member.id, inviteId: invite.id };
}

/** A console route with its parameters filled in from one workspace. */
function fill(route: string, workspace: SeededWorkspace, inviteToken = "x".repeat(43)): string {
  return route
    .replace(":workspaceId", workspace.workspaceId)
    .replace(":keyId", workspace.keyId)
    .replace(":memberId", workspace.memberId)
    .replace(":leadId", workspace.leadId)
    .replace(":inviteId", workspace.inviteId)
    .replace(":token", inviteToken);
}

/** The console's routes of one method, as the app routes them (every one, so none is forgotten). */
const routesOf = (method: "GET" | "POST", filter: (url: string) => boolean) =>
  routeList(harness.app)
    .filter((route) => route.startsWith(`${method} `))
    .map((route) => route.slice(method.length + 1))
    .filter((url) => url === CONSOLE_PREFIX || url.startsWith(`${CONSOLE_PREFIX}/`))
    .filter(filter);

describe("console security", () => {
  it("sets the session cookie HttpOnly, SameSite=Lax, and Secure only when PUBLIC_URL is https", async () => {
    const workspace = await createWorkspace(harness.app);
    await signedUpMember(harness.app, workspace.workspaceId, "flags@agency.test");
    const browser = new ConsoleBrowser(harness.app);
    const signIn = await browser.submit("/app/sign-in", "/app/sign-in", {
      email: "flags@agency.test",
      password: PASSWORD,
    });
    expect(signIn.statusCode).toBe(303);
    const cookie = sessionCookieOf(signIn.headers["set-cookie"]);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Secure/);

    const https = await startSiblingApp(harness.database.db, { PUBLIC_URL: "https://leads.example.com" });
    try {
      const secureBrowser = new ConsoleBrowser(https.app);
      const secureSignIn = await secureBrowser.submit("/app/sign-in", "/app/sign-in", {
        email: "flags@agency.test",
        password: PASSWORD,
      });
      expect(secureSignIn.statusCode).toBe(303);
      expect(sessionCookieOf(secureSignIn.headers["set-cookie"])).toMatch(/; Secure/);
    } finally {
      await https.close();
    }
  });

  it("gives a new session id at sign-in and never accepts a planted one", async () => {
    const workspace = await createWorkspace(harness.app);
    const victim = await signedUpMember(harness.app, workspace.workspaceId, "victim@agency.test");
    const firstSession = victim.cookies.get("ld_session");
    expect(firstSession).toBeDefined();

    // An attacker plants a session id of their choosing in the victim's browser.
    const planted = "A".repeat(43);
    const browser = new ConsoleBrowser(harness.app);
    browser.cookies.set("ld_session", planted);
    expect((await browser.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(303);
    const signIn = await browser.submit("/app/sign-in", "/app/sign-in", {
      email: "victim@agency.test",
      password: PASSWORD,
    });
    expect(signIn.statusCode).toBe(303);
    const issued = browser.cookies.get("ld_session");
    expect(issued).toBeDefined();
    expect(issued).not.toBe(planted);
    expect(issued).not.toBe(firstSession);
    expect((await browser.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(200);

    // Signing in again in a browser that had a real session replaces it: the old id is dead.
    const again = await victim.submit(`/app/w/${workspace.workspaceId}`, "/app/sign-in", {
      email: "victim@agency.test",
      password: PASSWORD,
    });
    expect(again.statusCode).toBe(303);
    const stale = new ConsoleBrowser(harness.app);
    stale.cookies.set("ld_session", firstSession ?? "");
    expect(victim.cookies.get("ld_session")).not.toBe(firstSession);
    expect((await stale.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(303);
    // Only hashes are stored.
    const stored = await harness.database.db.selectFrom("sessions").select("token_hash").execute();
    expect(stored.map((row) => row.token_hash)).toContain(hashSecret(issued ?? ""));
    expect(stored.map((row) => row.token_hash)).not.toContain(issued);
  });

  it("refuses every form without this browser's CSRF token, and nothing changes", async () => {
    const mine = await seededWorkspace("Csrf Agency", "csrf@agency.test");
    const other = await seededWorkspace("Other Csrf Agency", "other-csrf@agency.test");
    const inviteToken = (await inviteByAdmin(harness.app, mine.workspaceId, "later@agency.test"))
      .split("/")
      .at(-1);
    const posts = routesOf("POST", () => true);
    expect(posts.length).toBeGreaterThanOrEqual(11);

    const snapshot = async () => {
      const db = harness.database.db;
      return {
        keys: await db.selectFrom("api_keys").select(["id", "revoked_at"]).orderBy("id").execute(),
        members: await db.selectFrom("members").select(["id", "removed_at"]).orderBy("id").execute(),
        invites: await db.selectFrom("invites").select(["id", "used_at"]).orderBy("id").execute(),
        sessions: await db.selectFrom("sessions").select("token_hash").orderBy("token_hash").execute(),
        accounts: await db
          .selectFrom("accounts")
          .select(["id", "name", "language", "password_hash"])
          .orderBy("id")
          .execute(),
        workspaces: await db.selectFrom("workspaces").selectAll().orderBy("id").execute(),
        drafts: await db.selectFrom("drafts").select("id").execute(),
      };
    };
    const before = await snapshot();
    const fields = {
      token: inviteToken ?? "",
      email: "csrf@agency.test",
      password: PASSWORD,
      name: "Evil",
      language: "fr",
      current_password: PASSWORD,
      new_password: "a new password 123",
      sender_name: "Evil",
      offer_en: "Evil",
      locale: "en",
    };
    const foreignToken = csrfOf((await other.browser.get(`/app/w/${other.workspaceId}/settings`)).body);
    for (const route of posts) {
      const url = fill(route, mine, inviteToken);
      const missing = await mine.browser.post(url, fields);
      expect(missing.statusCode, `${route} without a token`).toBe(403);
      expect(missing.headers["content-type"]).toMatch(/text\/html/);
      const foreign = await mine.browser.post(url, { ...fields, csrf_token: foreignToken });
      expect(foreign.statusCode, `${route} with another browser's token`).toBe(403);
    }
    // A browser that never signed in cannot sign in through a form posted from elsewhere (login CSRF).
    const fresh = new ConsoleBrowser(harness.app);
    const loginCsrf = await fresh.post("/app/sign-in", { email: "csrf@agency.test", password: PASSWORD });
    expect(loginCsrf.statusCode).toBe(403);
    expect(sessionCookieOf(loginCsrf.headers["set-cookie"])).toBeUndefined();
    expect(await snapshot()).toEqual(before);
  });

  it("never shows a member of workspace A anything of workspace B, on every console route", async () => {
    const a = await seededWorkspace("Alpha Agency", "alpha@agency.test");
    const b = await seededWorkspace("Bravo Agency", "bravo@agency.test");
    await adminRequest(harness.app, "PATCH", `/admin/workspaces/${b.workspaceId}`, {
      offer_en: "Bravo secret offer",
    });
    const workspaceGets = routesOf("GET", (url) => url.startsWith("/app/w/"));
    expect(workspaceGets.length).toBeGreaterThanOrEqual(10);
    const secrets = [
      "Bravo Agency",
      "Bravo Plumbing",
      "Bravo secret offer",
      "bravo@agency.test",
      b.workspaceId,
    ];
    for (const route of workspaceGets) {
      // B's pages, B's objects through A's workspace, in both directions.
      for (const url of [
        fill(route, b),
        fill(route, { ...a, keyId: b.keyId, memberId: b.memberId, leadId: b.leadId, inviteId: b.inviteId }),
      ]) {
        const response = await a.browser.get(url);
        if (url.startsWith(`/app/w/${a.workspaceId}`) && !/:(keyId|memberId|leadId|inviteId)/.test(route)) {
          expect(response.statusCode, url).toBe(200);
        } else {
          expect(response.statusCode, url).toBe(404);
        }
        for (const secret of secrets) expect(response.body, `${url} shows ${secret}`).not.toContain(secret);
      }
    }
    const before = await harness.database.db
      .selectFrom("api_keys")
      .select("revoked_at")
      .where("id", "=", b.keyId)
      .executeTakeFirstOrThrow();
    for (const route of routesOf("POST", (url) => url.startsWith("/app/w/"))) {
      for (const url of [
        fill(route, b),
        fill(route, {
          ...a,
          keyId: b.keyId,
          memberId: b.consoleMemberId,
          leadId: b.leadId,
          inviteId: b.inviteId,
        }),
      ]) {
        if (url === fill(route, a)) continue;
        const page = await a.browser.get(`/app/w/${a.workspaceId}/settings`);
        const response = await a.browser.post(url, {
          csrf_token: csrfOf(page.body),
          name: "intruder",
          email: "intruder@agency.test",
          language: "fr",
          sender_name: "intruder",
          sender_company: "",
          offer_en: "",
          locale: "en",
        });
        expect(response.statusCode, url).toBe(404);
      }
    }
    const workspaceB = await harness.database.db
      .selectFrom("workspaces")
      .selectAll()
      .where("id", "=", b.workspaceId)
      .executeTakeFirstOrThrow();
    expect(workspaceB.offer_en).toBe("Bravo secret offer");
    expect(
      await harness.database.db
        .selectFrom("invites")
        .select("cancelled_at")
        .where("id", "=", b.inviteId)
        .executeTakeFirstOrThrow(),
    ).toEqual({ cancelled_at: null });
    expect(workspaceB.balance).toBe(10);
    expect(
      await harness.database.db
        .selectFrom("api_keys")
        .select("revoked_at")
        .where("id", "=", b.keyId)
        .executeTakeFirstOrThrow(),
    ).toEqual(before);
    const bMembers = await harness.database.db
      .selectFrom("members")
      .select("removed_at")
      .where("workspace_id", "=", b.workspaceId)
      .execute();
    expect(bMembers.every((member) => member.removed_at === null)).toBe(true);
    expect(
      await harness.database.db
        .selectFrom("invites")
        .select("id")
        .where("workspace_id", "=", b.workspaceId)
        .where("invited_by", "is not", null)
        .execute(),
    ).toEqual([]);
  });

  it("ends a removed member's session on their next request", async () => {
    const workspace = await seededWorkspace("Removal Agency", "stays@agency.test");
    const leaving = await signedUpMember(
      harness.app,
      workspace.workspaceId,
      "leaves@agency.test",
      "Leaving Person",
    );
    expect((await leaving.get(`/app/w/${workspace.workspaceId}/leads`)).statusCode).toBe(200);
    const leavingMember = await harness.database.db
      .selectFrom("members")
      .select("id")
      .where("email", "=", "leaves@agency.test")
      .executeTakeFirstOrThrow();

    const confirm = `/app/w/${workspace.workspaceId}/members/${leavingMember.id}/remove`;
    const removed = await workspace.browser.submit(confirm, confirm, {});
    expect(removed.statusCode).toBe(303);

    const next = await leaving.get(`/app/w/${workspace.workspaceId}/leads`);
    expect(next.statusCode).toBe(303);
    expect(next.headers.location).toBe("/app/sign-in");
    expect(leaving.cookies.has("ld_session")).toBe(false);
    const account = await harness.database.db
      .selectFrom("accounts")
      .select("id")
      .where("email", "=", "leaves@agency.test")
      .executeTakeFirstOrThrow();
    expect(
      await harness.database.db
        .selectFrom("sessions")
        .select("token_hash")
        .where("account_id", "=", account.id)
        .execute(),
    ).toEqual([]);
    // The one who stayed still works.
    expect((await workspace.browser.get(`/app/w/${workspace.workspaceId}/members`)).statusCode).toBe(200);
  });

  it("a member of two workspaces removed from one keeps the other and loses the first at once", async () => {
    const first = await seededWorkspace("First Agency", "first@agency.test");
    const second = await createWorkspace(harness.app, { name: "Second Agency" });
    const path = await inviteByAdmin(harness.app, second.workspaceId, "first@agency.test");
    // Already signed in as the invited address: the invite is accepted with one button, no password.
    const joined = await first.browser.submit(path, "/app/invite/accept", { token: tokenOf(path) });
    expect(joined.statusCode).toBe(303);
    expect((await first.browser.get(`/app/w/${second.workspaceId}`)).statusCode).toBe(200);
    const member = await harness.database.db
      .selectFrom("members")
      .select("id")
      .where("workspace_id", "=", second.workspaceId)
      .where("email", "=", "first@agency.test")
      .executeTakeFirstOrThrow();
    expect(
      (
        await adminRequest(
          harness.app,
          "DELETE",
          `/admin/workspaces/${second.workspaceId}/members/${member.id}`,
        )
      ).statusCode,
    ).toBe(204);
    expect((await first.browser.get(`/app/w/${second.workspaceId}`)).statusCode).toBe(404);
    expect((await first.browser.get(`/app/w/${first.workspaceId}`)).statusCode).toBe(200);
  });

  it("throttles wrong sign-in passwords per account-and-address and per address", async () => {
    const limited = await startSiblingApp(harness.database.db, {
      PASSWORD_FAILURES_PER_ACCOUNT_ADDRESS: "3",
      PASSWORD_FAILURES_PER_ADDRESS: "5",
    });
    try {
      const workspace = await createWorkspace(limited.app);
      await signedUpMember(limited.app, workspace.workspaceId, "throttled@agency.test");
      const attempt = async (email: string, password: string, remoteAddress: string) => {
        const page = await limited.app.inject({ method: "GET", url: "/app/sign-in", remoteAddress });
        const pre = /ld_pre=([^;]+)/.exec([page.headers["set-cookie"]].flat().join(";"))?.[1] ?? "";
        return limited.app.inject({
          method: "POST",
          url: "/app/sign-in",
          remoteAddress,
          headers: { cookie: `ld_pre=${pre}`, "content-type": "application/x-www-form-urlencoded" },
          payload: new URLSearchParams({ csrf_token: csrfOf(page.body), email, password }).toString(),
        });
      };
      // Per account and address: three guesses from one address, then even the right password
      // waits there; from another address the owner signs in.
      for (let index = 0; index < 3; index += 1) {
        expect((await attempt("throttled@agency.test", "wrong password!", "10.0.0.1")).statusCode).toBe(401);
      }
      const blocked = await attempt("Throttled@agency.test", PASSWORD, "10.0.0.1");
      expect(blocked.statusCode).toBe(429);
      expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
      expect(sessionCookieOf(blocked.headers["set-cookie"])).toBeUndefined();
      expect(blocked.body).toContain("Too many sign-in attempts");
      expect((await attempt("throttled@agency.test", PASSWORD, "10.0.0.4")).statusCode).toBe(303);

      // Per address: five different emails from one address, then that address waits.
      for (let index = 0; index < 5; index += 1) {
        expect(
          (await attempt(`nobody${index}@agency.test`, "whatever password", "10.0.1.1")).statusCode,
        ).toBe(401);
      }
      expect((await attempt("someone-else@agency.test", "whatever password", "10.0.1.1")).statusCode).toBe(
        429,
      );
      expect((await attempt("someone-else@agency.test", "whatever password", "10.0.1.2")).statusCode).toBe(
        401,
      );
    } finally {
      await limited.close();
    }
  });

  it("ends the other sessions when the password changes", async () => {
    const workspace = await createWorkspace(harness.app);
    const laptop = await signedUpMember(harness.app, workspace.workspaceId, "two-browsers@agency.test");
    const phone = new ConsoleBrowser(harness.app);
    expect(
      (
        await phone.submit("/app/sign-in", "/app/sign-in", {
          email: "two-browsers@agency.test",
          password: PASSWORD,
        })
      ).statusCode,
    ).toBe(303);
    const wrong = await laptop.submit("/app/account", "/app/account/password", {
      current_password: "not my password",
      new_password: "a brand new password",
    });
    expect(wrong.statusCode).toBe(400);
    expect((await phone.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(200);
    const changed = await laptop.submit("/app/account", "/app/account/password", {
      current_password: PASSWORD,
      new_password: "a brand new password",
    });
    expect(changed.statusCode).toBe(303);
    expect((await laptop.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(200);
    expect((await phone.get(`/app/w/${workspace.workspaceId}`)).statusCode).toBe(303);
    const signIn = await new ConsoleBrowser(harness.app).submit("/app/sign-in", "/app/sign-in", {
      email: "two-browsers@agency.test",
      password: "a brand new password",
    });
    expect(signIn.statusCode).toBe(303);
  });

  it("uses an invite link once, never after it expires, and stores only its hash and a scrypt hash of the password", async () => {
    const workspace = await createWorkspace(harness.app);
    const path = await inviteByAdmin(harness.app, workspace.workspaceId, "once@agency.test");
    const token = path.split("/").at(-1) ?? "";
    const invites = await harness.database.db.selectFrom("invites").select("token_hash").execute();
    expect(invites.map((invite) => invite.token_hash)).toContain(hashSecret(token));
    expect(JSON.stringify(invites)).not.toContain(token);

    const tooShort = await new ConsoleBrowser(harness.app).submit(path, "/app/invite", {
      token,
      name: "Once",
      password: "short",
    });
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.body).toContain("at least 10 characters");
    const first = await new ConsoleBrowser(harness.app).submit(path, "/app/invite", {
      token,
      name: "Once",
      password: PASSWORD,
    });
    expect(first.statusCode).toBe(303);
    const second = new ConsoleBrowser(harness.app);
    expect((await second.get(path)).statusCode).toBe(404);
    const reuse = await second.post("/app/invite", {
      token,
      csrf_token: csrfOf((await second.get("/app/sign-in")).body),
      name: "Again",
      password: PASSWORD,
    });
    expect(reuse.statusCode).toBe(404);
    const account = await harness.database.db
      .selectFrom("accounts")
      .select("password_hash")
      .where("email", "=", "once@agency.test")
      .executeTakeFirstOrThrow();
    expect(account.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(account.password_hash).not.toContain(PASSWORD);

    const expiring = await inviteByAdmin(harness.app, workspace.workspaceId, "late@agency.test");
    await harness.database.db
      .updateTable("invites")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("email", "=", "late@agency.test")
      .execute();
    expect((await new ConsoleBrowser(harness.app).get(expiring)).statusCode).toBe(404);
  });

  it("keeps the invite token and the password out of the request logs", async () => {
    const lines: string[] = [];
    const logger = pino(loggerOptions("info", "test"), { write: (line: string) => lines.push(line) });
    const services = await createServices(harness.config, logger, { db: harness.database.db });
    const logged = await buildApp({ services, logger });
    try {
      const workspace = await createWorkspace(logged);
      const path = await inviteByAdmin(logged, workspace.workspaceId, "quiet@agency.test");
      const browser = new ConsoleBrowser(logged);
      const page = await browser.get(path);
      expect(page.statusCode).toBe(200);
      const joined = await browser.post("/app/invite", {
        csrf_token: csrfOf(page.body),
        token: tokenOf(path),
        name: "Quiet",
        password: PASSWORD,
      });
      expect(joined.statusCode).toBe(303);
      const output = lines.join("");
      expect(output).toContain('"url":"/app/invite"');
      expect(output).not.toContain(tokenOf(path));
      expect(output).not.toContain(PASSWORD);
    } finally {
      await logged.close();
      await services.close();
    }
  });

  it("refuses what PostgreSQL cannot store with 400 naming the field, on sign-in and on forms", async () => {
    const workspace = await seededWorkspace("Nul Agency", "nul@agency.test");
    const keysPath = `/app/w/${workspace.workspaceId}/keys`;
    const nul = await workspace.browser.submit(keysPath, keysPath, { name: "bad\u0000name" });
    expect(nul.statusCode).toBe(400);
    expect(nul.body).toContain("name: holds a character that cannot be saved");
    // (A form body cannot carry an unpaired surrogate: URL encoding turns it into U+FFFD.)
    const signIn = await new ConsoleBrowser(harness.app).submit("/app/sign-in", "/app/sign-in", {
      email: "nul\u0000@agency.test",
      password: PASSWORD,
    });
    expect(signIn.statusCode).toBe(400);
    expect(signIn.body).toContain("email: holds a character that cannot be saved");
  });

  it("sends the console's security headers and no cross-site framing", async () => {
    const response = await new ConsoleBrowser(harness.app).get("/app/sign-in");
    expect(response.headers["x-frame-options"]).toBe("DENY");
    expect(response.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(response.headers["content-security-policy"]).toContain("form-action 'self'");
    expect(response.headers["cache-control"]).toBe("no-store");
  });
});
