/**
 * Sign-up findings of the round-4 outside review (issue 31 items 5 and 6) and one free trial per
 * mailbox (issue 28 item 5), over real HTTP against the listening app with SIGNUP=open and a real
 * SMTP server on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD } from "../../support/console.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { linkIn, type SmtpSink, startSmtpSink } from "../../support/smtp-sink.ts";

let t: HttpTestApp;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startHttpTestApp({
    SIGNUP: "open",
    SMTP_URL: sink.url,
    MAIL_FROM: "Lead discovery <accounts@service.test>",
    ACCOUNT_MAIL_PER_ADDRESS_PER_HOUR: "1000",
  });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const db = () => t.database.db;

/** Signs up as a browser does: the form's POST answers 303, and the page it leads to is read. */
async function signUp(email: string, agency = "Farm agency") {
  const browser = new HttpConsoleBrowser(t.baseUrl);
  const answer = await browser.submit("/app/sign-up", "/app/sign-up", {
    name: "Sam Farmer",
    email,
    agency_name: agency,
  });
  expect(answer.status, answer.body.slice(0, 500)).toBe(303);
  return browser.get(answer.location ?? "");
}

/** Signs up and confirms through the mailed link, choosing `password` there. */
async function signUpAndConfirm(email: string, password: string, agency: string) {
  const answer = await signUp(email, agency);
  expect(answer.status, answer.body.slice(0, 500)).toBe(200);
  const link = linkIn(await sink.next(email), `${t.baseUrl}/app/sign-up/confirm/`);
  const owner = new HttpConsoleBrowser(t.baseUrl);
  return owner.submit(new URL(link).pathname, "/app/sign-up/confirm", {
    token: new URL(link).pathname.split("/").at(-1) ?? "",
    password,
  });
}

const counts = async () => ({
  accounts: Number(
    (
      await db()
        .selectFrom("accounts")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  ),
  workspaces: Number(
    (
      await db()
        .selectFrom("workspaces")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  ),
});

describe("the sign-up form is answered like every console form: POST, 303, GET", () => {
  it("leads to a page that says where the link went, in the visitor's language; a reload sends nothing again", async () => {
    for (const [language, words] of [
      ["en", "Check your mailbox: a link is on its way to "],
      ["fr", "Consultez votre boîte de réception\u00a0: un lien est en route vers "],
    ] as const) {
      const email = `reload-${language}@reload-agency.test`;
      const browser = new HttpConsoleBrowser(t.baseUrl);
      const posted = await browser.submit("/app/sign-up", "/app/sign-up", {
        name: "Sam Reload",
        email,
        agency_name: `Reload ${language}`,
        language,
      });
      expect(posted.status, posted.body.slice(0, 300)).toBe(303);
      const location = posted.location ?? "";
      expect(location).toMatch(/^\/app\/sign-up\/sent\?flash=/);
      const page = await browser.get(location);
      expect(page.status).toBe(200);
      expect(page.body).toContain(`${words}${email}`);
      expect(page.body).toContain(`<html lang="${language}"`);
      // A reload reads the same page and posts nothing: one mail, one pending sign-up.
      const reload = await browser.get(location);
      expect(reload.body).toContain(`${words}${email}`);
      expect((await sink.next(email)).to).toContain(email);
      expect(
        await db().selectFrom("sign_ups").select("id").where("email", "=", email).execute(),
      ).toHaveLength(1);
      // Another browser with the address of this page learns nothing from it.
      const other = await new HttpConsoleBrowser(t.baseUrl).get(location);
      expect(other.status).toBe(200);
      expect(other.body).not.toContain(email);
    }
  });
});

describe("item 6: the password is chosen at confirmation, by whoever reads the mailbox", () => {
  it("a stranger who signs up your address chooses no password; you choose yours on the link's page", async () => {
    const victim = "victim@owner-agency.test";
    const form = await new HttpConsoleBrowser(t.baseUrl).get("/app/sign-up");
    expect(form.body).not.toContain('name="password"');
    const confirmed = await signUpAndConfirm(victim, "the owner's own password", "Owner agency");
    expect(confirmed.status).toBe(303);
    // The stranger's guess (what they would have typed at sign-up) opens nothing; the owner's does.
    const stranger = new HttpConsoleBrowser(t.baseUrl);
    const guess = await stranger.submit("/app/sign-in", "/app/sign-in", {
      email: victim,
      password: PASSWORD,
    });
    expect(guess.status).toBe(401);
    await new HttpConsoleBrowser(t.baseUrl).signIn(victim, "the owner's own password");
  });

  it("a link confirmed without an acceptable password creates nothing and asks again", async () => {
    const email = "short@owner-agency.test";
    expect((await signUp(email, "Short agency")).status).toBe(200);
    const link = linkIn(await sink.next(email), `${t.baseUrl}/app/sign-up/confirm/`);
    const browser = new HttpConsoleBrowser(t.baseUrl);
    const page = await browser.get(new URL(link).pathname);
    expect(page.body).toContain('name="password"');
    const refused = await browser.submit(new URL(link).pathname, "/app/sign-up/confirm", {
      token: new URL(link).pathname.split("/").at(-1) ?? "",
      password: "short",
    });
    expect(refused.status).toBe(400);
    expect(await db().selectFrom("accounts").select("id").where("email", "=", email).execute()).toEqual([]);
  });
});

describe("item 5: sign-up and forgot-password do the same work whatever the answer", () => {
  it("the page answers before the mail is sent, the same for a new address and one with an account", async () => {
    await signUpAndConfirm("known@timing-agency.test", "a long enough password", "Known agency");
    sink.delayMs = 1_500;
    try {
      for (const [path, fields] of [
        ["/app/sign-up", (email: string) => ({ name: "Sam", email, agency_name: "Timing" })],
        ["/app/forgot-password", (email: string) => ({ email })],
      ] as const) {
        const answers: string[] = [];
        for (const email of ["known@timing-agency.test", `new-${path.length}@timing-agency.test`]) {
          const before = sink.mails.filter((mail) => mail.to.includes(email)).length;
          const browser = new HttpConsoleBrowser(t.baseUrl);
          let answer = await browser.submit(path, path, fields(email));
          if (path === "/app/sign-up") {
            // POST, 303, GET: the redirect and the page it leads to are the same for both addresses.
            expect(answer.status, `${path} ${email}`).toBe(303);
            expect(answer.location, `${path} ${email}`).toMatch(/^\/app\/sign-up\/sent\?flash=[\w-]{22}$/);
            answer = await browser.get(answer.location ?? "");
          }
          expect(answer.status, `${path} ${email}`).toBe(200);
          // Answered while the (slow) mail server still holds the mail, if one is sent at all.
          expect(sink.mails.filter((mail) => mail.to.includes(email)).length, `${path} ${email}`).toBe(
            before,
          );
          answers.push(answer.body.replaceAll(email, "EMAIL").replace(/value="[^"]+"/g, ""));
        }
        expect(answers[0], path).toBe(answers[1]);
      }
      // The mails do go out, after the answers.
      expect((await sink.next("known@timing-agency.test")).subject).toBe(
        "You already have a Lead discovery account",
      );
    } finally {
      sink.delayMs = 0;
    }
  });
});

describe("issue 28 item 5: one account, so one free trial, per mailbox", () => {
  it("sign-ups from aliases of an account's mailbox create nothing and are answered as for any existing address", async () => {
    expect((await signUpAndConfirm("jdoe@gmail.com", "the real jdoe's password", "Jdoe agency")).status).toBe(
      303,
    );
    expect(
      (await signUpAndConfirm("sam@farm-agency.test", "the real sam's password", "Sam agency")).status,
    ).toBe(303);
    const before = await counts();
    const fresh = await signUp("nobody-yet@fresh-agency.test");
    const freshPage = fresh.body
      .replace("nobody-yet@fresh-agency.test", "EMAIL")
      .replace(/value="[^"]+"/g, "");
    const aliases = [
      "J.Doe@gmail.com",
      "jdoe+trial2@gmail.com",
      "JDOE@googlemail.com",
      "j.d.o.e+farm@GoogleMail.com",
      "Sam+second@Farm-Agency.test",
    ];
    for (const alias of aliases) {
      const answer = await signUp(alias, `Farm ${alias}`);
      expect(answer.status, alias).toBe(fresh.status);
      expect(answer.body.replace(alias, "EMAIL").replace(/value="[^"]+"/g, ""), alias).toBe(freshPage);
      // The mailbox's owner is told, exactly as for a sign-up of their own address.
      expect((await sink.next(alias)).subject, alias).toBe("You already have a Lead discovery account");
    }
    const lowered = aliases.map((alias) => alias.toLowerCase());
    expect(
      await db()
        .selectFrom("sign_ups")
        .select("email")
        .where((eb) => eb(eb.fn("lower", ["email"]), "in", lowered))
        .execute(),
    ).toEqual([]);
    // The fresh address's sign-up is pending, nothing else: no account and no workspace from any alias.
    expect(await counts()).toEqual(before);
  });

  it("two pending sign-ups of one mailbox: the second link, confirmed after the first, creates nothing", async () => {
    const first = await signUp("kim.lee@gmail.com", "Kim one");
    const second = await signUp("kimlee+two@googlemail.com", "Kim two");
    expect([first.status, second.status]).toEqual([200, 200]);
    const links = [
      linkIn(await sink.next("kim.lee@gmail.com"), `${t.baseUrl}/app/sign-up/confirm/`),
      linkIn(await sink.next("kimlee+two@googlemail.com"), `${t.baseUrl}/app/sign-up/confirm/`),
    ];
    const before = await counts();
    const statuses: number[] = [];
    for (const link of links) {
      const path = new URL(link).pathname;
      statuses.push(
        (
          await new HttpConsoleBrowser(t.baseUrl).submit(path, "/app/sign-up/confirm", {
            token: path.split("/").at(-1) ?? "",
            password: "a long enough password",
          })
        ).status,
      );
    }
    expect(statuses).toEqual([303, 400]);
    expect(await counts()).toEqual({ accounts: before.accounts + 1, workspaces: before.workspaces + 1 });
  });
});
