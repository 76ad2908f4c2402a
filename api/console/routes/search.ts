import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { CREDITS_PER_NEW_PLACE } from "../../../shared/credits/prices.ts";
import { ApiError } from "../../../shared/errors.ts";
import { recordOf } from "../../../shared/lists.ts";
import { invoke } from "../../../shared/operations/operation.ts";
import { searchOperation } from "../../../shared/operations/search.ts";
import {
  MAX_FREE_TRIAL_QUERIES,
  type SearchRequest,
  searchRequestSchema,
  YES_NO_FILTERS,
} from "../../../shared/search/schemas.ts";
import { requireWorkspace } from "../../../shared/workspaces/workspaces.ts";
import {
  formError,
  formFieldOf,
  parseForm,
  problemOf,
  SEARCH_ROWS,
  type SearchForm,
  searchForm,
  valueAt,
} from "../forms.ts";
import type { Translator } from "../i18n.ts";
import { PageError } from "../page-error.ts";
import { workspacePath } from "../paths.ts";
import { pageMessageOf } from "../renderer.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { searchPage } from "../views/search.ts";
import { callerOf, membershipOf, redirectWithFlash } from "../workspace-scope.ts";

const flashQuery = z.object({ flash: z.string().optional() }).catch({});

/** The form's rows and boxes as the search operation's input (its own schema checks the bounds). */
function searchRequestOf(form: SearchForm): SearchRequest {
  const queries: SearchRequest["queries"] = [];
  for (const n of SEARCH_ROWS) {
    const location = form[`location_${n}`];
    const category = form[`category_${n}`];
    if (location === "" && category === "") continue;
    if (location === "" || category === "") throw new PageError(400, "invalidInput", { detail: String(n) });
    queries.push({ location, category });
  }
  const filters = {
    ...(form.min_rating === undefined ? {} : { min_rating: form.min_rating }),
    ...recordOf(
      YES_NO_FILTERS.filter((filter) => form[filter]),
      () => true,
    ),
  };
  return { queries, max_results: form.max_results, filters };
}

/**
 * The console's search: the same operation as POST /v1/searches and the `search_leads` tool
 * (same charge, same rules, same rate limit). The answer is kept in the session's flash and shown
 * after a redirect, so a reload shows it again without searching (or charging) again.
 */
const searchRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services, flash }) => {
  const { db } = services;

  app.get("/search", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const workspace = await requireWorkspace(db, workspace_id);
    const id = flashQuery.parse(request.query).flash;
    const session = request.consoleSession;
    const shown = id && session ? await flash.read(session.token, id, { take: false }) : null;
    return reply.render((context) =>
      searchPage(context, {
        workspaceId: workspace_id,
        freeTrial: workspace.free_trial,
        balance: workspace.balance,
        outcome: shown?.kind === "search" ? shown : undefined,
      }),
    );
  });

  app.post("/search", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const form = parseForm(searchForm, request.body);
    let searchRequest: SearchRequest | undefined;
    try {
      searchRequest = searchRequestOf(form);
      if (searchRequest.queries.length === 0) throw new PageError(400, "invalidInput", { detail: "" });
      // The operation's own schema, read here so that what it refuses is said field by field in
      // the member's language (the operation's message is the API's English).
      const checked = searchRequestSchema.safeParse(searchRequest);
      if (!checked.success) {
        const sent = searchRequest;
        throw formError(checked.error.issues.map((issue) => searchFormProblemOf(issue, sent)));
      }
      const response = await invoke(searchOperation, callerOf(request, services), searchRequest);
      // The page's one workspace read: after the charge, so the balance shown is the one left.
      const workspace = await requireWorkspace(db, workspace_id);
      const balance = workspace.balance;
      const outcome = { kind: "search" as const, request: searchRequest, response, balance };
      const redirected = await redirectWithFlash(
        request,
        reply,
        flash,
        workspacePath(workspace_id, "search"),
        outcome,
      );
      if (redirected) return reply;
      // No flash store reachable: the results in this answer (a reload would ask to resend).
      return reply.render((context) =>
        searchPage(context, { workspaceId: workspace_id, freeTrial: workspace.free_trial, balance, outcome }),
      );
    } catch (error) {
      if (!(error instanceof ApiError || error instanceof PageError) || error.status >= 500) throw error;
      if (error instanceof ApiError) reply.headers(error.headers);
      const workspace = await requireWorkspace(db, workspace_id);
      return reply.render(
        (context) =>
          searchPage(context, {
            workspaceId: workspace_id,
            freeTrial: workspace.free_trial,
            balance: workspace.balance,
            form,
            error: searchErrorOf(context.t, error, workspace.free_trial, form),
          }),
        error.status,
      );
    }
  });
};

/** A refusal of the search request's schema, on the form's field (`queries.1.location` is location_2). */
function searchFormProblemOf(issue: z.core.$ZodIssue, sent: SearchRequest) {
  const [first, index, name] = issue.path;
  const field =
    first === "queries" && typeof index === "number" && (name === "location" || name === "category")
      ? `${name}_${index + 1}`
      : String(first === "filters" ? index : first);
  return problemOf(issue, formFieldOf(field), valueAt(sent, issue.path));
}

/** Why the search was refused, in the member's words. */
function searchErrorOf(
  t: Translator,
  error: ApiError | PageError,
  freeTrial: boolean,
  form: SearchForm,
): string {
  if (error instanceof PageError) {
    if (error.problems.length > 0) return pageMessageOf(t, error);
    const row = error.values.detail;
    return row ? t.t("queryIncomplete", { n: row }) : t.t("needOneQuery");
  }
  if (error.code === "insufficient_credits") {
    // The search's charge is CREDITS_PER_NEW_PLACE per new lead: what it needs says how many it found.
    const shortfall = error.shortfall;
    if (!shortfall) return t.t("insufficientCreditsSearch");
    const fits = Math.floor(shortfall.available / CREDITS_PER_NEW_PLACE);
    const values = {
      found: shortfall.needed / CREDITS_PER_NEW_PLACE,
      cost: shortfall.needed,
      price: CREDITS_PER_NEW_PLACE,
      balance: shortfall.available,
      fits,
    };
    return t.t(fits > 0 ? "insufficientCreditsSearchFound" : "insufficientCreditsSearchEmpty", values);
  }
  if (error.status === 429) return t.t("tooManyRequests");
  const rows = SEARCH_ROWS.filter((n) => form[`location_${n}`] !== "").length;
  if (freeTrial && rows > MAX_FREE_TRIAL_QUERIES)
    return t.t("freeTrialQueries", { max: MAX_FREE_TRIAL_QUERIES });
  return t.t("invalidInput", { detail: error.message });
}

export default searchRoutes;
