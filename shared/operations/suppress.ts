import { z } from "zod";
import { ApiError } from "../errors.ts";
import { findLeadDetail } from "../leads/leads.ts";
import { type SuppressionRequest, suppressionRequestSchema } from "../suppressions/schemas.ts";
import { addSuppressions, removeSuppression } from "../suppressions/suppressions.ts";
import { leadIdInput } from "./get-lead.ts";
import { defineOperation } from "./operation.ts";

/**
 * The do-not-contact list's console operations (DESIGN "Lawful outreach"): add entries (one
 * typed, or a pasted CSV), remove one, and a lead's "Do not contact" button. Console-only: no /v1
 * route or MCP tool changes the list (operators have /admin). An addition that would take the list
 * past SUPPRESSIONS_MAX_PER_WORKSPACE adds nothing: 400 invalid_request, reason `list_full`.
 */

const memberInput = z.uuid().describe("The member adding the entries (who, on the list)");

export const suppressOperation = defineOperation({
  name: "suppress",
  input: z.object({
    entries: z.array(suppressionRequestSchema).min(1).max(5_000),
    added_by_member_id: memberInput,
  }),
  output: z.object({
    added: z.number().int().describe("Entries new to the list"),
    known: z.number().int().describe("Entries already on it (kept as they were)"),
  }),
  errors: ["invalid_request"],
  bucket: "read",
  cost: { credits: () => 0 },
  async run({ principal, services }, { entries, added_by_member_id }) {
    return addSuppressions(services.db, principal.workspaceId, entries, added_by_member_id, {
      maxEntries: services.config.suppressionsPerWorkspace,
    });
  },
});

export const unsuppressOperation = defineOperation({
  name: "unsuppress",
  input: z.object({ entry_id: z.uuid() }),
  output: z.object({ id: z.uuid() }),
  errors: ["invalid_request", "not_found"],
  bucket: "read",
  cost: { credits: () => 0 },
  async run({ principal, services }, { entry_id }) {
    await removeSuppression(services.db, principal.workspaceId, entry_id);
    return { id: entry_id };
  },
});

/** A lead's "Do not contact": its place, and its address when one is known. */
export const suppressLeadOperation = defineOperation({
  name: "suppress_lead",
  input: z.object({
    lead_id: leadIdInput,
    reason: z.string().trim().max(500).optional(),
    added_by_member_id: memberInput,
  }),
  output: z.object({ entries: z.number().int().describe("Entries the lead put on the list") }),
  errors: ["invalid_request", "lead_not_found"],
  bucket: "read",
  cost: { credits: () => 0 },
  async run({ principal, services }, { lead_id, reason, added_by_member_id }) {
    const lead = await findLeadDetail(services.db, principal.workspaceId, lead_id);
    if (!lead) throw new ApiError("lead_not_found", "No lead with this id in your workspace.");
    const entries: SuppressionRequest[] = [{ place_id: lead.place_id }];
    if (lead.email !== null) entries.push({ email: lead.email });
    await addSuppressions(
      services.db,
      principal.workspaceId,
      entries.map((entry) => (reason ? { ...entry, reason } : entry)),
      added_by_member_id,
      { maxEntries: services.config.suppressionsPerWorkspace },
    );
    return { entries: entries.length };
  },
});
