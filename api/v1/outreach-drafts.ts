import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { DRAFT_PRICE } from "../../shared/credits/prices.ts";
import { draftRequestSchema } from "../../shared/drafting/schemas.ts";
import { leadIdParams } from "../../shared/leads/schemas.ts";
import { draftOperation } from "../../shared/operations/draft.ts";
import type { Services } from "../services.ts";
import { operationRoute, performFor } from "./operation-route.ts";

const outreachDraftRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.post(
    "/leads/:id/outreach-draft",
    operationRoute(draftOperation, {
      operationId: "createOutreachDraft",
      summary: "Draft one outreach email for one saved lead",
      description: `Costs ${DRAFT_PRICE}, held before the draft is written and charged only once a draft is produced (nothing on 403, 422 or 502). No idempotency key: retrying after a timeout may draft and charge again. A lead on the workspace's suppression list (its place, its email address or its domain) answers 403 \`lead_not_unlocked\` before anything is charged or written; treat it as \`lead_not_found\`. The body ends with the sender's signature, postal address and an opt-out sentence, written by the service.`,
      tags: ["Leads"],
      params: leadIdParams,
      body: draftRequestSchema,
    }),
    async (request) =>
      performFor(services, draftOperation, request, {
        lead_id: request.params.id,
        locale: request.body?.locale,
      }),
  );
};

export default outreachDraftRoutes;
