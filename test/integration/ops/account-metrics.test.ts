/**
 * The first-hour counters (issue 33 item 7) read from GET /metrics over real HTTP: account mail by
 * kind (sent, failed), sign-ups and console sign-ins by outcome, and a plain search that answers
 * `truncated: true` counted `ok` (as its log line says) with its reason counted apart.
 */
import { afterAll, describe, expect } from "vitest";
import { ADMIN_TOKEN, createWorkspace } from "../../support/app.ts";
import { PASSWORD } from "../../support/console.ts";
import { type FakeGooglePlacesServer, syntheticPlaces } from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { linkIn, type SmtpSink, startSmtpSink } from "../../support/smtp-sink.ts";

let t: HttpTestApp;
let sink: SmtpSink;
let places: FakeGooglePlacesServer;

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  sink = await startSmtpSink();
  t = await startHttpTestApp({
    ...places.env,
    SIGNUP: "open",
    SMTP_URL: sink.url,
    MAIL_FROM: "Lead discovery <accounts@service.test>",
    ACCOUNT_MAIL_PER_ADDRESS_PER_HOUR: "1000",
    // Two wrong passwords per account and address, then refused; past one per account, slowed (by 0 ms).
    PASSWORD_FAILURES_PER_ACCOUNT_ADDRESS: "2",
    PASSWORD_FAILURES_PER_ACCOUNT: "1",
    PASSWORD_SLOW_DOWN_MS: "0",
  });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

/** The scrape's samples, `name{label="value",...}` -> value. */
async function scrape(): Promise<Map<string, number>> {
  const response = await fetch(`${t.baseUrl}/metrics`);
  expect(response.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const separator = line.lastIndexOf(" ");
    samples.set(line.slice(0, separator), Number(line.slice(separator + 1)));
  }
  return samples;
}

/** The growth of one series between two scrapes; the series must be exported (from 0) in both. */
function grew(before: Map<string, number>, after: Map<string, number>, series: string): number {
  expect(before.has(series), `${series} is exported before any event`).toBe(true);
  expect(after.has(series), `${series} is exported`).toBe(true);
  return (after.get(series) ?? 0) - (before.get(series) ?? 0);
}

const signUp = (email: string) =>
  new HttpConsoleBrowser(t.baseUrl).submit("/app/sign-up", "/app/sign-up", {
    name: "Sam Counter",
    email,
    agency_name: "Counted agency",
  });

/** Waits until the queued mails have all been sent or given up. */
const mailsSettled = () => t.services.mailer?.drain();

describe("account mail, sign-ups and sign-ins in /metrics", () => {
  test("counts each sign-up outcome, each account mail by kind and outcome, and each sign-in outcome", async () => {
    const before = await scrape();

    // A sign-up, its link confirmed; an expired-or-unknown link; a throwaway address; an address
    // that has an account (its owner is mailed).
    const email = "counted@metrics-agency.test";
    expect((await signUp(email)).status).toBe(303);
    const link = new URL(linkIn(await sink.next(email), `${t.baseUrl}/app/sign-up/confirm/`)).pathname;
    const confirmed = await new HttpConsoleBrowser(t.baseUrl).submit(link, "/app/sign-up/confirm", {
      token: link.split("/").at(-1) ?? "",
      password: PASSWORD,
    });
    expect(confirmed.status).toBe(303);
    const used = await new HttpConsoleBrowser(t.baseUrl).get(link);
    expect(used.status).toBe(404);
    expect((await signUp("someone@mailinator.com")).status).toBe(400);
    expect((await signUp(email)).status).toBe(303);
    await sink.next(email);

    // Sign-ins: right; wrong twice (the second slowed: the account's budget of 1 is spent, and its
    // owner is mailed); refused unchecked; an address with no account.
    const browser = new HttpConsoleBrowser(t.baseUrl);
    await browser.signIn(email, PASSWORD);
    const wrong = () =>
      new HttpConsoleBrowser(t.baseUrl).submit("/app/sign-in", "/app/sign-in", {
        email,
        password: "not it at all",
      });
    expect((await wrong()).status).toBe(401);
    expect((await wrong()).status).toBe(401);
    expect((await wrong()).status).toBe(429);
    const unknown = await new HttpConsoleBrowser(t.baseUrl).submit("/app/sign-in", "/app/sign-in", {
      email: "nobody@metrics-agency.test",
      password: PASSWORD,
    });
    expect(unknown.status).toBe(401);

    // An invite the mail server refuses (sent at once by the admin API: 503, the invite cancelled).
    const workspace = await createWorkspace(t.app);
    sink.refuse = true;
    try {
      const invite = await fetch(`${t.baseUrl}/admin/workspaces/${workspace.workspaceId}/invites`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ email: "refused@metrics-agency.test" }),
      });
      expect(invite.status).toBe(503);
    } finally {
      sink.refuse = false;
    }
    await mailsSettled();

    const after = await scrape();
    const signUps = (outcome: string) => grew(before, after, `leadapi_sign_ups_total{outcome="${outcome}"}`);
    expect(signUps("requested")).toBe(1);
    expect(signUps("confirmed")).toBe(1);
    expect(signUps("link_invalid")).toBe(1);
    expect(signUps("disposable_address")).toBe(1);
    expect(signUps("account_exists")).toBe(1);

    const mails = (kind: string, outcome: string) =>
      grew(before, after, `leadapi_account_mails_total{kind="${kind}",outcome="${outcome}"}`);
    expect(mails("sign_up", "sent")).toBe(1);
    expect(mails("sign_up_account_exists", "sent")).toBe(1);
    expect(mails("password_failures", "sent")).toBe(1);
    expect(mails("invite", "failed")).toBe(1);
    expect(mails("invite", "sent")).toBe(0);
    expect(mails("password_reset", "sent")).toBe(0);
    expect(mails("sign_up", "failed")).toBe(0);

    const signIns = (outcome: string) => grew(before, after, `leadapi_sign_ins_total{outcome="${outcome}"}`);
    expect(signIns("ok")).toBe(1);
    expect(signIns("wrong_password")).toBe(2);
    expect(signIns("limited")).toBe(1);
    expect(signIns("unknown_account")).toBe(1);
    expect(grew(before, after, "leadapi_sign_ins_slowed_total")).toBe(1);
  });
});

describe("a plain search in /metrics", () => {
  test("a plain search answered truncated is counted ok, as its log line says, with its reason apart", async () => {
    places.setPlaces("glazier in Ottawa", syntheticPlaces(5, { prefix: "first-hour-metrics" }));
    const workspace = await createWorkspace(t.app);
    const before = await scrape();
    const answer = await fetch(`${t.baseUrl}/v1/searches`, {
      method: "POST",
      headers: { ...workspace.auth, "content-type": "application/json" },
      body: JSON.stringify({ queries: [{ location: "Ottawa", category: "glazier" }], max_results: 2 }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ credits_spent: 2, truncated: true });
    const after = await scrape();
    expect(grew(before, after, 'leadapi_searches_total{outcome="ok"}')).toBe(1);
    expect(after.has('leadapi_searches_total{outcome="truncated"}')).toBe(false);
    expect(grew(before, after, 'leadapi_searches_truncated_total{reason="max_results_reached"}')).toBe(1);
    expect(grew(before, after, 'leadapi_searches_truncated_total{reason="check_budget"}')).toBe(0);
  });
});
