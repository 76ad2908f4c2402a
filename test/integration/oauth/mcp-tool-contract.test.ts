/**
 * What connector directories check of every MCP tool, through the MCP SDK's own client over real
 * HTTP: an output schema, structured content that validates against it (the SDK client checks
 * it on every call, and the test checks it again with the SDK's validator), all four annotation
 * hints and their truth, the service's error codes in tool errors (an invalid argument is the
 * service's `invalid_request`, not a JSON-RPC -32602), and a retry hint on a rate-limited call.
 */

import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import {
  type HttpTestApp,
  memberSession,
  obtainTokens,
  startHttpTestApp,
  type TokenSet,
} from "../../support/oauth.ts";

const PLACES_FIXTURE_FILE = fileURLToPath(new URL("../../../fixtures/places.example.json", import.meta.url));
/** Few enough that the test reaches the limit; enough for the calls before it. */
const READ_PER_MINUTE = 8;

let t: HttpTestApp;
let ws: TestWorkspace;
let tokens: TokenSet;
const openClients: Client[] = [];

beforeAll(async () => {
  t = await startHttpTestApp({
    PLACES_FIXTURE_FILE,
    RATE_LIMIT_READ_PER_MIN: String(READ_PER_MINUTE),
    RATE_LIMIT_SEARCH_PER_MIN: "100",
  });
  ws = await createWorkspace(t.app, { name: "Tool contract agency" });
  tokens = await obtainTokens(t.baseUrl, {
    session: await memberSession(t.app, ws),
    workspaceId: ws.workspaceId,
    clientName: "Contract test assistant",
  });
});
afterEach(async () => {
  for (const client of openClients.splice(0)) await client.close();
});
afterAll(async () => {
  await t?.close();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: "mcp-contract-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
  });
  await client.connect(transport);
  openClients.push(client);
  return client;
}

const textOf = (result: CallToolResult) => {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
};

/** The hints each tool must state, and why they are true. */
const EXPECTED_HINTS: Record<string, Record<string, boolean>> = {
  // Reads of the workspace's own data: nothing changes, repeating changes nothing.
  get_credit_balance: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  list_leads: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  get_lead: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // Spends credits no tool gives back; a repeat may find and charge new places; asks the
  // places provider and live websites.
  search_leads: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  // Spends a credit per draft; a repeat drafts and charges again; a language model may write it.
  draft_outreach_email: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
};

describe("every tool", () => {
  let tools: Tool[];
  beforeAll(async () => {
    tools = (await (await connect()).listTools()).tools;
  });

  it("declares an object output schema, self-contained", () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(EXPECTED_HINTS).sort());
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(JSON.stringify(tool.outputSchema), tool.name).not.toContain("$ref");
      expect(JSON.stringify(tool.inputSchema), tool.name).not.toContain("$ref");
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    }
  });

  it("states all four hints, each true of what it does", () => {
    for (const tool of tools) {
      const { title: _title, ...hints } = tool.annotations ?? {};
      expect(hints, tool.name).toEqual(EXPECTED_HINTS[tool.name]);
    }
  });

  it("answers structured content that validates against its output schema, and the same JSON as text", async () => {
    const client = await connect();
    const validator = new AjvJsonSchemaValidator();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const called: string[] = [];
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      // The SDK client itself refuses structured content that does not match the listed schema.
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      const validate = validator.getValidator(byName.get(name)!.outputSchema as Record<string, unknown>);
      const verdict = validate(result.structuredContent);
      expect(verdict.valid, `${name}: ${verdict.errorMessage}`).toBe(true);
      expect(JSON.parse(textOf(result)), name).toEqual(result.structuredContent);
      called.push(name);
      return result.structuredContent as Record<string, unknown>;
    };

    expect(await call("get_credit_balance")).toMatchObject({ balance: 10 });
    const search = (await call("search_leads", {
      queries: [{ location: "Ottawa", category: "plumber" }],
      filters: { no_website: true },
      max_results: 1,
    })) as { results: { id: string }[]; credits_spent: number };
    expect(search.credits_spent).toBe(1);
    const leadId = search.results[0]!.id;
    const page = (await call("list_leads", { limit: 5 })) as { leads: { id: string }[] };
    expect(page.leads.map((lead) => lead.id)).toContain(leadId);
    expect(await call("get_lead", { lead_id: leadId })).toMatchObject({ id: leadId, no_website_flag: true });
    expect(await call("draft_outreach_email", { lead_id: leadId })).toMatchObject({
      facts_used: expect.arrayContaining(["no_website"]),
    });
    expect(called.sort()).toEqual(Object.keys(EXPECTED_HINTS).sort());

    // The validator is not a formality: an answer missing a field would be refused.
    const credits = validator.getValidator(
      byName.get("get_credit_balance")!.outputSchema as Record<string, unknown>,
    );
    expect(credits({ balanse: 10 }).valid).toBe(false);
  });
});

describe("tool errors", () => {
  it("an invalid or unknown argument is the service's invalid_request, naming it", async () => {
    const client = await connect();
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["get_lead", { lead_id: "12345" }, /^invalid_request: lead_id: /],
      ["get_lead", {}, /^invalid_request: lead_id: /],
      ["search_leads", { queries: [], max_results: 1 }, /^invalid_request: queries: /],
      ["list_leads", { limit: 0 }, /^invalid_request: limit: /],
      [
        "draft_outreach_email",
        { lead_id: "00000000-0000-4000-8000-000000000000", locale: "de" },
        /^invalid_request: locale: /,
      ],
      ["get_credit_balance", { verbose: true }, /^invalid_request: verbose: unknown argument$/],
    ];
    for (const [name, args, text] of cases) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, name).toBe(true);
      expect(textOf(result), name).toMatch(text);
      expect(textOf(result), name).not.toContain("-32602");
      expect(result._meta?.error, name).toMatchObject({ code: "invalid_request" });
    }
  });

  it("a rate-limited call says how long to wait, in its text and its _meta", async () => {
    const client = await connect();
    let result: CallToolResult | undefined;
    for (let attempt = 0; attempt <= READ_PER_MINUTE; attempt += 1) {
      result = (await client.callTool({ name: "get_credit_balance", arguments: {} })) as CallToolResult;
      if (result.isError) break;
    }
    expect(result?.isError).toBe(true);
    expect(textOf(result!)).toMatch(/^rate_limited: .*\(retry_after: 60 seconds\)$/);
    expect(result!._meta?.error).toMatchObject({ code: "rate_limited", retry_after: 60 });
  });
});
