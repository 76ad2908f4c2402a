/**
 * Every console form's validation error in the member's language (over real HTTP, a cookie-keeping
 * fetch browser): a French member posting malformed forms reads French words naming the field and
 * why it was refused, never zod's English; an English member reads the same in English.
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { inviteByAdmin, PASSWORD, tokenOf } from "../../support/console.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { seedLeads } from "../../support/seed.ts";

let harness: TestApp;
let baseUrl: string;

beforeAll(async () => {
  harness = await startTestApp({ RATE_LIMIT_CONSOLE_READ_PER_MIN: "1000" });
  await harness.app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = `http://127.0.0.1:${(harness.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => harness?.close());

/** A member of a new workspace, joined through an invite, signed in and speaking `language`. */
async function member(language: "en" | "fr") {
  const workspace = await createWorkspace(harness.app);
  const email = `forms-${workspace.workspaceId.slice(0, 8)}@agency.test`;
  const invitePath = await inviteByAdmin(harness.app, workspace.workspaceId, email);
  const browser = new HttpConsoleBrowser(baseUrl);
  const joined = await browser.submit(invitePath, "/app/invite", {
    token: tokenOf(invitePath),
    name: "Dana Forms",
    password: PASSWORD,
  });
  if (joined.status !== 303) throw new Error(`join: ${joined.status} ${joined.body.slice(0, 300)}`);
  const profile = await browser.submit("/app/account", "/app/account/profile", {
    name: "Dana Forms",
    language,
  });
  if (profile.status !== 303) throw new Error(`profile: ${profile.status}`);
  return { browser, base: `/app/w/${workspace.workspaceId}` };
}

/** The page's message: the error page's or the form's alert, tags removed. */
const messageOf = (html: string) =>
  [...html.matchAll(/<(?:p|div)[^>]*(?:role="alert"|class="error[^"]*")[^>]*>([\s\S]*?)<\/(?:p|div)>/g)]
    .map((match) => (match[1] ?? "").replace(/<[^>]+>/g, ""))
    .join(" | ");

/** zod's and the API's English, as it read on French pages before. */
const ENGLISH = /\b(?:Invalid|Too (?:big|small)|expected|received|must be|characters|input|option)\b/;

/** A form, the page it is posted from, its malformed fields, and what the French page must say. */
const malformed = (base: string): [string, string, string, Record<string, string>, string][] => [
  [
    "search, max_results in letters",
    `${base}/search`,
    `${base}/search`,
    { location_1: "Ottawa", category_1: "plombier", max_results: "dix" },
    "nombre maximal de prospects\u00a0: ce n&#39;est pas un nombre",
  ],
  [
    "search, an empty location",
    `${base}/search`,
    `${base}/search`,
    { location_1: "", category_1: "plombier", max_results: "5" },
    "recherche 1\u00a0: indiquez un lieu et un métier",
  ],
  [
    "search, a rating over 5",
    `${base}/search`,
    `${base}/search`,
    { location_1: "Ottawa", category_1: "plombier", max_results: "5", min_rating: "9" },
    "note minimale\u00a0: trop grand (5 au plus)",
  ],
  [
    "search, a location too long for the search itself",
    `${base}/search`,
    `${base}/search`,
    {
      location_1: "Ottawa",
      category_1: "plombier",
      location_2: "O".repeat(400),
      category_2: "plombier",
      max_results: "5",
    },
    "lieu (recherche 2)\u00a0: trop long (200 caractères au plus)",
  ],
  [
    "a key's caps in letters",
    `${base}/keys`,
    `${base}/keys`,
    { name: "serveur", daily_credit_cap: "dix", total_credit_cap: "" },
    "Rien n&#39;a été enregistré",
  ],
  [
    "an invite to no address",
    `${base}/members`,
    `${base}/members/invite`,
    { email: "pas une adresse", name: "" },
    "adresse courriel\u00a0: ce n&#39;est pas une adresse courriel",
  ],
  [
    "settings, a sender name too long",
    `${base}/settings`,
    `${base}/settings`,
    { language: "fr", sender_name: "x".repeat(5000), sender_company: "" },
    "nom de l&#39;expéditeur\u00a0: trop long (200 caractères au plus)",
  ],
  [
    "settings, a language not offered",
    `${base}/settings`,
    `${base}/settings`,
    { language: "de", sender_name: "", sender_company: "" },
    "langue\u00a0: ce n&#39;est pas l&#39;un des choix proposés",
  ],
  [
    "an empty do-not-contact entry",
    `${base}/suppressions`,
    `${base}/suppressions`,
    { value: "", reason: "" },
    "entrée\u00a0: manquant",
  ],
  [
    "a profile with no name and no language",
    "/app/account",
    "/app/account/profile",
    { name: "", language: "xx" },
    "nom\u00a0: manquant\u00a0; langue\u00a0: ce n&#39;est pas l&#39;un des choix proposés",
  ],
];

describe("a malformed console form", () => {
  it("tells a French member which field is wrong and why in French, no English", async () => {
    const { browser, base } = await member("fr");
    for (const [what, page, action, fields, french] of malformed(base)) {
      const answer = await browser.submit(page, action, fields);
      expect(answer.status, what).toBe(400);
      expect(answer.body, what).toContain(french);
      expect(messageOf(answer.body), what).not.toMatch(ENGLISH);
    }
    // What the invite itself refuses: an address already a member, one already invited.
    const members = `${base}/members`;
    const own = await browser.submit(members, `${members}/invite`, {
      email: `forms-${base.split("/").at(-1)?.slice(0, 8)}@agency.test`,
      name: "",
    });
    expect(own.status).toBe(400);
    expect(own.body).toContain("adresse courriel\u00a0: déjà membre de cet espace de travail");
    const first = await browser.submit(members, `${members}/invite`, {
      email: "nouveau@agency.test",
      name: "",
    });
    expect(first.status).toBeLessThan(400);
    const again = await browser.submit(members, `${members}/invite`, {
      email: "nouveau@agency.test",
      name: "",
    });
    expect(again.status).toBe(400);
    expect(again.body).toContain(
      "adresse courriel\u00a0: déjà invitée\u00a0; annulez l&#39;invitation en attente",
    );
    expect(messageOf(again.body)).not.toMatch(ENGLISH);
    // A lead marked with a status the form does not offer: the lead page again, in French.
    const [leadId] = await seedLeads(harness.database.db, base.split("/").at(-1) ?? "", [
      { place_id: `forms-${base.slice(-8)}` },
    ]);
    const leadPath = `${base}/leads/${leadId}`;
    const mark = await browser.submit(leadPath, `${leadPath}/mark`, { status: "envoyé" });
    expect(mark.status).toBe(400);
    expect(mark.body).toContain("statut\u00a0: ce n&#39;est pas l&#39;un des choix proposés");
  });

  it("tells an English member the same in English", async () => {
    const { browser, base } = await member("en");
    const search = await browser.submit(`${base}/search`, `${base}/search`, {
      location_1: "Ottawa",
      category_1: "plumber",
      max_results: "ten",
      min_rating: "9",
    });
    expect(search.status).toBe(400);
    expect(search.body).toContain(
      "most leads to return: not a number; minimum rating: too large (5 at most)",
    );
    const invite = await browser.submit(`${base}/members`, `${base}/members/invite`, {
      email: "no",
      name: "",
    });
    expect(invite.body).toContain("Please check the form: email: not an email address");
  });
});
