/**
 * A search the balance cannot cover (issue 33 item 3): the 402 `insufficient_credits` says in
 * `message` how many new places it found, what they would cost, the balance, and the two ways out
 * (a lower max_results, credits bought on the console's Credits page); the console's refusal says
 * the same in English and in French. Nothing is saved or charged (the spec's 402 row).
 */
import { afterAll, describe, expect } from "vitest";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { signedUpMember } from "../../support/console.ts";
import { type FakeGooglePlacesServer, syntheticPlaces } from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";

let t: TestApp;
let places: FakeGooglePlacesServer;

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  places.setPlaces("tiler in Ottawa", syntheticPlaces(12, { prefix: "refusal-a" }));
  places.setPlaces("welder in Ottawa", syntheticPlaces(3, { prefix: "refusal-b" }));
  t = await startTestApp({ ...places.env, RATE_LIMIT_SEARCH_PER_MIN: "1000" });
});
afterAll(() => t?.close());

const TWELVE_TILERS = { queries: [{ location: "Ottawa", category: "tiler" }], max_results: 12 };

async function leadCount(workspaceId: string): Promise<number> {
  const row = await t.database.db
    .selectFrom("leads")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The notice's text of a console page, tags and entities read as a person sees them. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/&nbsp;|&#160;/g, "\u00a0")
    .replace(/[ \t\r\n]+/g, " ");

describe("POST /v1/searches refused for credits", () => {
  test("names the new places, their cost, the balance, a max_results that fits and the Credits page", async () => {
    const workspace = await createWorkspace(t.app);
    const answer = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: workspace.auth,
      payload: TWELVE_TILERS,
    });
    expect(answer.statusCode).toBe(402);
    expect(answer.json().error).toEqual({
      code: "insufficient_credits",
      message:
        "The search found 12 new places, which would cost 12 credits (1 credit per new place); the balance is 10. Nothing was saved or charged. To go on, lower max_results to 10 or fewer (places already charged in this workspace are free), or buy credits on the Credits page of the console.",
    });
    expect(await leadCount(workspace.workspaceId)).toBe(0);

    // The way out it names works: max_results 10 fits the balance.
    const lower = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: workspace.auth,
      payload: { ...TWELVE_TILERS, max_results: 10 },
    });
    expect(lower.statusCode, lower.body).toBe(200);
    expect(lower.json().credits_spent).toBe(10);
  });

  test("at a balance of 0, names only buying credits", async () => {
    const workspace = await createWorkspace(t.app);
    const spend = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: workspace.auth,
      payload: { ...TWELVE_TILERS, max_results: 10 },
    });
    expect(spend.json().credits_spent).toBe(10);
    const answer = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: workspace.auth,
      payload: { queries: [{ location: "Ottawa", category: "welder" }], max_results: 1 },
    });
    expect(answer.statusCode).toBe(402);
    expect(answer.json().error.message).toBe(
      "The search found 1 new place, which would cost 1 credit (1 credit per new place); the balance is 0. Nothing was saved or charged. To go on, buy credits on the Credits page of the console.",
    );
  });
});

describe("the console's search refused for credits", () => {
  test("says the same in English and in French", async () => {
    const expected = {
      en: 'Not enough credits: this search found 12 new leads, which would cost 12 credits (1 credit per new lead), and your balance is 10. Nothing was saved or charged. To go on, lower "Most leads to return" to 10 or fewer (leads you already have are free), or buy credits on the Credits page.',
      fr: "Pas assez de crédits\u00a0: cette recherche a trouvé 12 nouveaux prospects, qui coûteraient 12 crédits (1 crédit par nouveau prospect), et votre solde est de 10. Rien n'a été enregistré ni facturé. Pour continuer, réduisez «\u00a0Nombre maximal de prospects\u00a0» à 10 ou moins (ceux que vous avez déjà sont gratuits), ou achetez des crédits sur la page Crédits.",
    } as const;
    for (const language of ["en", "fr"] as const) {
      const workspace = await createWorkspace(t.app, { language });
      const email = `searcher-${language}@refusal-agency.test`;
      const browser = await signedUpMember(t.app, workspace.workspaceId, email);
      await t.database.db.updateTable("accounts").set({ language }).where("email", "=", email).execute();
      const searchPage = `/app/w/${workspace.workspaceId}/search`;
      const refused = await browser.submit(searchPage, searchPage, {
        location_1: "Ottawa",
        category_1: "tiler",
        max_results: "12",
      });
      expect(refused.statusCode, language).toBe(402);
      expect(textOf(refused.body), language).toContain(expected[language]);
      expect(await leadCount(workspace.workspaceId)).toBe(0);
    }
  });
});
