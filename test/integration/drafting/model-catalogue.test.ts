/**
 * The draft route against a catalogue of real-model behaviours (test/support/model-catalogue.ts),
 * served by the fake OpenAI-compatible server over real HTTP on loopback. Where the answer can be
 * repaired: 200, charged once, and the draft passes the one draft checker. Where it would mislead
 * (or the server fails): 502, nothing charged. Either way, exactly the model calls intended,
 * counted on the fake.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { detectLanguage, findDraftProblems } from "../../../shared/drafting/check-draft.ts";
import type { FactKey } from "../../../shared/drafting/facts.ts";
import type { DraftRequest } from "../../../shared/drafting/generator.ts";
import {
  adminRequest,
  createWorkspace,
  type SiblingApp,
  startSiblingApp,
  startTestApp,
  type TestApp,
  type TestWorkspace,
} from "../../support/app.ts";
import { seedLead } from "../../support/drafting.ts";
import {
  type BehaviourChooser,
  type FakeOpenAiServer,
  rejectingResponseFormat,
  startFakeOpenAi,
} from "../../support/fake-openai.ts";
import { firstThen, modelCatalogue, promptOf } from "../../support/model-catalogue.ts";

const MODEL = "fake-local-model";
const STARTING_CREDITS = 10;
const SENDER = {
  sender_name: "Claire Dubois",
  sender_company: "Pixel & Pine Studio",
  offer_en: "A mobile-friendly website rebuild",
  offer_fr: "Une refonte de site adaptée aux téléphones",
};
const SIGN_OFF = { en: "Best regards,", fr: "Bien cordialement," } as const;
const POSTAL_PLACEHOLDER = { en: "[Your postal address]", fr: "[Votre adresse postale]" } as const;

let fake: FakeOpenAiServer;
let app: TestApp;

function llmEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    RATE_LIMIT_READ_PER_MIN: "1000",
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_MODEL: MODEL,
    OPENAI_BASE_URL: fake.baseURL,
    ...extra,
  };
}

beforeAll(async () => {
  fake = await startFakeOpenAi();
  app = await startTestApp(llmEnv());
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
});

type AppLike = Pick<TestApp, "app"> & { database: TestApp["database"] };

interface DraftAttempt {
  status: number;
  body: { subject: string; body: string; facts_used: FactKey[] } & { error?: { code: string } };
  ws: TestWorkspace;
  leadId: string;
}

/** A workspace with a sender and an offer, a lead with verified facts, and one draft request. */
async function attemptDraft(
  target: AppLike,
  locale: "en" | "fr",
  behaviour: BehaviourChooser,
): Promise<DraftAttempt> {
  const ws = await createWorkspace(target.app);
  const patched = await adminRequest(target.app, "PATCH", `/admin/workspaces/${ws.workspaceId}`, SENDER);
  expect(patched.statusCode).toBe(200);
  const leadId = await seedLead(target, ws, { name: "Maple Leaf Plumbing" });
  fake.respondWith(behaviour);
  const response = await target.app.inject({
    method: "POST",
    url: `/v1/leads/${leadId}/outreach-draft`,
    headers: { ...ws.auth, "content-type": "application/json" },
    payload: { locale },
  });
  return { status: response.statusCode, body: response.json(), ws, leadId };
}

async function ledgerOf(target: AppLike, attempt: DraftAttempt) {
  const db = target.database.db;
  const { balance } = await db
    .selectFrom("workspaces")
    .select("balance")
    .where("id", "=", attempt.ws.workspaceId)
    .executeTakeFirstOrThrow();
  const drafts = await db.selectFrom("drafts").select("id").where("lead_id", "=", attempt.leadId).execute();
  const holds = await db
    .selectFrom("credit_holds")
    .select("id")
    .where("workspace_id", "=", attempt.ws.workspaceId)
    .execute();
  return { balance, drafts: drafts.length, holds: holds.length };
}

/**
 * The one checker every produced draft passes (the service's own, fed from what the model was
 * actually given), and the same properties stated plainly: names the business, carries the
 * signature and the offer, in the requested language.
 */
function expectSendable(attempt: DraftAttempt, locale: "en" | "fr") {
  const sent = fake.requests.at(-1);
  if (sent === undefined) throw new Error("the model was never called");
  const prompt = promptOf(sent);
  const request: DraftRequest = {
    locale,
    business: prompt.business,
    facts: prompt.facts.map((fact) => ({ key: fact.key as FactKey, details: fact.details })),
    sender: {
      name: SENDER.sender_name,
      company: SENDER.sender_company,
      offer: locale === "fr" ? SENDER.offer_fr : SENDER.offer_en,
      postalAddress: null,
    },
    emailFoundOnWebsite: false,
  };
  const draft = attempt.body;
  expect(findDraftProblems(draft, request)).toEqual([]);
  expect(draft.body).toContain("Maple Leaf Plumbing");
  expect(draft.body).toContain(
    `\n\n${SIGN_OFF[locale]}\nClaire Dubois\nPixel & Pine Studio\n${POSTAL_PLACEHOLDER[locale]}\n\n`,
  );
  // Only the offer of the draft's own language.
  expect(draft.body).toContain(locale === "fr" ? SENDER.offer_fr : SENDER.offer_en);
  expect(draft.body).not.toContain(locale === "fr" ? SENDER.offer_en : SENDER.offer_fr);
  expect(detectLanguage(draft.body)).toBe(locale);
  expect(draft.body).not.toMatch(/https?:|www\.|@|\*\*|```|^#|^- /m);
  // One greeting and one sign-off, the service's: the model's own were dropped.
  expect(draft.body.match(/^(?:hello|hi|dear|bonjour)\b/gim)).toHaveLength(1);
  expect(draft.body.match(/regards|cordialement/gi)).toHaveLength(1);
}

async function expectRepaired(target: AppLike, attempt: DraftAttempt, locale: "en" | "fr", calls: number) {
  expect({ status: attempt.status, body: attempt.body }).toMatchObject({ status: 200 });
  if (process.env.SHOW_DRAFTS === "1") console.log(`${attempt.body.subject}\n\n${attempt.body.body}\n---`);
  expect(fake.completionCalls()).toBe(calls);
  expectSendable(attempt, locale);
  expect(await ledgerOf(target, attempt)).toEqual({ balance: STARTING_CREDITS - 1, drafts: 1, holds: 0 });
}

async function expectRefused(target: AppLike, attempt: DraftAttempt, calls: number) {
  expect({ status: attempt.status, body: attempt.body }).toMatchObject({
    status: 502,
    body: { error: { code: "generation_failed" } },
  });
  expect(fake.completionCalls()).toBe(calls);
  expect(await ledgerOf(target, attempt)).toEqual({ balance: STARTING_CREDITS, drafts: 0, holds: 0 });
}

describe("repaired: 200, charged once, one model call", () => {
  const cases: [string, "en" | "fr", BehaviourChooser][] = [
    ["follows the prompt", "en", modelCatalogue.wellBehaved],
    ["omits the signature (signs off with just 'Best regards')", "en", modelCatalogue.omitsSignature],
    ["omits the signature, in French", "fr", modelCatalogue.omitsSignature],
    ["omits the business name", "fr", modelCatalogue.omitsBusinessName],
    ["wraps the JSON in a code fence", "en", modelCatalogue.wrapsJsonInCodeFence],
    ["answers in markdown instead of JSON", "en", modelCatalogue.answersInMarkdown],
    ["answers in markdown instead of JSON, in French", "fr", modelCatalogue.answersInMarkdown],
    ["returns a tool call instead of content", "fr", modelCatalogue.returnsToolCall],
    ["streams its answer unasked", "en", modelCatalogue.streams],
  ];
  it.each(cases)("when the model %s (%s)", async (_label, locale, behaviour) => {
    const attempt = await attemptDraft(app, locale, behaviour);
    await expectRepaired(app, attempt, locale, 1);
  });
});

describe("refused once, right when told why: 200, charged once, two model calls", () => {
  const cases: [string, "en" | "fr", BehaviourChooser][] = [
    ["answers in English when asked French", "fr", modelCatalogue.answersInEnglish],
    ["invents a year", "en", modelCatalogue.inventsYear],
    ["invents a review count", "fr", modelCatalogue.inventsReviewCount],
    ["adds a link", "en", modelCatalogue.addsLink],
    ["is cut off at its token limit", "en", modelCatalogue.cutOff],
  ];
  it.each(cases)("when the model first %s (%s)", async (_label, locale, first) => {
    const attempt = await attemptDraft(app, locale, firstThen(first, modelCatalogue.wellBehaved));
    await expectRepaired(app, attempt, locale, 2);
    // The second request carried the first answer and why it was refused.
    const retry = fake.requests[1]?.json as { messages: { role: string; content: string }[] };
    expect(retry.messages.at(-1)?.content).toMatch(/^That answer cannot be used: /);
  });
});

describe("refused: 502, nothing charged, exactly the calls intended", () => {
  const cases: [string, "en" | "fr", BehaviourChooser, number][] = [
    ["answers in English when asked French, twice", "fr", modelCatalogue.answersInEnglish, 2],
    ["invents a year, twice", "en", modelCatalogue.inventsYear, 2],
    ["invents a review count, twice", "en", modelCatalogue.inventsReviewCount, 2],
    ["adds a link, twice", "fr", modelCatalogue.addsLink, 2],
    ["adds an email address, twice", "en", modelCatalogue.addsEmailAddress, 2],
    ["is cut off, twice", "en", modelCatalogue.cutOff, 2],
    // The SDK's one retry of a failed HTTP attempt; no second generation after a server failure.
    ["the server answers 500", "en", { kind: "status", status: 500, retryAfterMs: 10 }, 2],
  ];
  it.each(cases)("when %s (%s)", async (_label, locale, behaviour, calls) => {
    const attempt = await attemptDraft(app, locale, behaviour);
    await expectRefused(app, attempt, calls);
  });

  it("when the server answers 500 once, the SDK's retry drafts: 200, two calls, charged once", async () => {
    const attempt = await attemptDraft(
      app,
      "en",
      firstThen({ kind: "status", status: 500, retryAfterMs: 10 }, modelCatalogue.wellBehaved),
    );
    await expectRepaired(app, attempt, "en", 2);
  });
});

describe("a server that rejects response_format with 400 (falls back)", () => {
  // Each test gets its own API node: the drafter remembers the mode a server accepted.
  let node: SiblingApp | undefined;
  afterAll(async () => {
    await node?.close();
  });
  async function freshNode(extra: Record<string, string> = {}): Promise<AppLike> {
    await node?.close();
    node = await startSiblingApp(app.database.db, llmEnv(extra));
    return { app: node.app, database: app.database };
  }
  const formatsSent = () =>
    fake.requests.map(
      (request) => (request.json as { response_format?: { type: string } }).response_format?.type ?? "none",
    );

  it("to json_schema and JSON mode: plain text, three calls; the next draft makes one", async () => {
    const target = await freshNode();
    const behaviour = rejectingResponseFormat(["json_schema", "json_object"], modelCatalogue.wellBehaved);
    const attempt = await attemptDraft(target, "fr", behaviour);
    await expectRepaired(target, attempt, "fr", 3);
    expect(formatsSent()).toEqual(["json_schema", "json_object", "none"]);

    fake.reset();
    const next = await attemptDraft(target, "en", behaviour);
    await expectRepaired(target, next, "en", 1);
    expect(formatsSent()).toEqual(["none"]);
  });

  it("to json_schema only: JSON mode, two calls; the next draft makes one", async () => {
    const target = await freshNode();
    const behaviour = rejectingResponseFormat(["json_schema"], modelCatalogue.answersInMarkdown);
    const attempt = await attemptDraft(target, "en", behaviour);
    await expectRepaired(target, attempt, "en", 2);
    expect(formatsSent()).toEqual(["json_schema", "json_object"]);

    fake.reset();
    await expectRepaired(target, await attemptDraft(target, "en", behaviour), "en", 1);
    expect(formatsSent()).toEqual(["json_object"]);
  });

  it("to everything: 502 after three calls, nothing charged", async () => {
    const target = await freshNode();
    const attempt = await attemptDraft(target, "en", { kind: "status", status: 400 });
    await expectRefused(target, attempt, 3);
  });

  it("times out: 502 after the attempt and its one retry, nothing charged, the hold released", async () => {
    const target = await freshNode({ OPENAI_TIMEOUT_MS: "300" });
    const attempt = await attemptDraft(target, "en", { kind: "hang" });
    await expectRefused(target, attempt, 2);
  });

  it("a local server with no API key: no Authorization header is sent", async () => {
    const target = await freshNode();
    await node?.close();
    const env = llmEnv();
    delete env.OPENAI_API_KEY;
    node = await startSiblingApp(app.database.db, env);
    const local = { app: node.app, database: target.database };
    const attempt = await attemptDraft(local, "en", modelCatalogue.wellBehaved);
    await expectRepaired(local, attempt, "en", 1);
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
  });
});
