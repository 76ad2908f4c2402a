import { z } from "zod";
import {
  HIGH_TIER_FROM,
  LOW_TIER_MIN_COVERAGE,
  MAX_OPPORTUNITY_SCORE,
  MEDIUM_TIER_FROM,
  OPPORTUNITY_DIMENSIONS,
  OPPORTUNITY_TABLE,
  OPPORTUNITY_TIERS,
  OPPORTUNITY_VERSION,
} from "./opportunity.ts";

/** Every fact that can earn points, in the table's order. */
const SCORED_FACTS = OPPORTUNITY_TABLE.flatMap((rule) => rule.earnedBy.map(({ fact }) => fact));

/** The wire shape of the opportunity score: /v1, `/openapi.json` and the MCP tools' outputs. */
export const opportunitySchema = z
  .object({
    score: z
      .int32()
      .min(0)
      .max(MAX_OPPORTUNITY_SCORE)
      .meta({ format: "int32" })
      .describe(
        `0 to ${MAX_OPPORTUNITY_SCORE}: the sum of the points of each reason (the published table in /v1/docs), capped at ${MAX_OPPORTUNITY_SCORE}`,
      ),
    tier: z
      .enum(OPPORTUNITY_TIERS)
      .describe(
        `high at ${HIGH_TIER_FROM} or more, medium ${MEDIUM_TIER_FROM} to ${HIGH_TIER_FROM - 1}; below ${MEDIUM_TIER_FROM}, low when coverage is at least ${LOW_TIER_MIN_COVERAGE}, else unchecked (too little was checked to call it low)`,
      ),
    reasons: z
      .array(
        z.object({
          fact: z
            .string()
            .describe(
              `What earned the points: ${SCORED_FACTS.join(", ")} (last_media_year: the homepage's newest dated media is 3 or more years old); an open set, tolerate unknown values`,
            ),
          points: z.int32().min(0).max(MAX_OPPORTUNITY_SCORE).meta({ format: "int32" }),
        }),
      )
      .max(OPPORTUNITY_DIMENSIONS.length)
      .describe("One per dimension that earned points, in the table's order"),
    unknown: z
      .array(z.enum(OPPORTUNITY_DIMENSIONS))
      .max(OPPORTUNITY_DIMENSIONS.length)
      .describe(
        "The dimensions that apply to this place but were never checked (a lead from a search without live filters has no homepage check: its site's dimensions are here, never counted as fine)",
      ),
    coverage: z
      .number()
      .min(0)
      .max(1)
      .describe(
        "The points of the checked dimensions over the points of every dimension that applies to this place, two decimals",
      ),
    version: z
      .literal(OPPORTUNITY_VERSION)
      .describe("The points table this score was computed with; a new table is a new version"),
  })
  .meta({ id: "Opportunity" })
  .describe(
    "How much this business's web presence needs work, computed when read from the place and the latest check of its homepage (a re-check moves it); see the points table in /v1/docs",
  );

/** The score as it goes on the wire (reasons' facts an open set of strings). */
export type OpportunityJson = z.infer<typeof opportunitySchema>;
