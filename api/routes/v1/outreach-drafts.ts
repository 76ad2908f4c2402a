import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { type DraftOutreachDeps, draftOutreach } from "../../../shared/drafting/draft-outreach.ts";
import { draftRequestSchema, draftResponseSchema } from "../../../shared/drafting/schemas.ts";
import { leadIdParams } from "../../../shared/leads/schemas.ts";
import { principalOf } from "../../plugins/authentication.ts";
import { commonV1Errors, errorResponses, v1Security } from "../../schemas.ts";

const outreachDraftRoutes: FastifyPluginAsyncZod<{
  drafting: DraftOutreachDeps;
  spendDraftAttempt: (workspaceId: string) => Promise<void>;
}> = async (app, { drafting, spendDraftAttempt }) => {
  app.post(
    "/leads/:id/outreach-draft",
    {
      config: { rateLimitBucket: "read" },
      schema: {
        operationId: "createOutreachDraft",
        summary: "Draft one outreach email for one saved lead",
        description:
          "Costs 1 credit, held before the draft is written and charged only once a draft is produced (nothing on 422 or 502). No idempotency key: retrying after a timeout may draft and charge again.",
        tags: ["Leads"],
        security: v1Security,
        params: leadIdParams,
        body: draftRequestSchema,
        response: {
          200: draftResponseSchema,
          ...errorResponses([
            "invalid_request",
            "insufficient_credits",
            "lead_not_found",
            "request_too_large",
            "insufficient_audit_data",
            "generation_failed",
            ...commonV1Errors,
          ]),
        },
      },
    },
    async (request) => {
      const { workspaceId } = principalOf(request);
      await spendDraftAttempt(workspaceId);
      const draft = await draftOutreach(
        { ...drafting, logger: request.log },
        workspaceId,
        request.params.id,
        request.body?.locale,
      );
      return { subject: draft.subject, body: draft.body, facts_used: draft.facts_used };
    },
  );
};

export default outreachDraftRoutes;
