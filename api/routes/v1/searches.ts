import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { type SearchDeps, searchLeads } from "../../../shared/search/search-leads.ts";
import { MAX_QUERIES, MAX_RESULTS } from "../../../shared/search/types.ts";
import { principalOf } from "../../plugins/authentication.ts";
import { commonV1Errors, errorResponses, leadSummarySchema, v1Security } from "../../schemas.ts";

const trimmedText = (field: string, max: number) =>
  z
    .string()
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`);

export const searchRequestSchema = z
  .strictObject({
    queries: z
      .array(
        z.strictObject({
          location: trimmedText("location", 200).describe("City or region"),
          category: trimmedText("category", 100).describe("Trade or business type"),
        }),
      )
      .min(1, `must have 1 to ${MAX_QUERIES} queries`)
      .max(MAX_QUERIES, `must have 1 to ${MAX_QUERIES} queries`)
      .describe(
        `1 to ${MAX_QUERIES} queries; at most 2 for a free-trial workspace (one that never bought credits)`,
      ),
    filters: z
      .strictObject({
        min_rating: z.number().min(0).max(5).optional().describe("Minimum provider rating, 0 to 5"),
        no_website: z.boolean().optional().describe("Only businesses with no website"),
        not_mobile_friendly: z
          .boolean()
          .optional()
          .describe("Only sites that are not mobile-friendly (may check live websites)"),
        outdated_website: z
          .boolean()
          .optional()
          .describe("Only sites that look outdated (may check live websites)"),
        stale_content: z
          .boolean()
          .optional()
          .describe(
            "Only sites that file media by date and show old content (needs live checks; returns far fewer results)",
          ),
      })
      .optional(),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESULTS)
      .describe(`1 to ${MAX_RESULTS}; maximum leads returned across all queries`),
  })
  .meta({ id: "SearchRequest" });

const searchResultSchema = leadSummarySchema
  .extend({
    has_website: z.boolean().nullable(),
    is_mobile_friendly: z.boolean().nullable().describe("Null when not checked"),
    is_outdated: z.boolean().nullable().describe("Null when not checked"),
  })
  .meta({ id: "SearchResultLead" });

const searchResponseSchema = z
  .object({
    results: z.array(searchResultSchema),
    credits_spent: z.number().int().describe("Credits consumed by this search (places newly charged)"),
    truncated: z.boolean().describe("True when there may be more matches than returned"),
  })
  .meta({ id: "SearchResponse" });

const searchesRoutes: FastifyPluginAsyncZod<{ search: Omit<SearchDeps, "logger"> }> = async (
  app,
  { search },
) => {
  app.post(
    "/searches",
    {
      config: { rateLimitBucket: "search" },
      schema: {
        operationId: "createSearch",
        summary: "Run a bounded search and save the matches as leads",
        description:
          "Costs at most 1 credit per new result; places already charged in this workspace are free. With not_mobile_friendly, outdated_website or stale_content the call checks live websites and may take about 30 to 45 seconds.",
        tags: ["Searches"],
        security: v1Security,
        body: searchRequestSchema,
        response: {
          200: searchResponseSchema,
          ...errorResponses([
            "invalid_request",
            "insufficient_credits",
            "request_too_large",
            ...commonV1Errors,
          ]),
        },
      },
    },
    async (request) => {
      const outcome = await searchLeads(
        { ...search, logger: request.log },
        principalOf(request).workspaceId,
        request.body,
      );
      return {
        results: outcome.results.map((lead) => ({ ...lead, added_at: lead.added_at.toISOString() })),
        credits_spent: outcome.credits_spent,
        truncated: outcome.truncated,
      };
    },
  );
};

export default searchesRoutes;
