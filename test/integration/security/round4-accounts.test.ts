/**
 * The account findings of the round-4 outside review (issue 31) over real HTTP against the
 * listening app, which trusts one proxy hop (TRUST_PROXY_HOPS=1) so that X-Forwarded-For stands
 * for the many client addresses an attacker has: IPv6 counted by /64 and a per-account failure
 * budget that slows and mails the owner (item 1); invites counted per member and per workspace,
 * one pending per address, nothing a member typed in a Subject (item 2).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, type SiblingApp, startSiblingApp } from "../../support/app.ts";
import { PASSWORD, signedUpMember } from "../../support/console.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { type SmtpSink, startSmtpSink } from "../../support/smtp-sink.ts";

let t: HttpTestApp;
let sink: SmtpSink;
/** The same database without mail: the operator's invites answer their link there (accounts are made through it). */
let setUp: SiblingApp;
const SLOW_DOWN_MS = 1_500;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startHttpTestApp({
    TRUST_PROXY_HOPS: "1",
    SMTP_URL: sink.url,
    MAIL_FROM: "Lead discovery <accounts@service.test>",
    PASSWORD_FAILURES_PER_ACCOUNT_ADDRESS: "3",
    PASSWORD_FAILURES_PER_ADDRESS: "5",
    PASSWORD_FAILURES_PER_ACCOUNT: "8",
    PASSWORD_SLOW_DOWN_MS: String(SLOW_DOWN_MS),
    ACCOUNT_MAIL_PER_ADDRESS_PER_HOUR: "3",
    INVITES_PER_HOUR: "3",
  });
  setUp = await startSiblingApp(t.database.db);
});
afterAll(async () => {
  await setUp?.close();
  await t?.close();
  await sink?.close();
});

/** One sign-in attempt from `address`, in a fresh browser (as a script would). */
async function signInFrom(address: string, email: string, password: string) {
  const browser = new HttpConsoleBrowser(t.baseUrl, { forwardedFor: address });
  return browser.submit("/app/sign-in", "/app/sign-in", { email, password });
}

describe("item 1: per-address limits count an IPv6 client by its /64; each account has a budget across addresses", () => {
  it("wrong passwords from 30 addresses of one /64 are counted together; another /64 is not", async () => {
    const ws = await createWorkspace(setUp.app, { name: "Prefix agency" });
    const accounts = ["one@prefix.test", "two@prefix.test", "three@prefix.test"];
    for (const email of accounts) await signedUpMember(setUp.app, ws.workspaceId, email);
    const statuses: number[] = [];
    for (let index = 1; index <= 30; index += 1) {
      const address = `2001:db8:aa:1::${index.toString(16)}`;
      statuses.push((await signInFrom(address, accounts[index % 3] ?? "", `wrong guess ${index}`)).status);
    }
    // PASSWORD_FAILURES_PER_ADDRESS=5: five checked, every other refused before any scrypt.
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
    // The same /64 written another way is the same client; a neighbouring /64 is another.
    expect((await signInFrom("2001:0db8:00aa:0001:ffff::1", accounts[0] ?? "", "again")).status).toBe(429);
    expect((await signInFrom("2001:db8:aa:2::1", accounts[0] ?? "", PASSWORD)).status).toBe(303);
  });

  it("OAuth client registrations from two addresses of one /64 share one budget; another /64 has its own", async () => {
    const registrar = await startHttpTestApp({
      TRUST_PROXY_HOPS: "1",
      RATE_LIMIT_OAUTH_REGISTER_PER_MIN: "2",
    });
    try {
      const register = (from: string) =>
        fetch(`${registrar.baseUrl}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": from },
          body: JSON.stringify({ client_name: "Assistant", redirect_uris: ["https://assistant.example/cb"] }),
        });
      const statuses = [
        (await register("2001:db8:bb:1::1")).status,
        (await register("2001:db8:bb:1:ffff:ffff:ffff:fffe")).status,
        // A third address of the same /64, written another way: the /64's budget of 2 is spent.
        (await register("2001:0db8:00bb:0001:1234::9")).status,
      ];
      expect(statuses).toEqual([201, 201, 429]);
      const refused = await register("2001:db8:bb:1::77");
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // The neighbouring /64 and an IPv4 client count apart.
      expect((await register("2001:db8:bb:2::1")).status).toBe(201);
      expect((await register("2001:db8:bb:2::2")).status).toBe(201);
      expect((await register("203.0.113.9")).status).toBe(201);
      const clients = await registrar.database.db.selectFrom("oauth_clients").select("id").execute();
      expect(clients).toHaveLength(5);
    } finally {
      await registrar.close();
    }
  });

  it("wrong admin tokens from addresses of one /64 share one budget; another /64 has its own", async () => {
    const guarded = await startHttpTestApp({ TRUST_PROXY_HOPS: "1", RATE_LIMIT_ADMIN_FAILURES_PER_MIN: "2" });
    try {
      const guess = async (from: string) =>
        (
          await fetch(`${guarded.baseUrl}/admin/workspaces`, {
            headers: { authorization: "Bearer not-the-admin-token", "x-forwarded-for": from },
          })
        ).status;
      expect([
        await guess("2001:db8:cc:1::1"),
        await guess("2001:db8:cc:1::2"),
        await guess("2001:0db8:00cc:0001:abcd::3"),
      ]).toEqual([401, 401, 429]);
      expect(await guess("2001:db8:cc:2::1")).toBe(401);
    } finally {
      await guarded.close();
    }
  });

  it("sign-ups and reset requests (account mail) from one /64 share one hourly allowance", async () => {
    const statuses: number[] = [];
    for (let index = 1; index <= 6; index += 1) {
      const browser = new HttpConsoleBrowser(t.baseUrl, { forwardedFor: `2001:db8:bb:7::${index}` });
      statuses.push(
        (
          await browser.submit("/app/forgot-password", "/app/forgot-password", {
            email: `nobody${index}@prefix.test`,
          })
        ).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
  });

  it("failures from many /64s pass the account's budget: checks slow down, the owner is mailed once and still signs in", async () => {
    const ws = await createWorkspace(setUp.app, { name: "Target agency" });
    const owner = "target@victim.test";
    await signedUpMember(setUp.app, ws.workspaceId, owner);
    // Two guesses from each of six /64s: 12 failures, none refused by a per-address limit.
    const statuses: number[] = [];
    for (let network = 1; network <= 6; network += 1) {
      for (let guess = 1; guess <= 2; guess += 1) {
        statuses.push(
          (await signInFrom(`2001:db8:c${network}::${guess}`, owner, `guess ${network}-${guess}`)).status,
        );
      }
    }
    expect(statuses.every((status) => status === 401)).toBe(true);
    const mail = await sink.next(owner);
    expect(mail.subject).toContain("Wrong passwords");
    expect(mail.text).toContain("/app/forgot-password");
    // Past the budget, a check of the account waits before the password is looked at...
    const started = performance.now();
    expect((await signInFrom("2001:db8:d1::1", owner, "one more guess")).status).toBe(401);
    expect(performance.now() - started).toBeGreaterThanOrEqual(SLOW_DOWN_MS);
    // ...but is never refused: the owner, from her own address, signs in with her password.
    expect((await signInFrom("192.0.2.77", owner, PASSWORD)).status).toBe(303);
    // Told once per window, not once per failure.
    expect(sink.mails.filter((received) => received.to.includes(owner))).toHaveLength(1);
  });
});

describe("item 2: invites are no mail relay", () => {
  /** A member signed in on the mail-sending app (joined through the operator's link on the other). */
  async function memberOf(workspaceId: string, email: string): Promise<HttpConsoleBrowser> {
    const joined = await signedUpMember(setUp.app, workspaceId, email);
    const browser = new HttpConsoleBrowser(t.baseUrl, { forwardedFor: "192.0.2.200" });
    for (const [name, value] of joined.cookies) browser.cookies.set(name, value);
    return browser;
  }
  const invite = (member: HttpConsoleBrowser, workspaceId: string, email: string) =>
    member.submit(`/app/w/${workspaceId}/members`, `/app/w/${workspaceId}/members/invite`, {
      email,
      name: "",
    });

  it("INVITES_PER_HOUR per workspace; the Subject says nothing the member typed; one pending invite per address", async () => {
    const ws = await createWorkspace(setUp.app, { name: "WIN 5000 USD http://prize.example now" });
    const member = await memberOf(ws.workspaceId, "relay@spam-agency.test");
    const statuses: number[] = [];
    for (let index = 1; index <= 5; index += 1) {
      statuses.push((await invite(member, ws.workspaceId, `target${index}@victims.test`)).status);
    }
    expect(statuses).toEqual([303, 303, 303, 429, 429]);
    const mail = await sink.next("target1@victims.test");
    expect(mail.subject).toBe("You are invited to a workspace on Lead discovery");
    expect(mail.subject).not.toContain("WIN");
    expect(
      sink.mails.filter((received) => received.to.some((to) => to.endsWith("@victims.test"))),
    ).toHaveLength(3);

    // The limit page is in the member's words, and says how long to wait.
    const refused = await invite(member, ws.workspaceId, "target9@victims.test");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body).toContain("Too many invites");

    // The same address again while its invite is pending: refused, no second mail.
    const other = await createWorkspace(setUp.app, { name: "Second agency" });
    const second = await memberOf(other.workspaceId, "second@spam-agency.test");
    expect((await invite(second, other.workspaceId, "again@victims.test")).status).toBe(303);
    expect((await invite(second, other.workspaceId, "Again@Victims.test")).status).toBe(400);
    await sink.next("again@victims.test");
    expect(sink.mails.filter((received) => received.to.includes("again@victims.test"))).toHaveLength(1);
  });

  it("a member's invites count across every workspace they belong to", async () => {
    const first = await createWorkspace(setUp.app, { name: "First of many" });
    const member = await memberOf(first.workspaceId, "hopper@spam-agency.test");
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) {
      const ws = await createWorkspace(setUp.app, { name: `Hop ${index}` });
      // The same person is a member of each workspace (set up in SQL: one account, many memberships).
      const account = await t.database.db
        .selectFrom("accounts")
        .select("id")
        .where("email", "=", "hopper@spam-agency.test")
        .executeTakeFirstOrThrow();
      await t.database.db
        .insertInto("members")
        .values({ workspace_id: ws.workspaceId, email: "hopper@spam-agency.test", account_id: account.id })
        .execute();
      statuses.push((await invite(member, ws.workspaceId, `hop${index}@victims.test`)).status);
    }
    expect(statuses).toEqual([303, 303, 303, 429]);
  });
});
