import type { SuppressionEntry } from "../../../shared/suppressions/suppressions.ts";
import { OPERATOR } from "../../../shared/suppressions/suppressions.ts";
import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";
import { field } from "./components.ts";

/** The do-not-contact list: add one entry, import a pasted CSV, remove an entry. */
export function suppressionsPage(
  context: PageContext,
  input: { workspaceId: string; entries: SuppressionEntry[]; info?: string; error?: string },
): string {
  const { t } = context;
  const path = (page = "") => workspacePath(input.workspaceId, `suppressions${page}`);
  const kindName = { email: t.t("kindEmail"), domain: t.t("kindDomain"), place: t.t("kindPlace") } as const;
  return layout(
    { ...context, tab: "suppressions" },
    t.t("suppressions"),
    html`${notice("ok", input.info)}${notice("error", input.error)}
<p>${t.t("suppressionsIntro")}</p>
<div class="card"><form class="stack" method="post" action="${path()}">${csrfField(context)}
${field("suppression-value", t.t("suppressionValue"), html`<input type="text" id="suppression-value" name="value" maxlength="300" required>`)}
${field("suppression-reason", t.t("reason"), html`<input type="text" id="suppression-reason" name="reason" maxlength="500">`)}
<div><button type="submit" class="primary">${t.t("addSuppression")}</button></div></form></div>
<div class="card"><form class="stack" method="post" action="${path("/import")}">${csrfField(context)}
${field("suppression-csv", t.t("importSuppressions"), html`<textarea id="suppression-csv" name="csv" rows="6" aria-describedby="suppression-csv-hint"></textarea>`, t.t("importHelp"))}
<div><button type="submit">${t.t("importButton")}</button></div></form></div>
${
  input.entries.length === 0
    ? html`<p class="card empty">${t.t("noSuppressions")}</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">${t.t("suppressionKind")}</th><th scope="col">${t.t("suppressionValue")}</th><th scope="col">${t.t("reason")}</th><th scope="col">${t.t("addedBy")}</th><th scope="col">${t.t("added")}</th><th scope="col"><span class="visually-hidden">${t.t("remove")}</span></th></tr></thead><tbody>
${input.entries.map(
  (entry) => html`<tr><td>${kindName[entry.kind]}</td><td>${entry.value}</td><td>${entry.reason ?? "—"}</td>
<td class="small">${entry.added_by === OPERATOR ? t.t("operator") : entry.added_by}</td><td class="small">${t.date(entry.created_at)}</td>
<td><form method="post" action="${path(`/${entry.id}/remove`)}">${csrfField(context)}<button type="submit" class="link">${t.t("remove")}</button></form></td></tr>`,
)}
</tbody></table></div>`
}`,
  );
}
