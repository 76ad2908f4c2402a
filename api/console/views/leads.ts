import type { LeadWithEvidence } from "../../../shared/console/workspace-views.ts";
import type { OutreachStatus } from "../../../shared/db/schema.ts";
import type { StoredDraft } from "../../../shared/drafting/drafts.ts";
import { OPERATOR, type SuppressionEntry } from "../../../shared/suppressions/suppressions.ts";
import { html, type Interpolation, type SafeHtml } from "../html.ts";
import type { Translator } from "../i18n.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";
import { field, languageOptions } from "./components.ts";
import {
  emailStatusReason,
  evidenceList,
  factLabel,
  flagBadges,
  languageName,
  OUTREACH_STATUSES,
  pitchEvidence,
  statusLabel,
} from "./labels.ts";
import { opportunityBlock, opportunityCell } from "./opportunity.ts";

/** One lead of a bulk draft: drafted, skipped (and why), or not reached (the credits ran out first). */
export interface BulkDraftLine {
  name: string;
  outcome: "drafted" | "skipped" | "stopped" | "not_reached";
  reason?: string;
}

function bulkReport(t: Translator, lines: BulkDraftLine[] | undefined): SafeHtml {
  if (lines === undefined || lines.length === 0) return html``;
  return html`<ul class="card" id="bulk-report">${lines.map(
    (line) =>
      html`<li data-outcome="${line.outcome}"><strong>${line.name}</strong>${line.reason ? html`${t.colon} ${line.reason}` : ""}</li>`,
  )}</ul>`;
}

/** Whether the address can receive mail and where it was found (DESIGN "Lawful outreach"). */
function emailFacts(t: Translator, lead: LeadWithEvidence): SafeHtml {
  if (lead.email_status === null || lead.email_source === null) return html``;
  const source = lead.email_source;
  return html`<dt>${t.t("emailStatus")}</dt><dd><span id="email-status">${t.t(`emailStatusValue_${lead.email_status}`)}</span> <span class="muted small" id="email-status-reason">${emailStatusReason(t, lead)}</span></dd>
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
    /** The workspace's draft language: the bulk form's default. */
    language: string;
    info?: string;
    error?: string;
    /** What a bulk draft did, lead by lead. */
    bulk?: BulkDraftLine[];
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
    html`${notice("ok", input.info)}${notice("error", input.error)}${bulkReport(t, input.bulk)}<div class="actions toolbar"><form class="inline" method="get" action="${base}">
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
    ? ""
    : html`<form class="inline card" id="bulk-draft" method="post" action="${workspacePath(input.workspaceId, "leads/draft")}">${csrfField(context)}
<div>${field("bulk-locale", t.t("draftLocale"), html`<select id="bulk-locale" name="locale">${languageOptions(t, input.language)}</select>`)}</div>
<button type="submit" class="primary">${t.t("draftSelected")}</button><p class="muted small">${t.t("draftSelectedHelp")}</p></form>`
}
${
  input.leads.length === 0
    ? html`<p class="card empty">${input.status ? t.t("noLeadsWithStatus") : t.t("noLeads")}</p>`
    : html`<div class="table-wrap"><table class="rows"><thead><tr><th scope="col"><span class="visually-hidden">${t.t("select")}</span></th><th scope="col">${t.t("business")}</th><th scope="col">${t.t("website")}</th><th scope="col">${t.t("score")}</th><th scope="col">${t.t("flags")}</th><th scope="col">${t.t("evidence")}</th><th scope="col">${t.t("status")}</th><th scope="col">${t.t("added")}</th></tr></thead><tbody>
${input.leads.map(
  (lead) => html`<tr>${cell(
    t.t("select"),
    html`<input type="checkbox" name="lead_id" value="${lead.id}" form="bulk-draft" aria-label="${t.t("selectLead", { name: lead.name })}">`,
  )}${cell(
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

/** A listed business: who listed it (the agency itself, or the operator) and when, and why if given. */
export function whoSuppressed(t: Translator, entry: SuppressionEntry): string {
  const date = t.date(entry.created_at);
  const who =
    entry.added_by === OPERATOR
      ? t.t("draftRefusedByOperator", { date })
      : t.t("draftRefusedByMember", { who: entry.added_by, date });
  return entry.reason ? `${who} ${t.t("suppressionReasonGiven", { reason: entry.reason })}` : who;
}

/** Why drafting this lead deserves a second thought: no address, one that bounces, a refusal of solicitation. */
function draftWarnings(t: Translator, lead: LeadWithEvidence): string[] {
  const warnings: string[] = [];
  if (lead.email === null) warnings.push(t.t("warnNoAddress"));
  else if (lead.email_status === "undeliverable")
    warnings.push(t.t("warnUndeliverable", { email: lead.email, reason: emailStatusReason(t, lead) }));
  if (lead.email_source?.solicitation_refused) warnings.push(t.t("solicitationRefused"));
  return warnings;
}

/** A `mailto:` link with the draft's subject and body filled (RFC 6068: line breaks as CRLF). */
function mailtoHref(email: string, draft: Pick<StoredDraft, "subject" | "body">): string {
  const query = (text: string) => encodeURIComponent(text.replace(/\r?\n/g, "\r\n"));
  return `mailto:${encodeURIComponent(email).replace(/%40/g, "@")}?subject=${query(draft.subject)}&body=${query(draft.body)}`;
}

/** The latest draft, ready to send: copy buttons, and the member's mail app when the lead has an address. */
function latestDraftSection(
  context: PageContext,
  lead: LeadWithEvidence,
  draft: StoredDraft | undefined,
): SafeHtml {
  const { t } = context;
  if (draft === undefined) return html``;
  return html`<section class="card" aria-labelledby="latest-draft-title"><h2 id="latest-draft-title">${t.t("latestDraft")}</h2>
<p class="muted small">${t.date(draft.created_at)} · ${languageName(t, draft.locale)} · ${t.t("factsUsed")}${t.colon} ${draft.facts_used.map((key) => factLabel(t, key)).join(", ")}</p>
<p><strong>${t.t("subject")}${t.colon}</strong> <span id="latest-subject">${draft.subject}</span></p>
<pre class="draft" id="latest-body">${draft.body}</pre>
<div class="actions">${lead.email ? html`<a class="button primary" id="latest-mailto" href="${mailtoHref(lead.email, draft)}">${t.t("openInMailApp", { email: lead.email })}</a>` : ""}<button type="button" data-copy="latest-body" data-copied="${t.t("copied")}">${t.t("copyBody")}</button><button type="button" data-copy="latest-subject" data-copied="${t.t("copied")}">${t.t("copySubject")}</button></div>
${lead.email ? "" : html`<p class="muted small">${t.t("noAddressToSend")}</p>`}</section>`;
}

/** The lead as verified: its place, its address and where it came from, the audit's flags. */
function leadFactsSection(context: PageContext, lead: LeadWithEvidence): SafeHtml {
  const { t } = context;
  return html`<div class="card"><dl class="facts">
<dt>${t.t("category")}</dt><dd>${lead.category}</dd>
<dt>${t.t("address")}</dt><dd>${lead.address ?? "—"}</dd>
<dt>${t.t("website")}</dt><dd>${lead.website ?? "—"}</dd>
<dt>${t.t("email")}</dt><dd>${lead.email ?? "—"}</dd>
${emailFacts(t, lead)}<dt>${t.t("status")}</dt><dd id="lead-status">${statusLabel(t, lead.outreach_status)}</dd>
<dt>${t.t("flags")}</dt><dd>${flagBadges(t, lead)}</dd>
<dt>${t.t("lastMediaYear")}</dt><dd>${lead.last_media_year ?? "—"}</dd>
</dl>
${lead.evidence || pitchEvidence(t, lead).length > 0 ? html`<h2>${t.t("evidence")}</h2>${evidenceList(t, lead)}` : ""}</div>`;
}

/** The draft button, after the warnings that apply (each must be acknowledged before drafting). */
function draftFormSection(
  context: PageContext,
  workspaceId: string,
  lead: LeadWithEvidence,
  language: string,
): SafeHtml {
  const { t } = context;
  const warnings = draftWarnings(t, lead);
  return html`<div class="card">${
    warnings.length === 0
      ? ""
      : html`<div class="alert warn" id="draft-warnings"><p><strong>${t.t("draftWarningTitle")}</strong></p><ul>${warnings.map((warning) => html`<li>${warning}</li>`)}</ul></div>`
  }<form class="inline" method="post" action="${workspacePath(workspaceId, `leads/${lead.id}/draft`)}">${csrfField(context)}
<div>${field("locale", t.t("draftLocale"), html`<select id="locale" name="locale">${languageOptions(t, language)}</select>`)}</div>
${warnings.length === 0 ? "" : html`<label class="check"><input type="checkbox" name="confirm" value="on" required> ${t.t("draftAnyway")}</label>`}
<button type="submit" class="primary">${t.t("draft")}</button></form></div>`;
}

function markSection(context: PageContext, workspaceId: string, lead: LeadWithEvidence): SafeHtml {
  const { t } = context;
  const markForm = (status: "sent" | "skipped", label: string) =>
    html`<form method="post" action="${workspacePath(workspaceId, `leads/${lead.id}/mark`)}" class="inline-form">${csrfField(context)}<input type="hidden" name="status" value="${status}"><button type="submit"${lead.outreach_status === status ? html` disabled` : ""}>${label}</button></form>`;
  return html`<div class="card"><p class="muted small">${t.t("markHelp")}</p><div class="actions">${markForm("sent", t.t("markSent"))}${markForm("skipped", t.t("markSkipped"))}</div></div>`;
}

function doNotContactSection(context: PageContext, workspaceId: string, lead: LeadWithEvidence): SafeHtml {
  const { t } = context;
  return html`<div class="card"><form class="inline" method="post" action="${workspacePath(workspaceId, `leads/${lead.id}/do-not-contact`)}">${csrfField(context)}
<div>${field("dnc-reason", t.t("reason"), html`<input type="text" id="dnc-reason" name="reason" maxlength="500" aria-describedby="dnc-reason-hint">`, t.t("doNotContactHelp"))}</div>
<button type="submit" class="danger">${t.t("doNotContact")}</button></form></div>`;
}

function earlierDraftsSection(context: PageContext, drafts: StoredDraft[]): SafeHtml {
  const { t } = context;
  if (drafts.length === 0) return html``;
  return html`<h2>${t.t("earlierDrafts")}</h2>
${drafts.map(
  (
    draft,
  ) => html`<article class="card"><p class="muted small">${t.date(draft.created_at)} · ${languageName(t, draft.locale)} · ${t.t("factsUsed")}${t.colon} ${draft.facts_used.map((key) => factLabel(t, key)).join(", ")}</p>
<h3>${t.t("subject")}${t.colon} ${draft.subject}</h3><pre class="draft">${draft.body}</pre></article>`,
)}`;
}

/**
 * One lead, built around sending: the latest draft first (copy it, or open it in the mail app),
 * then what is known about the business, the draft button (after its warnings), the marks, do not
 * contact, and the earlier drafts. Each part is its own piece so others can be added between them.
 */
export function leadPage(
  context: PageContext,
  input: {
    workspaceId: string;
    lead: LeadWithEvidence;
    drafts: StoredDraft[];
    /** The do-not-contact entry the business matches: then no draft and no "Do not contact" are offered. */
    suppression: SuppressionEntry | null;
    language: string;
    info?: string;
    error?: string;
  },
): string {
  const { t } = context;
  const { lead, suppression } = input;
  const [latest, ...earlier] = input.drafts;
  const listed = suppression === null ? "" : whoSuppressed(t, suppression);
  // A refused draft of a listed business says what the listing notice already says: once is enough.
  const error = input.error === listed ? undefined : input.error;
  return layout(
    { ...context, tab: "leads" },
    lead.name,
    html`<p><a href="${workspacePath(input.workspaceId, "leads")}">${t.t("backToLeads")}</a></p>
${notice("ok", input.info)}${notice("error", error)}${listed ? html`<div class="alert error" role="alert" id="lead-suppressed">${listed}</div>` : ""}${lead.email_source?.solicitation_refused ? html`<div class="alert error" role="alert">${t.t("solicitationRefused")}</div>` : ""}
${latestDraftSection(context, lead, latest)}
${leadFactsSection(context, lead)}
${opportunityBlock(t, lead.opportunity)}
${suppression === null ? draftFormSection(context, input.workspaceId, lead, input.language) : ""}
${markSection(context, input.workspaceId, lead)}
${suppression === null ? doNotContactSection(context, input.workspaceId, lead) : ""}
${latest === undefined ? html`<h2>${t.t("drafts")}</h2><p class="card empty">${t.t("noDrafts")}</p>` : earlierDraftsSection(context, earlier)}`,
  );
}
