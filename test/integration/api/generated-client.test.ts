import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createClient } from "@hey-api/openapi-ts";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";

/**
 * Clients generated from /openapi.json at test time by two well-kept generators:
 * openapi-typescript (types for openapi-fetch) and @hey-api/openapi-ts (its fetch client and
 * SDK). For each, the generated code and a main flow written against it are type-checked with
 * `tsc --strict`, then the same flow runs against a real listening server. A document that
 * generators read differently from the server (a wrong type, a missing field, a name that
 * shadows a built-in) fails one of the two.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PLACES_FIXTURE_FILE = path.join(ROOT, "fixtures/places.example.json");
const TSC = path.join(ROOT, "node_modules/typescript/bin/tsc");

let t: TestApp;
let baseUrl: string;
let folder: string;
let document: string;

beforeAll(async () => {
  t = await startTestApp({
    RATE_LIMIT_READ_PER_MIN: "1000",
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    PLACES_FIXTURE_FILE,
  });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  folder = await mkdtemp(path.join(tmpdir(), "lead-api-clients-"));
  const served = await fetch(`${baseUrl}/openapi.json`);
  expect(served.status).toBe(200);
  document = path.join(folder, "openapi.json");
  await writeFile(document, await served.text());
});
afterAll(async () => {
  await t?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/**
 * A folder for one generated client: an ES module package type-checked strictly, which finds the
 * project's packages (openapi-fetch) through a link to its node_modules.
 */
async function clientFolder(name: string): Promise<string> {
  const dir = path.join(folder, name);
  await mkdir(dir, { recursive: true });
  await symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  await writeFile(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
  await writeFile(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        noUncheckedIndexedAccess: true,
        noImplicitOverride: true,
        skipLibCheck: true,
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022", "DOM", "DOM.Iterable"],
        types: [],
      },
      include: ["./*.ts", "./client/**/*.ts"],
    }),
  );
  return dir;
}

/** `tsc --strict` over the generated client and the flow written against it: no error at all. */
async function expectStrictTypecheck(dir: string): Promise<void> {
  const typecheck = await run(process.execPath, [TSC, "-p", path.join(dir, "tsconfig.json")], {
    cwd: dir,
  }).catch((error: { stdout?: string; stderr?: string }) => error);
  expect(`${typecheck.stdout ?? ""}${typecheck.stderr ?? ""}`, `tsc --strict in ${dir}`).toBe("");
}

/** Runs the type-checked flow against the listening node, for a workspace of its own. */
async function runFlow(dir: string): Promise<FlowShape> {
  const ws = await createWorkspace(t.app);
  const { mainFlow } = (await import(pathToFileURL(path.join(dir, "flow.ts")).href)) as {
    mainFlow: (baseUrl: string, key: string) => Promise<FlowShape>;
  };
  return mainFlow(baseUrl, ws.key);
}

/** What the main flow must have done, whichever generator wrote its client. */
function expectMainFlow(result: FlowShape): void {
  expect(result.search.results).toHaveLength(1);
  expect(result.search.credits_spent).toBe(1);
  const leadId = result.search.results[0]!.id;
  expect(result.page.leads.map((lead) => lead.id)).toContain(leadId);
  expect(result.lead).toMatchObject({ id: leadId, website: null, no_website_flag: true });
  expect(result.draft.subject.length).toBeGreaterThan(0);
  expect(result.draft.facts_used).toContain("no_website");
  expect(result.credits.balance).toBe(10 - 1 - 1);
  expect(result.missing).toEqual({ status: 404, code: "lead_not_found" });
}

/** The main flow, written against openapi-fetch and the types openapi-typescript generated. */
const OPENAPI_TYPESCRIPT_FLOW = `
import createClient from "openapi-fetch";
import type { components, paths } from "./client/schema.js";

type Schemas = components["schemas"];
type LeadNotFoundCode = Schemas["GetLead404ErrorResponse"]["error"]["code"];
const notFoundIsACode: "lead_not_found" extends LeadNotFoundCode ? true : never = true;
// @ts-expect-error a code the operation answers with another status is not in this status's union
const notACode: LeadNotFoundCode = "internal_error";

export async function mainFlow(baseUrl: string, key: string) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } });
  const request: Schemas["SearchRequest"] = {
    queries: [{ location: "Ottawa", category: "plumber" }],
    filters: { no_website: true },
    max_results: 1,
  };
  const searched = await client.POST("/v1/searches", { body: request });
  if (!searched.data) throw new Error(\`search: \${searched.error?.error.code}\`);
  const search: Schemas["SearchResponse"] = searched.data;
  const listed = await client.GET("/v1/leads", { params: { query: { limit: 10 } } });
  if (!listed.data) throw new Error(\`list: \${listed.error?.error.code}\`);
  const page: Schemas["LeadPage"] = listed.data;
  const first = search.results[0];
  if (!first) throw new Error("the search found nothing");
  const got = await client.GET("/v1/leads/{id}", { params: { path: { id: first.id } } });
  if (!got.data) throw new Error(\`get: \${got.error?.error.code}\`);
  const lead: Schemas["LeadDetail"] = got.data;
  const drafted = await client.POST("/v1/leads/{id}/outreach-draft", {
    params: { path: { id: lead.id } },
    body: { locale: "en" },
  });
  if (!drafted.data) throw new Error(\`draft: \${drafted.error?.error.code}\`);
  const draft: Schemas["OutreachDraft"] = drafted.data;
  const balance = await client.GET("/v1/credits");
  if (!balance.data) throw new Error(\`credits: \${balance.error?.error.code}\`);
  const credits: Schemas["Credits"] = balance.data;
  const absent = await client.GET("/v1/leads/{id}", {
    params: { path: { id: "00000000-0000-4000-8000-000000000000" } },
  });
  const code: string | undefined = absent.error?.error.code;
  return {
    search,
    page,
    lead,
    draft,
    credits,
    missing: { status: absent.response.status, code },
    checks: [notFoundIsACode, notACode] as const,
  };
}
`;

/** The main flow, written against the SDK and types @hey-api/openapi-ts generated, as a customer would. */
const HEY_API_FLOW = `
import { createClient } from "./client/client/index.js";
import {
  createOutreachDraft,
  createSearch,
  getCredits,
  getLead,
  listLeads,
} from "./client/sdk.gen.js";
import type {
  Credits,
  GetLead404ErrorResponse,
  LeadDetail,
  LeadPage,
  OutreachDraft,
  SearchRequest,
  SearchResponse,
} from "./client/types.gen.js";

// Compile-time facts of the document: each answer's error code is a closed union of its status's codes.
type LeadNotFoundCode = GetLead404ErrorResponse["error"]["code"];
const notFoundIsACode: "lead_not_found" extends LeadNotFoundCode ? true : never = true;
// @ts-expect-error a code the operation answers with another status is not in this status's union
const notACode: LeadNotFoundCode = "internal_error";

export interface FlowResult {
  search: SearchResponse;
  page: LeadPage;
  lead: LeadDetail;
  draft: OutreachDraft;
  credits: Credits;
  missing: { status: number; code: string | undefined };
  checks: [boolean, LeadNotFoundCode];
}

export async function mainFlow(baseUrl: string, key: string): Promise<FlowResult> {
  const client = createClient({ baseUrl, auth: () => key });
  const request: SearchRequest = {
    queries: [{ location: "Ottawa", category: "plumber" }],
    filters: { no_website: true },
    max_results: 1,
  };
  const search = (await createSearch({ client, body: request, throwOnError: true })).data;
  const page = (await listLeads({ client, query: { limit: 10 }, throwOnError: true })).data;
  const first = search.results[0];
  if (!first) throw new Error("the search found nothing");
  const lead = (await getLead({ client, path: { id: first.id }, throwOnError: true })).data;
  const draft = (
    await createOutreachDraft({ client, path: { id: lead.id }, body: { locale: "en" }, throwOnError: true })
  ).data;
  const credits = (await getCredits({ client, throwOnError: true })).data;
  const absent = await getLead({ client, path: { id: "00000000-0000-4000-8000-000000000000" } });
  return {
    search,
    page,
    lead,
    draft,
    credits,
    missing: { status: absent.response?.status ?? 0, code: absent.error?.error.code },
    checks: [notFoundIsACode, notACode],
  };
}
`;

describe("clients generated from the served document", () => {
  it("openapi-typescript with openapi-fetch: type-checks strictly and runs search, list, get, draft and credits", async () => {
    const dir = await clientFolder("openapi-typescript");
    await mkdir(path.join(dir, "client"));
    const nodes = await openapiTS(pathToFileURL(document));
    await writeFile(path.join(dir, "client/schema.ts"), astToString(nodes));
    await writeFile(path.join(dir, "flow.ts"), OPENAPI_TYPESCRIPT_FLOW);
    await expectStrictTypecheck(dir);
    expectMainFlow(await runFlow(dir));
  });

  it("@hey-api/openapi-ts: type-checks strictly and runs search, list, get, draft and credits", async () => {
    const dir = await clientFolder("hey-api");
    await createClient({
      input: document,
      output: path.join(dir, "client"),
      plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
      logs: { level: "silent" },
    });
    await writeFile(path.join(dir, "flow.ts"), HEY_API_FLOW);
    await expectStrictTypecheck(dir);
    expectMainFlow(await runFlow(dir));
  });
});

interface FlowShape {
  search: { results: { id: string }[]; credits_spent: number };
  page: { leads: { id: string }[] };
  lead: Record<string, unknown>;
  draft: { subject: string; facts_used: string[] };
  credits: { balance: number };
  missing: { status: number; code: string | undefined };
}
