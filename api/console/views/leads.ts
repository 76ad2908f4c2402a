import type { LeadWithEvidence, StoredDraft } from "../../../shared/console/workspace-views.ts";
import type { OutreachStatus } from "../../../shared/db/schema.ts";
import { html, type Interpolation, type SafeHtml } from "../html.ts";
import type { Translator } from "../i18n.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";
import { field, languageOptions } from "./components.ts";
import {
  evidenceList,
  factLabel,
  flagBadges,
  languageName,
  OUTREACH_STATUSES,
  pitchEvidence,
  statusLabel,
} from "./labels.ts";
import { opportunityBlock, opportunityCell } from "./opportunity.ts";

/** Whether the address can receive mail and where it was found (DESIGN "Lawful outreach"). */
function emailFacts(t: Translator, lead: LeadWithEvidence): SafeHtml {
  if (lead.email_status === null || lead.email_source === null) return html``;
  const source = lead.email_source;
  return html`<dt>${t.t("emailStatus")}</dt><dd>${t.t(`emailStatusValue_${lead.email_status}`)}</dd>
<dt>${t.t("emailSource")}</dt><dd class="small">${t.t("emailSourceLine", {
    url: source.url,
    foundIn: source.found_in,
    first: t.date(new Date(source.first_seen_at)),
    last: t.date(new Date(source.last_seen_at)),
  })}</dd>
`;
}

export function leadsPage(
  context: PageContext,
  input: {
    workspaceId: string;
    leads: LeadWithEvidence[];
    nextCursor: string | null;
    paged: boolean;
    status: OutreachStatus | undefined;
    /** Highest opportunity score first (else newest first); pages then go by number. */
    byScore?: { page: number; hasNext: boolean };
  },
): string {
  const { t } = context;
  const base = workspacePath(input.workspaceId, "leads");
  const statusQuery = [input.status ? `status=${input.status}` : "", input.byScore ? "sort=score" : ""]
    .filter((part) => part !== "")
    .join("&");
  const cell = (label: string, content: Interpolation, className = "") =>
    html`<td data-label="${label}"${className ? html` class="${className}"` : ""}>${content}</td>`;
  return layout(
    { ...context, tab: "leads" },
    t.t("leads"),
    html`<div class="actions toolbar"><form class="inline" method="get" action="${base}">
<div>${field(
      "status-filter",
      t.t("filterByStatus"),
      html`<select id="status-filter" name="status"><option value="">${t.t("allStatuses")}</option>${OUTREACH_STATUSES.map(
        (status) =>
          html`<option value="${status}"${input.status === status ? html` selected` : ""}>${statusLabel(t, status)}</option>`,
      )}</select>`,
    )}</div><div>${field(
      "sort",
      t.t("sortBy"),
      html`<select id="sort" name="sort"><option value="">${t.t("sortNewest")}</option><option value="score"${input.byScore ? html` selected` : ""}>${t.t("sortByScore")}</option></select>`,
    )}</div><button type="submit">${t.t("applyFilter")}</button></form>
<a class="button" href="${workspacePath(input.workspaceId, "search")}">${t.t("search")}</a>
<a class="button" href="${workspacePath(input.workspaceId, "leads.csv")}" download>${t.t("exportCsv")}</a></div>
${
  input.leads.length === 0
    ? html`<p class="card empty">${input.status ? t.t("noLeadsWithStatus") : t.t("noLeads")}</p>`
    : html`<div class="table-wrap"><table class="rows"><thead><tr><th scope="col">${t.t("business")}</th><th scope="col">${t.t("website")}</th><th scope="col">${t.t("score")}</th><th scope="col">${t.t("flags")}</th><th scope="col">${t.t("evidence")}</th><th scope="col">${t.t("status")}</th><th scope="col">${t.t("added")}</th></tr></thead><tbody>
${input.leads.map(
  (lead) => html`<tr>${cell(
    t.t("business"),
    html`<a href="${workspacePath(input.workspaceId, `leads/${lead.id}`)}">${lead.name}</a><br><span class="muted small">${lead.category}</span>`,
  )}
${cell(t.t("website"), html`${lead.website ?? "—"}${lead.email ? html`<br>${lead.email}` : ""}`, "small")}
${cell(t.t("score"), opportunityCell(t, lead.opportunity))}${cell(t.t("flags"), flagBadges(t, lead))}${cell(t.t("evidence"), evidenceList(t, lead))}${cell(t.t("status"), statusLabel(t, lead.outreach_status))}${cell(t.t("added"), t.date(lead.added_at), "small")}</tr>`,
)}
</tbody></table></div>`
}
<p class="actions">${input.paged ? html`<a href="${base}${statusQuery ? `?${statusQuery}` : ""}">${t.t("firstPage")}</a>` : ""}${
      input.byScore?.hasNext
        ? html`<a href="${base}?${statusQuery}&page=${input.byScore.page + 1}">${t.t("nextPage")}</a>`
        : input.nextCursor
          ? html`<a href="${base}?${statusQuery ? `${statusQuery}&` : ""}cursor=${encodeURIComponent(input.nextCursor)}">${t.t("nextPage")}</a>`
          : ""
    }</p>`,
  );
}

export function leadPage(
  context: PageContext,
  input: {
    workspaceId: string;
    lead: LeadWithEvidence;
    drafts: StoredDraft[];
    language: string;
    info?: string;
    error?: string;
  },
): string {
  const { t } = context;
  const { lead } = input;
  const markForm = (status: "sent" | "skipped", label: string) =>
    html`<form method="post" action="${workspacePath(input.workspaceId, `leads/${lead.id}/mark`)}" class="inline-form">${csrfField(context)}<input type="hidden" name="status" value="${status}"><button type="submit"${lead.outreach_status === status ? html` disabled` : ""}>${label}</button></form>`;
  return layout(
    { ...context, tab: "leads" },
    lead.name,
    html`<p><a href="${workspacePath(input.workspaceId, "leads")}">${t.t("backToLeads")}</a></p>
${notice("ok", input.info)}${notice("error", input.error)}${lead.email_source?.solicitation_refused ? html`<div class="alert error" role="alert">${t.t("solicitationRefused")}</div>` : ""}
<div class="card"><dl class="facts">
<dt>${t.t("category")}</dt><dd>${lead.category}</dd>
<dt>${t.t("address")}</dt><dd>${lead.address ?? "—"}</dd>
<dt>${t.t("website")}</dt><dd>${lead.website ?? "—"}</dd>
<dt>${t.t("email")}</dt><dd>${lead.email ?? "—"}</dd>
${emailFacts(t, lead)}<dt>${t.t("status")}</dt><dd id="lead-status">${statusLabel(t, lead.outreach_status)}</dd>
<dt>${t.t("flags")}</dt><dd>${flagBadges(t, lead)}</dd>
<dt>${t.t("lastMediaYear")}</dt><dd>${lead.last_media_year ?? "—"}</dd>
</dl>
${lead.evidence || pitchEvidence(t, lead).length > 0 ? html`<h2>${t.t("evidence")}</h2>${evidenceList(t, lead)}` : ""}</div>
${opportunityBlock(t, lead.opportunity)}
<div class="card"><p class="muted small">${t.t("markHelp")}</p><div class="actions">${markForm("sent", t.t("markSent"))}${markForm("skipped", t.t("markSkipped"))}</div></div>
<div class="card"><form class="inline" method="post" action="${workspacePath(input.workspaceId, `leads/${lead.id}/draft`)}">${csrfField(context)}
<div>${field("locale", t.t("draftLocale"), html`<select id="locale" name="locale">${languageOptions(t, input.language)}</select>`)}</div>
<button type="submit" class="primary">${t.t("draft")}</button></form></div>
<div class="card"><form class="inline" method="post" action="${workspacePath(input.workspaceId, `leads/${lead.id}/do-not-contact`)}">${csrfField(context)}
<div>${field("dnc-reason", t.t("reason"), html`<input type="text" id="dnc-reason" name="reason" maxlength="500" aria-describedby="dnc-reason-hint">`, t.t("doNotContactHelp"))}</div>
<button type="submit" class="danger">${t.t("doNotContact")}</button></form></div>
<h2>${t.t("drafts")}</h2>
${
  input.drafts.length === 0
    ? html`<p class="card empty">${t.t("noDrafts")}</p>`
    : input.drafts.map(
        (
          draft,
        ) => html`<article class="card"><p class="muted small">${t.date(draft.created_at)} · ${languageName(t, draft.locale)} · ${t.t("factsUsed")}: ${draft.facts_used.map((key) => factLabel(t, key)).join(", ")}</p>
<h3>${t.t("subject")}: ${draft.subject}</h3><pre class="draft">${draft.body}</pre></article>`,
      )
}`,
  );
}
