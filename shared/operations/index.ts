import { creditsOperation } from "./credits.ts";
import { draftOperation } from "./draft.ts";
import { getLeadOperation } from "./get-lead.ts";
import { listLeadsOperation } from "./list-leads.ts";
import type { Operation } from "./operation.ts";
import { searchOperation } from "./search.ts";

/** The workspace operations an outside client can call (the MCP tools are registered from these). */
export const clientOperations: readonly Operation[] = [
  searchOperation,
  listLeadsOperation,
  getLeadOperation,
  creditsOperation,
  draftOperation,
];
