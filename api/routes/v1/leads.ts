import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Db } from "../../../shared/db/database.ts";
import { ApiError } from "../../../shared/errors.ts";
import { decodeCursor } from "../../../shared/leads/cursor.ts";
import { findLeadDetail, listLeads } from "../../../shared/leads/leads.ts";
import {
  leadDetailSchema,
  leadIdParams,
  leadPageSchema,
  leadSummaryJson,
  listLeadsQuerySchema,
} from "../../../shared/leads/schemas.ts";
import { principalOf } from "../../plugins/authentication.ts";
import { commonV1Errors, errorResponses, v1Security } from "../../schemas.ts";

const leadsRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get(
    "/leads",
    {
      config: { rateLimitBucket: "read" },
      schema: {
        operationId: "listLeads",
        summary: "List the workspace's saved leads, newest first",
        description: "Costs no credits. Pages are stable when leads share a timestamp.",
        tags: ["Leads"],
        security: v1Security,
        querystring: listLeadsQuerySchema,
        response: { 200: leadPageSchema, ...errorResponses(["invalid_request", ...commonV1Errors]) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const after = cursor === undefined ? null : decodeCursor(cursor);
      if (cursor !== undefined && !after) {
        throw new ApiError(
          "invalid_request",
          "query.cursor: not a cursor issued by this API; pass next_cursor back unchanged.",
        );
      }
      const page = await listLeads(db, principalOf(request).workspaceId, { limit, after });
      return { leads: page.leads.map(leadSummaryJson), next_cursor: page.next_cursor };
    },
  );

  app.get(
    "/leads/:id",
    {
      config: { rateLimitBucket: "read" },
      schema: {
        operationId: "getLead",
        summary: "Fetch one saved lead with its website-quality flags",
        description: "Costs no credits.",
        tags: ["Leads"],
        security: v1Security,
        params: leadIdParams,
        response: {
          200: leadDetailSchema,
          ...errorResponses(["invalid_request", "lead_not_found", ...commonV1Errors]),
        },
      },
    },
    async (request) => {
      const lead = await findLeadDetail(db, principalOf(request).workspaceId, request.params.id);
      if (!lead) throw new ApiError("lead_not_found", "No lead with this id in your workspace.");
      return leadSummaryJson(lead);
    },
  );
};

export default leadsRoutes;
