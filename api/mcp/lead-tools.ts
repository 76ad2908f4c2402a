import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyBaseLogger } from "fastify";
import { z } from "zod";
import type { Principal } from "../../shared/auth.ts";
import { readBalance } from "../../shared/credits/ledger.ts";
import { type DraftOutreachDeps, draftOutreach } from "../../shared/drafting/draft-outreach.ts";
import { draftLocaleSchema } from "../../shared/drafting/schemas.ts";
import { ApiError } from "../../shared/errors.ts";
import { decodeCursor } from "../../shared/leads/cursor.ts";
import { findLeadDetail, listLeads } from "../../shared/leads/leads.ts";
import { leadIdSchema, leadSummaryJson, listLeadsQuerySchema } from "../../shared/leads/schemas.ts";
import { consumeOrThrow, type RateLimitBucket, type RateLimiter } from "../../shared/rate-limits.ts";
import { type SearchRequest, searchRequestSchema } from "../../shared/search/schemas.ts";
import { type SearchDeps, searchLeads } from "../../shared/search/search-leads.ts";

export interface LeadToolsDeps {
  search: Omit<SearchDeps, "logger">;
  drafting: DraftOutreachDeps;
  rateLimiter: RateLimiter;
  /** The hourly cost limit on draft attempts (the search's limits travel in `search`). */
  spendDraftAttempt: (workspaceId: string) => Promise<void>;
  /** The workspace (and grant) of the request's access token. */
  principal: Principal;
  logger: FastifyBaseLogger;
}

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

const leadId = leadIdSchema.describe("Lead id (uuid), as returned by search_leads or list_leads");

/**
 * A fresh MCP server for one request (stateless Streamable HTTP): the five tools call the same
 * domain functions as the /v1 routes, for the token's workspace, under the same rate limits.
 */
export function createLeadMcpServer(deps: LeadToolsDeps): McpServer {
  const { principal } = deps;
  const server = new McpServer(
    { name: "lead-discovery", title: "Lead Discovery", version: "1.0.0" },
    { instructions: SERVER_INSTRUCTIONS },
  );

  /** Rate limit, then the work; domain ApiErrors become tool errors carrying their code. */
  const run =
    <Args>(bucket: RateLimitBucket, work: (args: Args, signal: AbortSignal) => Promise<unknown>) =>
    async (args: Args, extra: { signal: AbortSignal }): Promise<CallToolResult> => {
      try {
        await consumeOrThrow(deps.rateLimiter, bucket, principal.rateLimitId);
        return jsonResult(await work(args, extra.signal));
      } catch (error) {
        if (error instanceof ApiError) {
          if (error.status >= 500) deps.logger.error({ err: error.cause ?? error }, "MCP tool failed");
          return errorResult(error);
        }
        deps.logger.error({ err: error }, "MCP tool failed");
        return errorResult(new ApiError("internal_error", "Internal server error. It is safe to retry."));
      }
    };

  server.registerTool(
    "search_leads",
    {
      title: "Search for leads",
      description:
        "Find local businesses by location and category and save the matches as leads in the workspace (same input as POST /v1/searches). " +
        "Costs credits: up to 1 credit per NEW place returned, charged once after the scan; places already charged in this workspace are free again, and if the balance cannot cover the new places nothing is saved (insufficient_credits). Check get_credit_balance first and keep max_results within the balance. " +
        "With not_mobile_friendly, outdated_website or stale_content the search checks live websites and may take 30 to 45 seconds; tell the user and wait. " +
        "A free-trial workspace may send at most 2 queries. Each result's id can be passed to get_lead and draft_outreach_email.",
      // A fresh object: the /v1 schema's OpenAPI id would turn the tool's schema into a $ref.
      inputSchema: z.strictObject(searchRequestSchema.shape),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    run("search", async (args: SearchRequest, signal) => {
      const outcome = await searchLeads(
        { ...deps.search, logger: deps.logger },
        principal.workspaceId,
        args,
        signal,
      );
      return {
        results: outcome.results.map((lead) => ({ ...lead, added_at: lead.added_at.toISOString() })),
        credits_spent: outcome.credits_spent,
        truncated: outcome.truncated,
      };
    }),
  );

  server.registerTool(
    "list_leads",
    {
      title: "List saved leads",
      description:
        "List the workspace's saved leads, newest first, one page at a time. Costs no credits. " +
        "Pass next_cursor back as cursor for the next page; it is null on the last page.",
      inputSchema: z.strictObject(listLeadsQuerySchema.shape),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run("read", async ({ limit, cursor }: { limit: number; cursor?: string | undefined }) => {
      const after = cursor === undefined ? null : decodeCursor(cursor);
      if (cursor !== undefined && !after) {
        throw new ApiError(
          "invalid_request",
          "cursor: not a cursor from list_leads; pass next_cursor back unchanged.",
        );
      }
      const page = await listLeads(deps.search.db, principal.workspaceId, { limit, after });
      return { leads: page.leads.map(leadSummaryJson), next_cursor: page.next_cursor };
    }),
  );

  server.registerTool(
    "get_lead",
    {
      title: "Get one lead",
      description:
        "Fetch one saved lead with its website-quality flags (no_website_flag, not_mobile_friendly_flag, outdated_website_flag, last_media_year; null means never checked). Costs no credits.",
      inputSchema: z.strictObject({ lead_id: leadId }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run("read", async ({ lead_id }: { lead_id: string }) => {
      const lead = await findLeadDetail(deps.search.db, principal.workspaceId, lead_id);
      if (!lead) throw new ApiError("lead_not_found", "No lead with this id in your workspace.");
      return leadSummaryJson(lead);
    }),
  );

  server.registerTool(
    "get_credit_balance",
    {
      title: "Read the credit balance",
      description:
        "Read the workspace's remaining credits. Costs no credits. A search costs up to 1 credit per new place returned; a draft costs 1 credit.",
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run("read", async () => ({ balance: await readBalance(deps.search.db, principal.workspaceId) })),
  );

  server.registerTool(
    "draft_outreach_email",
    {
      title: "Draft an outreach email",
      description:
        "Draft one outreach email (subject and body) for one saved lead, grounded only in verified facts about the business. The service never sends it. " +
        "Costs 1 credit, charged only once a draft is produced: nothing is charged on insufficient_audit_data (nothing verified to write about: skip that lead) or generation_failed. " +
        "Calling it again drafts and charges again.",
      inputSchema: z.strictObject({
        lead_id: leadId,
        locale: draftLocaleSchema.optional(),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    run("read", async ({ lead_id, locale }: { lead_id: string; locale?: "en" | "fr" | undefined }) => {
      await deps.spendDraftAttempt(principal.workspaceId);
      const draft = await draftOutreach(deps.drafting, principal.workspaceId, lead_id, locale);
      return { subject: draft.subject, body: draft.body, facts_used: draft.facts_used };
    }),
  );

  return server;
}
