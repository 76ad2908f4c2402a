import { z } from "zod";
import { FACT_KEYS_IN_ORDER, FACT_MEANINGS_FOR_CLIENTS } from "../facts/fact-keys.ts";
import { LANGUAGE_CHOICES, LANGUAGES } from "../languages.ts";
import { MAX_FACTS_PER_DRAFT } from "./facts.ts";

/** The wire shapes of a draft: /v1 validation, `/openapi.json`, the MCP tool and the types. */
export const draftLocaleSchema = z
  .enum(LANGUAGES, `must be ${LANGUAGE_CHOICES}`)
  .describe(`${LANGUAGE_CHOICES}; when omitted, the workspace's language`);

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
      .max(MAX_FACTS_PER_DRAFT)
      .describe(
        `Keys of the verified facts the draft references, at most ${MAX_FACTS_PER_DRAFT} (an open set: tolerate unknown values): ${FACT_KEYS_IN_ORDER.map((key) => `${key} = ${FACT_MEANINGS_FOR_CLIENTS[key]}`).join("; ")}`,
      ),
  })
  .meta({ id: "OutreachDraft" });
