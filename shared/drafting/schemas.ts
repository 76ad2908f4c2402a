import { z } from "zod";

/** The wire shapes of a draft: /v1 validation, `/openapi.json`, the MCP tool and the types. */
export const draftLocaleSchema = z
  .enum(["en", "fr"], "must be en or fr")
  .describe("en or fr; when omitted, the workspace's language");

export const draftRequestSchema = z
  .strictObject({ locale: draftLocaleSchema.optional() })
  // Fastify hands an absent body to validation as null: absent, empty and `{}` all mean "defaults".
  .nullish()
  .meta({ id: "OutreachDraftRequest" });

export const draftResponseSchema = z
  .object({
    subject: z.string(),
    body: z.string(),
    facts_used: z
      .array(z.string())
      .max(2)
      .describe(
        "Keys of the verified facts the draft references, at most two: no_website, no_french_version, low_review_count, stale_copyright, no_mobile_viewport, legacy_site_tech, not_mobile_friendly, outdated_website (an open set: tolerate unknown values)",
      ),
  })
  .meta({ id: "OutreachDraft" });
