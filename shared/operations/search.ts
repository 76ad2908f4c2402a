import { CREDITS_PER_NEW_PLACE, creditsInWords } from "../credits/prices.ts";
import {
  LIVE_FILTER_NAMES,
  MAX_FREE_TRIAL_QUERIES,
  searchRequestSchema,
  searchResponseSchema,
} from "../search/schemas.ts";
import { searchLeads } from "../search/search-leads.ts";
import { defineOperation } from "./operation.ts";

/** POST /v1/searches, the `search_leads` tool, the console's search page. */
export const searchOperation = defineOperation({
  name: "search",
  input: searchRequestSchema,
  output: searchResponseSchema,
  errors: ["invalid_request", "insufficient_credits", "request_too_large"],
  bucket: "search",
  // Its hourly limits (provider pages, live checks) are spent page by page inside the scan.
  cost: { credits: (output) => output.credits_spent },
  // The line says what the answer and the searches metric say: a search may be ok and truncated.
  logged: (output) => ({ truncated: output.truncated }),
  mcp: {
    name: "search_leads",
    title: "Search for leads",
    description:
      "Find local businesses by location and category and save the matches as leads in the workspace (same input as POST /v1/searches). " +
      `Costs credits: up to ${creditsInWords(CREDITS_PER_NEW_PLACE)} per NEW place returned, charged once after the scan; places already charged in this workspace are free again, and if the balance cannot cover the new places nothing is saved (insufficient_credits). Check get_credit_balance first and keep max_results within the balance. ` +
      `With ${LIVE_FILTER_NAMES} the search checks live websites and may take 30 to 45 seconds; tell the user and wait. ` +
      `A free-trial workspace may send at most ${MAX_FREE_TRIAL_QUERIES} queries. Results come highest opportunity score first (each with its tier and reasons; a result whose site was never checked is tiered unchecked, not low). Each result's id can be passed to get_lead and draft_outreach_email.`,
    // Spends credits (see McpToolAnnotations); not idempotent: the same search repeated may find,
    // return and charge places that are new since; it asks the places provider and live websites.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
  async run({ principal, logger, signal, services }, input) {
    const outcome = await searchLeads(
      {
        db: services.db,
        places: services.places,
        auditor: services.auditor,
        checkBudgetMs: services.config.searchCheckBudgetMs,
        matchGraceMs: services.config.searchMatchGraceMs,
        metrics: services.metrics,
        costGuard: services.costGuard,
        logger,
        ...(principal.spender ? { spender: principal.spender } : {}),
      },
      principal.workspaceId,
      input,
      signal,
    );
    return {
      results: outcome.results.map((lead) => ({ ...lead, added_at: lead.added_at.toISOString() })),
      credits_spent: outcome.credits_spent,
      truncated: outcome.truncated,
    };
  },
});
