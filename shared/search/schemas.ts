import { z } from "zod";
import { leadSummarySchema } from "../leads/schemas.ts";
import { namedInSentence, recordOf } from "../lists.ts";
import { opportunitySchema } from "../scoring/schemas.ts";

/** The wire shapes of a search: /v1 validation, `/openapi.json`, the MCP tool and the types. */
export const MAX_QUERIES = 5;
export const MAX_FREE_TRIAL_QUERIES = 2;
export const MAX_RESULTS = 25;

const trimmedText = (field: string, max: number) =>
  z
    .string()
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`);

const searchQuerySchema = z
  .strictObject({
    location: trimmedText("location", 200).describe("City or region"),
    category: trimmedText("category", 100).describe("Trade or business type"),
  })
  .meta({ id: "SearchQuery" });

/**
 * Filters answered from the homepage itself: they need an audit (cached or live). The one list of
 * them: the wire schema, the scan, the console's boxes and every sentence that names them.
 */
export const LIVE_FILTERS = ["not_mobile_friendly", "outdated_website", "stale_content"] as const;
export type LiveFilter = (typeof LIVE_FILTERS)[number];
/** The yes-or-no filters, in the order the schema and the console's form list them. */
export const YES_NO_FILTERS = ["no_website", ...LIVE_FILTERS] as const;
export type YesNoFilter = (typeof YES_NO_FILTERS)[number];
/** "not_mobile_friendly, outdated_website or stale_content", as descriptions name the live filters. */
export const LIVE_FILTER_NAMES = namedInSentence(LIVE_FILTERS);

const YES_NO_FILTER_DESCRIPTIONS: Record<YesNoFilter, string> = {
  no_website: "Only businesses with no website",
  not_mobile_friendly: "Only sites that are not mobile-friendly (may check live websites)",
  outdated_website: "Only sites that look outdated (may check live websites)",
  stale_content:
    "Only sites that file media by date and show old content (needs live checks; returns far fewer results)",
};

const searchFiltersSchema = z
  .strictObject({
    min_rating: z.number().min(0).max(5).optional().describe("Minimum provider rating, 0 to 5"),
    ...recordOf(YES_NO_FILTERS, (filter) =>
      z.boolean().optional().describe(YES_NO_FILTER_DESCRIPTIONS[filter]),
    ),
  })
  .meta({ id: "SearchFilters" });

export const searchRequestSchema = z
  .strictObject({
    queries: z
      .array(searchQuerySchema)
      .min(1, `must have 1 to ${MAX_QUERIES} queries`)
      .max(MAX_QUERIES, `must have 1 to ${MAX_QUERIES} queries`)
      .describe(
        `1 to ${MAX_QUERIES} queries; at most ${MAX_FREE_TRIAL_QUERIES} for a free-trial workspace (one that never bought credits)`,
      ),
    filters: searchFiltersSchema.optional(),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESULTS)
      .meta({ format: "int32" })
      .describe(`1 to ${MAX_RESULTS}; maximum leads returned across all queries`),
  })
  .meta({ id: "SearchRequest" });

const searchResultSchema = leadSummarySchema
  .extend({
    has_website: z.boolean().nullable(),
    is_mobile_friendly: z.boolean().nullable().describe("Null when not checked"),
    is_outdated: z.boolean().nullable().describe("Null when not checked"),
    opportunity: opportunitySchema,
  })
  .meta({ id: "SearchResultLead" });

export const searchResponseSchema = z
  .object({
    results: z
      .array(searchResultSchema)
      .max(MAX_RESULTS)
      .describe("Highest opportunity score first; equal scores in the places provider's order"),
    credits_spent: z
      .int32()
      .min(0)
      .meta({ format: "int32" })
      .describe("Credits consumed by this search (places newly charged)"),
    truncated: z.boolean().describe("True when there may be more matches than returned"),
  })
  .meta({ id: "SearchResponse" });

export type SearchFilters = z.output<typeof searchFiltersSchema>;
export type SearchRequest = z.output<typeof searchRequestSchema>;
export type SearchResponse = z.output<typeof searchResponseSchema>;
