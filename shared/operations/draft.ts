import { z } from "zod";
import { CREDITS_PER_DRAFT, DRAFT_PRICE } from "../credits/prices.ts";
import { draftOutreach } from "../drafting/draft-outreach.ts";
import { draftLocaleSchema, draftResponseSchema } from "../drafting/schemas.ts";
import { leadIdInput } from "./get-lead.ts";
import { defineOperation } from "./operation.ts";

/** POST /v1/leads/{id}/outreach-draft, the `draft_outreach_email` tool, the console's draft button. */
export const draftOperation = defineOperation({
  name: "draft",
  input: z.object({ lead_id: leadIdInput, locale: draftLocaleSchema.optional() }),
  output: draftResponseSchema,
  errors: [
    "invalid_request",
    "insufficient_credits",
    "lead_not_unlocked",
    "lead_not_found",
    "request_too_large",
    "insufficient_audit_data",
    "generation_failed",
  ],
  // Drafts share the read bucket (spec: 30 a minute for list, lead, credits and draft).
  bucket: "read",
  cost: { credits: () => CREDITS_PER_DRAFT, perAttempt: "draft_attempts" },
  mcp: {
    name: "draft_outreach_email",
    title: "Draft an outreach email",
    description:
      "Draft one outreach email (subject and body) for one saved lead, grounded only in verified facts about the business. The service never sends it. " +
      `Costs ${DRAFT_PRICE}, charged only once a draft is produced: nothing is charged on insufficient_audit_data (nothing verified to write about: skip that lead), lead_not_unlocked (the lead is on the workspace's do-not-contact list: skip it) or generation_failed. ` +
      "Calling it again drafts and charges again.",
    // Spends a credit per draft (see McpToolAnnotations); a second call drafts and charges again;
    // a language model may write it.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
  async run({ principal, logger, services }, { lead_id, locale }) {
    const draft = await draftOutreach(
      {
        db: services.db,
        generator: services.draftGenerator,
        metrics: services.metrics,
        logger,
        ...(principal.spender ? { spender: principal.spender } : {}),
      },
      principal.workspaceId,
      lead_id,
      locale,
    );
    return { subject: draft.subject, body: draft.body, facts_used: draft.facts_used };
  },
});
