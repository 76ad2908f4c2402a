import { decodeCursor } from "../leads/cursor.ts";
import { listLeads } from "../leads/leads.ts";
import { leadPageSchema, leadSummaryJson, listLeadsQuerySchema } from "../leads/schemas.ts";
import { defineOperation, READ_ONLY_TOOL } from "./operation.ts";

/** GET /v1/leads, the `list_leads` tool. */
export const listLeadsOperation = defineOperation({
  name: "list_leads",
  input: listLeadsQuerySchema,
  output: leadPageSchema,
  errors: ["invalid_request"],
  bucket: "read",
  cost: { credits: () => 0 },
  mcp: {
    name: "list_leads",
    title: "List saved leads",
    description:
      "List the workspace's saved leads, newest first, one page at a time. Costs no credits. " +
      "Pass next_cursor back as cursor for the next page; it is null on the last page.",
    annotations: READ_ONLY_TOOL,
  },
  async run({ principal, services }, { limit, cursor }) {
    // The input schema refused anything but a cursor this API wrote.
    const after = cursor === undefined ? null : decodeCursor(cursor);
    const page = await listLeads(services.db, principal.workspaceId, { limit, after });
    return { leads: page.leads.map(leadSummaryJson), next_cursor: page.next_cursor };
  },
});
