import type { SuppressionEntry } from "../../../shared/suppressions/suppressions.ts";
import { OPERATOR } from "../../../shared/suppressions/suppressions.ts";
import { html, type SafeHtml } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";
import { field } from "./components.ts";

/** One page of the list as shown: its entries, what they were searched by, where the next page starts. */
export interface SuppressionListing {
  entries: SuppressionEntry[];
  /** Every entry of the workspace, and how many it may hold. */
  total: number;
  max: number;
  search: string;
  /** A page after the first (a "first page" link). */
  paged: boolean;
  nextCursor: string | null;
}

/** The do-not-contact list: add one entry, import a pasted CSV, search, page through, remove an entry. */
export function suppressionsPage(
  context: PageContext,
  input: {
    workspaceId: string;
    listing: SuppressionListing;
    info?: string;
    error?: string;
    /** A refused entry: what was typed, kept in the form, with why beside it. */
    refused?: { value: string; reason: string; error: string };
  },
): string {
  const { t } = context;
  const { refused } = input;
  const path = (page = "") => workspacePath(input.workspaceId, `suppressions${page}`);
  return layout(
    { ...context, tab: "suppressions" },
    t.t("suppressions"),
    html`${notice("ok", input.info)}${notice("error", input.error)}
<p>${t.t("suppressionsIntro")}</p>
<div class="card"><form class="stack" method="post" action="${path()}">${csrfField(context)}
${field(
  "suppression-value",
  t.t("suppressionValue"),
  refused
    ? html`<input type="text" id="suppression-value" name="value" maxlength="300" required value="${refused.value}" aria-invalid="true" aria-describedby="suppression-value-error"><p class="field-error" id="suppression-value-error">${refused.error}</p>`
    : html`<input type="text" id="suppression-value" name="value" maxlength="300" required>`,
)}
${field("suppression-reason", t.t("reason"), html`<input type="text" id="suppression-reason" name="reason" maxlength="500" value="${refused?.reason ?? ""}">`)}
<div><button type="submit" class="primary">${t.t("addSuppression")}</button></div></form></div>
<div class="card"><form class="stack" method="post" action="${path("/import")}">${csrfField(context)}
${field("suppression-csv", t.t("importSuppressions"), html`<textarea id="suppression-csv" name="csv" rows="6" aria-describedby="suppression-csv-hint"></textarea>`, t.t("importHelp"))}
<div><button type="submit">${t.t("importButton")}</button></div></form></div>
${listingOf(context, path, input.listing)}`,
  );
}

function listingOf(
  context: PageContext,
  path: (page?: string) => string,
  listing: SuppressionListing,
): SafeHtml {
  const { t } = context;
  const kindName = { email: t.t("kindEmail"), domain: t.t("kindDomain"), place: t.t("kindPlace") } as const;
  const searchQuery = listing.search === "" ? "" : `q=${encodeURIComponent(listing.search)}`;
  const pageLink = (query: string) => (query === "" ? path() : `${path()}?${query}`);
  const empty =
    listing.search === "" ? t.t("noSuppressions") : t.t("noSuppressionMatches", { search: listing.search });
  return html`<div class="actions toolbar"><form class="inline" method="get" action="${path()}" role="search">
${field("suppression-search", t.t("searchSuppressions"), html`<input type="search" id="suppression-search" name="q" maxlength="300" value="${listing.search}">`)}
<button type="submit">${t.t("applyFilter")}</button></form>
<p class="small">${t.count("suppressionCount", listing.total, { max: listing.max })}</p></div>
${
  listing.entries.length === 0
    ? html`<p class="card empty">${empty}</p>`
    : html`<div class="table-wrap"><table class="rows"><thead><tr><th scope="col">${t.t("suppressionKind")}</th><th scope="col">${t.t("suppressionValue")}</th><th scope="col">${t.t("reason")}</th><th scope="col">${t.t("addedBy")}</th><th scope="col">${t.t("added")}</th><th scope="col"><span class="visually-hidden">${t.t("remove")}</span></th></tr></thead><tbody>
${listing.entries.map(
  (
    entry,
  ) => html`<tr><td data-label="${t.t("suppressionKind")}">${kindName[entry.kind]}</td><td data-label="${t.t("suppressionValue")}">${entry.value}</td><td data-label="${t.t("reason")}">${entry.reason ?? "—"}</td>
<td class="small" data-label="${t.t("addedBy")}">${entry.added_by === OPERATOR ? t.t("operator") : entry.added_by}</td><td class="small" data-label="${t.t("added")}">${t.date(entry.created_at)}</td>
<td><form method="post" action="${path(`/${entry.id}/remove`)}">${csrfField(context)}<button type="submit" class="link">${t.t("remove")}</button></form></td></tr>`,
)}
</tbody></table></div>`
}
<p class="actions">${listing.paged ? html`<a href="${pageLink(searchQuery)}">${t.t("firstPage")}</a>` : ""}${
    listing.nextCursor
      ? html`<a href="${pageLink([searchQuery, `after=${encodeURIComponent(listing.nextCursor)}`].filter((part) => part !== "").join("&"))}">${t.t("nextPage")}</a>`
      : ""
  }</p>`;
}
