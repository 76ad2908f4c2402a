import { z } from "zod";
import { ApiError } from "../errors.ts";
import { markOutreachStatus } from "../leads/leads.ts";
import { leadIdInput } from "./get-lead.ts";
import { defineOperation } from "./operation.ts";

/**
 * The console's "Mark as sent" and "Mark as skipped" (the service never sends email: the member
 * says what they did). Console-only: no /v1 route or MCP tool sets a status.
 */
export const markLeadOperation = defineOperation({
  name: "mark_lead",
  input: z.object({ lead_id: leadIdInput, status: z.enum(["sent", "skipped"]) }),
  output: z.object({ id: z.uuid(), outreach_status: z.enum(["sent", "skipped"]) }),
  errors: ["invalid_request", "lead_not_found"],
  bucket: "read",
  cost: { credits: () => 0 },
  async run({ principal, services }, { lead_id, status }) {
    if (!(await markOutreachStatus(services.db, principal.workspaceId, lead_id, status)))
      throw new ApiError("lead_not_found", "No lead with this id in your workspace.");
    return { id: lead_id, outreach_status: status };
  },
});
