import { z } from "zod";
import { findLeadWithEvidence, type LeadWithEvidence } from "../console/workspace-views.ts";
import { ApiError } from "../errors.ts";
import { findLeadDetail } from "../leads/leads.ts";
import { leadDetailSchema, leadIdSchema, leadSummaryJson } from "../leads/schemas.ts";
import { defineOperation, READ_ONLY_TOOL } from "./operation.ts";

/** A lead id as the tools name it. */
export const leadIdInput = leadIdSchema.describe("Lead id (uuid), as returned by search_leads or list_leads");

const leadNotFound = () => new ApiError("lead_not_found", "No lead with this id in your workspace.");

const getLead = {
  name: "get_lead",
  input: z.object({ lead_id: leadIdInput }),
  errors: ["invalid_request", "lead_not_found"],
  bucket: "read",
  cost: { credits: () => 0 },
} as const;

/** GET /v1/leads/{id}, the `get_lead` tool. */
export const getLeadOperation = defineOperation({
  ...getLead,
  output: leadDetailSchema,
  mcp: {
    name: "get_lead",
    title: "Get one lead",
    description:
      "Fetch one saved lead with its website-quality flags (no_website_flag, not_mobile_friendly_flag, outdated_website_flag, last_media_year; null means never checked) and its opportunity score (0-100, tier, the reasons with their points, the dimensions never checked). Costs no credits.",
    annotations: READ_ONLY_TOOL,
  },
  async run({ principal, services }, { lead_id }) {
    const lead = await findLeadDetail(services.db, principal.workspaceId, lead_id);
    if (!lead) throw leadNotFound();
    return leadSummaryJson(lead);
  },
});

/**
 * The console's lead page: the same operation (its bucket, errors and log line), answering the
 * lead with the evidence behind its flags, the audit read once for both. Console-only: the
 * evidence is the page's, not the wire's.
 */
export const getLeadWithEvidenceOperation = defineOperation({
  ...getLead,
  output: z.custom<LeadWithEvidence>(),
  async run({ principal, services }, { lead_id }) {
    const lead = await findLeadWithEvidence(services.db, principal.workspaceId, lead_id);
    if (!lead) throw leadNotFound();
    return lead;
  },
});
