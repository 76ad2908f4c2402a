import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Db } from "../../../shared/db/database.ts";
import { ApiError } from "../../../shared/errors.ts";
import { decodeCursor } from "../../../shared/leads/cursor.ts";
import { findLeadDetail, type LeadSummary, listLeads } from "../../../shared/leads/leads.ts";
import { principalOf } from "../../plugins/authentication.ts";
import {
  commonV1Errors,
  errorResponses,
  leadIdParams,
  leadSummarySchema,
  v1Security,
} from "../../schemas.ts";

const listQuery = z.strictObject({
  limit: z.coerce
    .number("must be an integer from 1 to 100")
    .int("must be an integer from 1 to 100")
    .min(1, "must be an integer from 1 to 100")
    .max(100, "must be an integer from 1 to 100")
    .default(25)
    .describe("Page size, 1 to 100 (default 25)"),
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe("The next_cursor of a previous response, passed back unchanged (form `<added_at>|<lead_id>`)"),
});

const leadPageSchema = z
  .object({
    leads: z.array(leadSummarySchema),
    next_cursor: z.string().nullable().describe("null on the last page"),
  })
  .meta({ id: "LeadPage" });

const leadDetailSchema = leadSummarySchema
  .extend({
    no_website_flag: z.boolean().nullable().describe("Null when that check never ran for the lead"),
    not_mobile_friendly_flag: z
      .boolean()
      .nullable()
      .describe("Null when never run; runs only when a search asked for it"),
    outdated_website_flag: z
      .boolean()
      .nullable()
      .describe("Null when never run; runs only when a search asked for it"),
    last_media_year: z
      .number()
      .int()
      .nullable()
      .describe(
        "Year the newest photo on the homepage was uploaded; null means no dated media path was readable",
      ),
  })
  .meta({ id: "LeadDetail" });

export const leadSummaryJson = <T extends LeadSummary>(lead: T) => ({
  ...lead,
  added_at: lead.added_at.toISOString(),
});

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
        querystring: listQuery,
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
