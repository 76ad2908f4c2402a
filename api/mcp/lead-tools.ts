import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { DRAFT_PRICE, SEARCH_PRICE } from "../../shared/credits/prices.ts";
import { ApiError } from "../../shared/errors.ts";
import { clientOperations } from "../../shared/operations/index.ts";
import { type Caller, invoke, type Operation } from "../../shared/operations/operation.ts";
import { LIVE_FILTER_NAMES } from "../../shared/search/schemas.ts";

const SERVER_INSTRUCTIONS = [
  "Tools over one workspace's lead list at the Lead Discovery API.",
  `Credits: every workspace has a balance (get_credit_balance). search_leads costs ${SEARCH_PRICE} (places already charged in this workspace are free); draft_outreach_email costs ${DRAFT_PRICE} per draft produced. Listing and reading leads and the balance is free.`,
  `A search with ${LIVE_FILTER_NAMES} checks live websites and may take 30 to 45 seconds; without them it typically takes under a second per query.`,
  "Every tool answers its result as structured content (its output schema) and as the same JSON in text.",
  "Errors come back as tool errors whose text starts with a machine-readable code (for example invalid_request, insufficient_credits, lead_not_found, rate_limited); the same error object is in the result's _meta.error. A rate_limited or service_unavailable error says how many seconds to wait (retry_after).",
].join("\n");

type JsonSchema = Record<string, unknown>;

/**
 * A tool's schema as one self-contained JSON Schema object: zod writes the named shapes of the
 * OpenAPI document (SearchQuery, LeadSummary, ...) as `$defs` references, which not every MCP
 * client follows, so they are written in place. Answers' objects say nothing about other
 * properties (new fields may appear, as in /v1); the input keeps `additionalProperties: false`.
 */
function toolSchema(schema: z.ZodType, io: "input" | "output"): Tool["inputSchema"] {
  const json = z.toJSONSchema(schema, { io, target: "draft-2020-12" }) as JsonSchema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (!node || typeof node !== "object") return node;
    const record = node as JsonSchema;
    if (typeof record.$ref === "string" && record.$ref.startsWith("#/$defs/")) {
      const { $ref, $defs: _defs, $schema: _schema, ...rest } = record;
      return {
        ...(inline(defs[$ref.slice("#/$defs/".length)]) as JsonSchema),
        ...(inline(rest) as JsonSchema),
      };
    }
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(record)) {
      if (key === "$defs" || key === "$schema") continue;
      if (io === "output" && key === "additionalProperties" && value === false) continue;
      out[key] = inline(value);
    }
    return out;
  };
  return inline(json) as Tool["inputSchema"];
}

function toolDefinition(operation: Operation): Tool {
  const tool = operation.mcp!;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    // A fresh strict object: unknown arguments are refused, as unknown fields are on /v1.
    inputSchema: toolSchema(z.strictObject(operation.input.shape), "input"),
    outputSchema: toolSchema(operation.output, "output") as Tool["outputSchema"],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/** The tool's answer: structured content (the output schema's object) and the same JSON as text. */
const jsonResult = (value: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
  structuredContent: value,
});

/**
 * A tool error: the text starts with the service's error code, then says how long to wait when
 * the service said so (`Retry-After`); `_meta.error` carries the same as an object. Not in
 * `structuredContent`: a client validates any structured content against the tool's output
 * schema, which describes the successful answer.
 */
function errorResult(error: ApiError): CallToolResult {
  const retryAfter = Number(error.headers["Retry-After"] ?? Number.NaN);
  const hint = Number.isFinite(retryAfter) ? { retry_after: retryAfter } : {};
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `${error.code}: ${error.message}${"retry_after" in hint ? ` (retry_after: ${retryAfter} seconds)` : ""}`,
      },
    ],
    _meta: { error: { code: error.code, message: error.message, ...hint } },
  };
}

/** Arguments an operation does not take, refused like unknown fields on /v1. */
function refuseUnknownArguments(operation: Operation, args: Record<string, unknown>): void {
  const unknown = Object.keys(args).filter((name) => !(name in operation.input.shape));
  if (unknown.length > 0) {
    throw new ApiError("invalid_request", unknown.map((name) => `${name}: unknown argument`).join("; "));
  }
}

/**
 * A fresh MCP server for one request (stateless Streamable HTTP): one tool per operation that
 * declares one, run by the same operation path as /v1 (input validation, rate limit, cost
 * limits, log line) for the token's workspace. Arguments are validated by that path, not by the
 * SDK, so an invalid argument answers the service's `invalid_request` like /v1 does; every
 * ApiError becomes a tool error carrying its code.
 */
export function createLeadMcpServer(caller: Omit<Caller, "signal">): Server {
  const server = new Server(
    { name: "lead-discovery", title: "Lead Discovery", version: "1.0.0" },
    { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );
  const tools = new Map(
    clientOperations.flatMap((operation) =>
      operation.mcp ? [[operation.mcp.name, operation] as const] : [],
    ),
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].map(toolDefinition),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const operation = tools.get(request.params.name);
    if (!operation) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    try {
      const args = request.params.arguments ?? {};
      refuseUnknownArguments(operation, args);
      const output = await invoke(operation, { ...caller, signal: extra.signal }, args);
      return jsonResult(output as Record<string, unknown>);
    } catch (error) {
      if (error instanceof ApiError) {
        if (error.status >= 500) caller.logger.error({ err: error.cause ?? error }, "MCP tool failed");
        return errorResult(error);
      }
      caller.logger.error({ err: error }, "MCP tool failed");
      return errorResult(new ApiError("internal_error", "Internal server error. It is safe to retry."));
    }
  });
  return server;
}
