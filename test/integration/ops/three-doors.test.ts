/**
 * The same operations through the three doors, over real HTTP: `/v1` with an API key, `/mcp` with
 * an OAuth access token through the MCP SDK's client, and the console's own forms with a
 * signed-in member's session cookie. Each door works in a workspace of its own, so each search finds the same new
 * places; then the ledger (in SQL), the rate-limit counts and the operations' log lines must be
 * the same whatever the door.
 */
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../api/app.ts";
import { createServices, type Services } from "../../../api/services.ts";
import { loadConfig } from "../../../shared/config.ts";
import { createLogger, loggerOptions } from "../../../shared/logger.ts";
import type { RateLimitBucket } from "../../../shared/rate-limits.ts";
import {
  ADMIN_TOKEN,
  createWorkspace,
  type TestWorkspace,
  UNLIMITED_ABUSE_GUARDS,
} from "../../support/app.ts";
import { csrfOf } from "../../support/console.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { type FakeGooglePlacesServer, syntheticPlaces } from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { freePort, memberSession, obtainTokens } from "../../support/oauth.ts";

type LogLine = Record<string, unknown>;
type Door = "v1" | "mcp" | "console";

const SEARCH = { queries: [{ location: "Ottawa", category: "plumber" }], max_results: 3 };
const READ_LIMIT = 40;
/** Every operation's log line: the request logger's fields and the operation's own. */
const LOG_KEYS = [
  "credits_spent",
  "duration_ms",
  "hostname",
  "level",
  "msg",
  "name",
  "operation",
  "outcome",
  "pid",
  "principal",
  "reqId",
  "time",
  "workspace_id",
];
const SEARCH_LIMIT = 7;

let fake: FakeGooglePlacesServer;
let database: TestDatabase;
let services: Services;
let app: FastifyInstance;
let baseUrl: string;
const logLines: LogLine[] = [];
const openClients: Client[] = [];

test.beforeAll(async ({ googlePlaces }) => {
  fake = googlePlaces;
  const places = syntheticPlaces(3, { prefix: "doors" });
  delete places[0]!.websiteUri; // no website: a fact the template drafter can ground a draft in
  fake.setPlaces("plumber in Ottawa", places);
  database = await createTestDatabase();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    ADMIN_TOKEN,
    PUBLIC_URL: baseUrl,
    ...fake.env,
    RATE_LIMIT_READ_PER_MIN: String(READ_LIMIT),
    RATE_LIMIT_SEARCH_PER_MIN: String(SEARCH_LIMIT),
    ...UNLIMITED_ABUSE_GUARDS,
  });
  services = await createServices(config, createLogger("silent", "test"), { db: database.db });
  // The production logger's options, writing into this test's memory.
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line) logLines.push(JSON.parse(line));
      done();
    },
  });
  app = await buildApp({ services, logger: pino(loggerOptions("info", "api"), capture) });
  await app.listen({ port, host: "127.0.0.1" });
});

afterAll(async () => {
  for (const client of openClients) await client.close();
  await app?.close();
  await services?.close();
  await database?.close();
});

interface SearchAnswer {
  results: { id: string; place_id: string; website: string | null }[];
  credits_spent: number;
  truncated: boolean;
}

interface DoorRun {
  workspace: TestWorkspace;
  /** Whose per-minute buckets the door's calls spend. */
  rateLimitId: string;
  search: SearchAnswer;
  lead: Record<string, unknown>;
  /** Drafts a lead that is not there, through this door: what the door answered. */
  draftUnknownLead(): Promise<string>;
}

/** The member id the console and OAuth grants count against: the workspace's signed-in person. */
async function signedInMemberOf(workspaceId: string): Promise<string> {
  const rows = await database.db
    .selectFrom("members")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where("account_id", "is not", null)
    .where("removed_at", "is", null)
    .execute();
  expect(rows).toHaveLength(1);
  return rows[0]!.id;
}

const noWebsiteLead = (search: SearchAnswer) => {
  const lead = search.results.find((result) => result.website === null);
  if (!lead) throw new Error(`no lead without a website in ${JSON.stringify(search)}`);
  return lead.id;
};

async function v1(workspace: TestWorkspace, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}/v1${path}`, {
    method,
    headers: {
      ...workspace.auth,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(json)).toBe(200);
  return json;
}

async function throughV1(): Promise<DoorRun> {
  const workspace = await createWorkspace(app, { name: "Door v1" });
  const search = (await v1(workspace, "POST", "/searches", SEARCH)) as unknown as SearchAnswer;
  const leadId = noWebsiteLead(search);
  const lead = await v1(workspace, "GET", `/leads/${leadId}`);
  await v1(workspace, "POST", `/leads/${leadId}/outreach-draft`, {});
  const draftUnknownLead = async () => {
    const response = await fetch(`${baseUrl}/v1/leads/${randomUUID()}/outreach-draft`, {
      method: "POST",
      headers: workspace.auth,
    });
    return `${response.status} ${((await response.json()) as { error: { code: string } }).error.code}`;
  };
  return { workspace, rateLimitId: workspace.keyId, search, lead, draftUnknownLead };
}

async function throughMcp(): Promise<DoorRun> {
  const workspace = await createWorkspace(app, { name: "Door MCP" });
  const session = await memberSession(app, workspace);
  const tokens = await obtainTokens(baseUrl, { session, workspaceId: workspace.workspaceId });
  const client = new Client({ name: "three-doors", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
    }),
  );
  openClients.push(client);
  {
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const first = result.content[0];
      if (first?.type !== "text") throw new Error(`${name}: no text content`);
      expect(result.isError ?? false, first.text).toBe(false);
      return JSON.parse(first.text) as Record<string, unknown>;
    };
    const search = (await call("search_leads", SEARCH)) as unknown as SearchAnswer;
    const leadId = noWebsiteLead(search);
    const lead = await call("get_lead", { lead_id: leadId });
    await call("draft_outreach_email", { lead_id: leadId });
    const draftUnknownLead = async () => {
      const result = (await client.callTool({
        name: "draft_outreach_email",
        arguments: { lead_id: randomUUID() },
      })) as CallToolResult;
      const first = result.content[0];
      return `${result.isError ? "tool error" : "ok"} ${first?.type === "text" ? first.text.split(":")[0] : ""}`;
    };
    return {
      workspace,
      rateLimitId: `member:${await signedInMemberOf(workspace.workspaceId)}`,
      search,
      lead,
      draftUnknownLead,
    };
  }
}

/** The console over HTTP with the member's session cookie: its search form, lead page and draft button. */
async function throughConsole(): Promise<DoorRun> {
  const workspace = await createWorkspace(app, { name: "Door console" });
  const cookie = await memberSession(app, workspace);
  const page = async (url: string) => {
    const response = await fetch(url, { headers: { cookie } });
    const html = await response.text();
    expect(response.status, html.slice(0, 300)).toBe(200);
    return html;
  };
  const submit = async (url: string, formPage: string, fields: Record<string, string>) => {
    const response = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf_token: csrfOf(formPage), ...fields }).toString(),
    });
    expect(response.status, await response.text()).toBe(303);
    return new URL(response.headers.get("location") ?? "", baseUrl).href;
  };

  const searchUrl = `${baseUrl}/app/w/${workspace.workspaceId}/search`;
  const [query] = SEARCH.queries;
  const shown = await page(
    await submit(searchUrl, await page(searchUrl), {
      location_1: query!.location,
      category_1: query!.category,
      max_results: String(SEARCH.max_results),
    }),
  );
  // The results page links each lead; read the same answer back from the saved leads.
  const shownIds = [...new Set([...shown.matchAll(/\/leads\/([0-9a-f-]{36})/g)].map((match) => match[1]!))];
  const saved = await database.db
    .selectFrom("leads")
    .innerJoin("places", "places.place_id", "leads.place_id")
    .select(["leads.id", "leads.place_id", "places.website"])
    .where("leads.workspace_id", "=", workspace.workspaceId)
    .execute();
  const results = shownIds.map((id) => saved.find((lead) => lead.id === id)!);
  expect(results).toHaveLength(saved.length);
  const [searchLine] = operationLines(workspace.workspaceId);
  const search: SearchAnswer = {
    results: results.map(({ id, place_id, website }) => ({ id, place_id, website })),
    credits_spent: searchLine?.credits_spent as number,
    truncated: false,
  };

  const leadId = noWebsiteLead(search);
  const leadUrl = `${baseUrl}/app/w/${workspace.workspaceId}/leads/${leadId}`;
  const drafted = await submit(`${leadUrl}/draft`, await page(leadUrl), {});
  expect(drafted).toMatch(/\/leads\/[0-9a-f-]{36}/);
  // What the page showed, read back the way the other doors answer it.
  const lead = await v1(workspace, "GET", `/leads/${leadId}`);
  const draftUnknownLead = async () => {
    const response = await fetch(`${baseUrl}/app/w/${workspace.workspaceId}/leads/${randomUUID()}/draft`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf_token: csrfOf(await page(searchUrl)) }).toString(),
    });
    await response.text();
    return `${response.status} page`;
  };
  return {
    workspace,
    rateLimitId: `member:${await signedInMemberOf(workspace.workspaceId)}`,
    search,
    lead,
    draftUnknownLead,
  };
}

async function ledgerOf(workspaceId: string) {
  const { rows } = await sql<{
    balance: number;
    search_charges: number;
    drafts: number;
    live_holds: number;
  }>`
    select w.balance,
           (select count(*) from search_charges c where c.workspace_id = w.id)::int as search_charges,
           (select count(*) from drafts d where d.workspace_id = w.id)::int as drafts,
           (select count(*) from credit_holds h where h.workspace_id = w.id and h.expires_at > now())::int
             as live_holds
      from workspaces w where w.id = ${workspaceId}`.execute(database.db);
  return rows[0];
}

/** Requests spent in a bucket: console members count in the console's own budget (issue 31), the others per key. */
const spent = async (bucket: RateLimitBucket, rateLimitId: string, door?: Door) => {
  const limiter = door === "console" ? services.consoleRateLimiter : services.rateLimiter;
  return limiter.limits[bucket].points - (await limiter.remaining(bucket, rateLimitId));
};

const operationLines = (workspaceId: string) =>
  logLines.filter((line) => line.msg === "operation finished" && line.workspace_id === workspaceId);

describe("one search, one lead read and one draft through each door", () => {
  const runs = {} as Record<Door, DoorRun>;

  beforeAll(async () => {
    runs.v1 = await throughV1();
    runs.mcp = await throughMcp();
    runs.console = await throughConsole();
  });

  it("find the same places and read the same lead", () => {
    for (const door of ["mcp", "console"] as const) {
      expect(runs[door].search.results.map((lead) => lead.place_id)).toEqual(
        runs.v1.search.results.map((lead) => lead.place_id),
      );
      const { id: _id, added_at: _added, ...lead } = runs[door].lead;
      const { id: _v1Id, added_at: _v1Added, ...v1Lead } = runs.v1.lead;
      // The console's lead was drafted by then, as the others' (read after their draft).
      expect({ ...lead, outreach_status: "compared" }).toEqual({ ...v1Lead, outreach_status: "compared" });
    }
  });

  it("charge the same, in the ledger: 3 new places, then 1 draft", async () => {
    for (const door of ["v1", "mcp", "console"] as const) {
      expect(runs[door].search.credits_spent, door).toBe(3);
      expect(await ledgerOf(runs[door].workspace.workspaceId), door).toEqual({
        balance: 10 - 3 - 1,
        search_charges: 3,
        drafts: 1,
        live_holds: 0,
      });
    }
  });

  it("spend the same per-minute buckets: one search, two reads (the lead and the draft)", async () => {
    for (const door of ["v1", "mcp", "console"] as const) {
      expect(await spent("search", runs[door].rateLimitId, door), door).toBe(1);
      expect(await spent("read", runs[door].rateLimitId, door), door).toBe(2);
    }
  });

  it("log one line per operation with the same fields, naming the principal's kind", () => {
    const shapes = (["v1", "mcp", "console"] as const).map((door) => {
      const lines = operationLines(runs[door].workspace.workspaceId);
      return {
        door,
        keys: lines.map((line) => Object.keys(line).sort()),
        values: lines.map(({ operation, outcome, credits_spent, principal }) => ({
          operation,
          outcome,
          credits_spent,
          principal,
        })),
      };
    });
    const [v1Shape, mcpShape, consoleShape] = shapes;
    expect(v1Shape?.values).toEqual([
      { operation: "search", outcome: "ok", credits_spent: 3, principal: "api_key" },
      { operation: "get_lead", outcome: "ok", credits_spent: 0, principal: "api_key" },
      { operation: "draft", outcome: "ok", credits_spent: 1, principal: "api_key" },
    ]);
    expect(mcpShape?.values).toEqual(
      v1Shape?.values.map((value) => ({ ...value, principal: "oauth_token" })),
    );
    // The console: its search form, lead page and draft button, then the test's /v1 read-back.
    expect(consoleShape?.values).toEqual([
      ...(v1Shape?.values.map((value) => ({ ...value, principal: "console_member" })) ?? []),
      { operation: "get_lead", outcome: "ok", credits_spent: 0, principal: "api_key" },
    ]);
    // A search's line also says whether it was truncated (453ef42: the metric and the log agree).
    for (const shape of shapes) {
      shape.keys.forEach((keys, index) => {
        const expected =
          shape.values[index]?.operation === "search" ? [...LOG_KEYS, "truncated"].sort() : LOG_KEYS;
        expect(keys, shape.door).toEqual(expected);
      });
    }
  });

  it("refuse a draft of a lead that is not there alike: one read spent, nothing charged, one line without credits", async () => {
    const answers: Record<Door, string> = {
      v1: "404 lead_not_found",
      mcp: "tool error lead_not_found",
      console: "404 page",
    };
    const principals: Record<Door, string> = { v1: "api_key", mcp: "oauth_token", console: "console_member" };
    for (const door of ["v1", "mcp", "console"] as const) {
      const { workspace, rateLimitId, draftUnknownLead } = runs[door];
      const readsBefore = await spent("read", rateLimitId, door);
      const ledgerBefore = await ledgerOf(workspace.workspaceId);
      expect(await draftUnknownLead(), door).toBe(answers[door]);
      expect(await spent("read", rateLimitId, door), door).toBe(readsBefore + 1);
      expect(await ledgerOf(workspace.workspaceId), door).toEqual(ledgerBefore);
      const line = operationLines(workspace.workspaceId).at(-1);
      expect(line, door).toMatchObject({
        operation: "draft",
        outcome: "lead_not_found",
        principal: principals[door],
      });
      expect(Object.keys(line ?? {}).sort(), door).toEqual(LOG_KEYS.filter((key) => key !== "credits_spent"));
    }
  });
});
