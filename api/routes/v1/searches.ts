import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { searchRequestSchema, searchResponseSchema } from "../../../shared/search/schemas.ts";
import { type SearchDeps, searchLeads } from "../../../shared/search/search-leads.ts";
import { principalOf } from "../../plugins/authentication.ts";
import { commonV1Errors, errorResponses, v1Security } from "../../schemas.ts";

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
