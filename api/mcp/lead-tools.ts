import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ApiError } from "../../shared/errors.ts";
import { clientOperations } from "../../shared/operations/index.ts";
import { type Caller, invoke } from "../../shared/operations/operation.ts";

export const SERVER_INSTRUCTIONS = [
  "Tools over one workspace's lead list at the Lead Discovery API.",
  "Credits: every workspace has a balance (get_credit_balance). search_leads costs up to 1 credit per new place returned (places already charged in this workspace are free); draft_outreach_email costs 1 credit per draft produced. Listing and reading leads and the balance is free.",
  "A search with not_mobile_friendly, outdated_website or stale_content checks live websites and may take 30 to 45 seconds; without them it typically takes under a second per query.",
  "Errors come back as tool errors whose text starts with a machine-readable code (for example insufficient_credits, lead_not_found, rate_limited).",
].join("\n");

/** The tool's answer: its JSON as text, the form every MCP client shows and passes on. */
const jsonResult = (value: unknown): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
});

const errorResult = (error: ApiError): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: `${error.code}: ${error.message}` }],
});

/**
 * A fresh MCP server for one request (stateless Streamable HTTP): one tool per operation that
 * declares one, run by the same operation path as /v1 (rate limit, cost limits, log line) for the
 * token's workspace. Domain ApiErrors become tool errors carrying their code.
 */
export function createLeadMcpServer(caller: Omit<Caller, "signal">): McpServer {
  const server = new McpServer(
    { name: "lead-discovery", title: "Lead Discovery", version: "1.0.0" },
    { instructions: SERVER_INSTRUCTIONS },
  );
  for (const operation of clientOperations) {
    const tool = operation.mcp;
    if (!tool) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        // A fresh object: a /v1 schema's OpenAPI id would turn the tool's schema into a $ref.
        inputSchema: z.strictObject(operation.input.shape),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
      async (args: unknown, extra: { signal: AbortSignal }): Promise<CallToolResult> => {
        try {
          return jsonResult(
            await invoke(operation, { ...caller, signal: extra.signal }, args as Record<string, unknown>),
          );
        } catch (error) {
          if (error instanceof ApiError) {
            if (error.status >= 500) caller.logger.error({ err: error.cause ?? error }, "MCP tool failed");
            return errorResult(error);
          }
          caller.logger.error({ err: error }, "MCP tool failed");
          return errorResult(new ApiError("internal_error", "Internal server error. It is safe to retry."));
        }
      },
    );
  }
  return server;
}
