import { recordOf } from "../../../shared/lists.ts";
import type { SearchRequest, SearchResponse, YesNoFilter } from "../../../shared/search/schemas.ts";
import {
  MAX_FREE_TRIAL_QUERIES,
  MAX_QUERIES,
  MAX_RESULTS,
  YES_NO_FILTERS,
} from "../../../shared/search/schemas.ts";
import type { SearchForm } from "../forms.ts";
import { html, type Interpolation } from "../html.ts";
import type { MessageKey, Translator } from "../i18n.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";
import { field } from "./components.ts";
import { statusLabel } from "./labels.ts";
import { opportunityCell } from "./opportunity.ts";

/** What the form shows: the last search made, or the values sent with a refused one. */
interface FormValues {
  rows: { location: string; category: string }[];
  maxResults: number;
  minRating: string;
  boxes: Record<YesNoFilter, boolean>;
}

const valuesOfForm = (form: SearchForm): FormValues => ({
  rows: ([1, 2, 3, 4, 5] as const).map((n) => ({
    location: form[`location_${n}`],
    category: form[`category_${n}`],
  })),
  maxResults: form.max_results,
  minRating: form.min_rating === undefined ? "" : String(form.min_rating),
  boxes: form,
});

const valuesOfRequest = (request: SearchRequest): FormValues => ({
  rows: request.queries,
  maxResults: request.max_results,
  minRating: request.filters?.min_rating === undefined ? "" : String(request.filters.min_rating),
  boxes: recordOf(YES_NO_FILTERS, (filter) => request.filters?.[filter] === true),
});

const FILTER_LABELS: Record<YesNoFilter, MessageKey> = {
  no_website: "filterNoWebsite",
  not_mobile_friendly: "filterNotMobileFriendly",
  outdated_website: "filterOutdated",
  stale_content: "filterStaleContent",
};

const yesNo = (t: Translator, value: boolean | null): string =>
  value === null ? t.t("unknown") : value ? t.t("yes") : t.t("no");

function searchForm(context: PageContext, workspaceId: string, freeTrial: boolean, values: FormValues) {
  const { t } = context;
  const rowCount = freeTrial ? MAX_FREE_TRIAL_QUERIES : MAX_QUERIES;
  const box = (name: YesNoFilter) =>
    html`<label class="choice"><input type="checkbox" name="${name}"${values.boxes[name] ? html` checked` : ""}> ${t.t(FILTER_LABELS[name])}</label>\n`;
  const rows = Array.from({ length: rowCount }, (_, index) => {
    const n = index + 1;
    const row = values.rows[index] ?? { location: "", category: "" };
    return html`<fieldset class="query"><legend>${t.t("queryRow", { n })}</legend>
${field(`location-${n}`, t.t("location"), html`<input type="text" id="location-${n}" name="location_${n}" maxlength="200" value="${row.location}"${n === 1 ? html` required` : ""}>`)}
${field(`category-${n}`, t.t("tradeCategory"), html`<input type="text" id="category-${n}" name="category_${n}" maxlength="100" value="${row.category}"${n === 1 ? html` required` : ""}>`)}
</fieldset>`;
  });
  return html`<div class="card"><form class="stack" method="post" action="${workspacePath(workspaceId, "search")}">${csrfField(context)}
<h2>${t.t("queries")}</h2>
${freeTrial ? html`<p class="muted small">${t.t("freeTrialQueries", { max: MAX_FREE_TRIAL_QUERIES })}</p>` : ""}
<div class="queries">${rows}</div>
${field("max-results", t.t("maxResults"), html`<input type="number" id="max-results" name="max_results" min="1" max="${MAX_RESULTS}" required value="${values.maxResults}" aria-describedby="max-results-hint">`, t.t("maxResultsHint", { max: MAX_RESULTS }))}
<fieldset><legend>${t.t("filters")}</legend>
${field("min-rating", t.t("minRating"), html`<input type="number" id="min-rating" name="min_rating" min="0" max="5" step="0.1" value="${values.minRating}">`)}
${YES_NO_FILTERS.map(box)}</fieldset>
<div><button type="submit" class="primary">${t.t("runSearch")}</button></div></form></div>`;
}

function results(context: PageContext, workspaceId: string, response: SearchResponse, balance: number) {
  const { t } = context;
  const cell = (label: string, content: Interpolation) => html`<td data-label="${label}">${content}</td>`;
  return html`<section aria-labelledby="results"><h2 id="results">${t.t("searchResults")}</h2>
<div class="alert ok" role="status" id="search-summary" data-credits-spent="${response.credits_spent}">${t.t("searchSpent", { credits: response.credits_spent, balance })}</div>
${response.truncated ? html`<div class="alert warn" id="search-truncated">${t.t("searchTruncated")}</div>` : ""}
${
  response.results.length === 0
    ? html`<p class="card empty">${t.t("searchNoResults")}</p>`
    : html`<div class="table-wrap"><table class="rows"><thead><tr><th scope="col">${t.t("business")}</th><th scope="col">${t.t("website")}</th><th scope="col">${t.t("score")}</th><th scope="col">${t.t("hasWebsite")}</th><th scope="col">${t.t("mobileFriendly")}</th><th scope="col">${t.t("outdated")}</th><th scope="col">${t.t("status")}</th></tr></thead><tbody>
${response.results.map(
  (
    lead,
  ) => html`<tr>${cell(t.t("business"), html`<a href="${workspacePath(workspaceId, `leads/${lead.id}`)}">${lead.name}</a><br><span class="muted small">${lead.category}</span>`)}
${cell(t.t("website"), html`<span class="small">${lead.website ?? "—"}${lead.email ? html`<br>${lead.email}` : ""}</span>`)}
${cell(t.t("score"), opportunityCell(t, lead.opportunity))}${cell(t.t("hasWebsite"), yesNo(t, lead.has_website))}${cell(t.t("mobileFriendly"), yesNo(t, lead.is_mobile_friendly))}${cell(t.t("outdated"), yesNo(t, lead.is_outdated))}${cell(t.t("status"), statusLabel(t, lead.outreach_status))}</tr>`,
)}</tbody></table></div>`
}</section>`;
}

export function searchPage(
  context: PageContext,
  input: {
    workspaceId: string;
    freeTrial: boolean;
    balance: number;
    outcome?: { request: SearchRequest; response: SearchResponse; balance: number } | undefined;
    form?: SearchForm;
    error?: string;
  },
): string {
  const { t } = context;
  const values = input.form
    ? valuesOfForm(input.form)
    : input.outcome
      ? valuesOfRequest(input.outcome.request)
      : valuesOfRequest({ queries: [], max_results: 10 });
  return layout(
    { ...context, tab: "search" },
    t.t("search"),
    html`${notice("error", input.error)}
<p class="muted">${t.t("searchIntro")} ${t.t("balance")}${t.colon} <strong id="balance">${input.outcome?.balance ?? input.balance}</strong></p>
${input.outcome ? results(context, input.workspaceId, input.outcome.response, input.outcome.balance) : ""}
${searchForm(context, input.workspaceId, input.freeTrial, values)}`,
  );
}
