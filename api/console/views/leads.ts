import type { LeadWithEvidence, StoredDraft } from "../../../shared/console/workspace-views.ts";
import { html, type SafeHtml } from "../html.ts";
import type { Translator } from "../i18n.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";
import { field, languageOptions } from "./components.ts";

function flagBadges(t: Translator, lead: LeadWithEvidence): SafeHtml {
  const badges: string[] = [];
  if (lead.no_website_flag) badges.push(t.t("noWebsite"));
  if (lead.not_mobile_friendly_flag) badges.push(t.t("notMobileFriendly"));
  if (lead.outdated_website_flag) badges.push(t.t("outdatedWebsite"));
  if (lead.pitch?.site_unreachable) badges.push(t.t("siteUnreachable"));
  if (lead.pitch?.parked_domain) badges.push(t.t("parkedDomain"));
  if (lead.pitch?.social_profile_only) badges.push(t.t("socialProfileOnly"));
  if (lead.pitch?.no_https) badges.push(t.t("noHttps"));
  if (badges.length === 0 && lead.website !== null && lead.signals === null) {
    return html`<span class="muted small">${t.t("notChecked")}</span>`;
  }
  return html`${badges.map((badge) => html`<span class="flag">${badge}</span>`)}`;
}

/** The audit's evidence, one line per signal that was found, in words a person can check on the site. */

function evidenceList(t: Translator, lead: LeadWithEvidence): SafeHtml {
  const lines = pitchEvidence(t, lead);
  const evidence = lead.evidence;
  const signals = lead.signals;
  if (!evidence || !signals) return evidenceLines(lines);
  if (signals.no_mobile_viewport) lines.push(["viewport", "no <meta name=viewport>"]);
  else if (evidence.viewport && signals.not_mobile_friendly) lines.push(["viewport", evidence.viewport]);
  if (evidence.jquery_version) lines.push(["jQuery", evidence.jquery_version]);
  if (evidence.legacy_tags?.length) lines.push(["tags", evidence.legacy_tags.join(", ")]);
  if (evidence.flash?.length) lines.push(["Flash", evidence.flash.join(", ")]);
  if (evidence.table_layout) lines.push(["layout", evidence.table_layout]);
  if (evidence.copyright_text) lines.push(["©", evidence.copyright_text]);
  if (evidence.media_paths?.length)
    lines.push([t.t("lastMediaYear"), evidence.media_paths.slice(0, 3).join(", ")]);
  if (evidence.french_version) lines.push(["fr", evidence.french_version]);
  return evidenceLines(lines);
}

function evidenceLines(lines: [string, string][]): SafeHtml {
  if (lines.length === 0) return html``;
  return html`<dl class="facts small">${lines.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>`;
}

/** The pitch facts' evidence: each attempt's end, the parking marker, the profile, the https check. */
function pitchEvidence(t: Translator, lead: LeadWithEvidence): [string, string][] {
  const { pitch, pitch_evidence: evidence } = lead;
  if (!pitch || !evidence) return [];
  const lines: [string, string][] = [];
  if (pitch.site_unreachable && evidence.attempts?.length) {
    const attempts = evidence.attempts.map(
      (attempt) => `${attempt.result} (${t.date(new Date(attempt.at))})`,
    );
    lines.push([t.t("attempts"), attempts.join(", ")]);
  }
  if (pitch.parked_domain && evidence.parking_marker)
    lines.push([t.t("parkingMarker"), evidence.parking_marker]);
  if (pitch.social_profile_only && evidence.social_profile_host) {
    lines.push([t.t("socialProfile"), `${evidence.social_platform ?? ""} (${evidence.social_profile_host})`]);
  }
  if (pitch.no_https) {
    const problem = evidence.certificate_problem
      ? t.t("certificateProblem", { problem: evidence.certificate_problem })
      : (evidence.https_result ?? "");
    lines.push(["https", `${evidence.final_url ?? lead.website ?? ""} · ${problem}`]);
  }
  return lines;
}

export function leadsPage(
  context: PageContext,
  input: { workspaceId: string; leads: LeadWithEvidence[]; nextCursor: string | null; paged: boolean },
): string {
  const { t } = context;
  const base = workspacePath(input.workspaceId, "leads");
  return layout(
    { ...context, tab: "leads" },
    t.t("leads"),
    html`<p class="actions"><a class="button" href="${workspacePath(input.workspaceId, "leads.csv")}" download>${t.t("exportCsv")}</a></p>
${
  input.leads.length === 0
    ? html`<p class="card empty">${t.t("noLeads")}</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">${t.t("business")}</th><th scope="col">${t.t("website")}</th><th scope="col">${t.t("flags")}</th><th scope="col">${t.t("evidence")}</th><th scope="col">${t.t("status")}</th><th scope="col">${t.t("added")}</th></tr></thead><tbody>
${input.leads.map(
  (
    lead,
  ) => html`<tr><td><a href="${workspacePath(input.workspaceId, `leads/${lead.id}`)}">${lead.name}</a><br><span class="muted small">${lead.category}</span></td>
<td class="small">${lead.website ?? "—"}${lead.email ? html`<br>${lead.email}` : ""}</td>
<td>${flagBadges(t, lead)}</td><td>${evidenceList(t, lead)}</td><td>${lead.outreach_status}</td><td class="small">${t.date(lead.added_at)}</td></tr>`,
)}
</tbody></table></div>`
}
<p class="actions">${input.paged ? html`<a href="${base}">${t.t("firstPage")}</a>` : ""}${
      input.nextCursor
        ? html`<a href="${base}?cursor=${encodeURIComponent(input.nextCursor)}">${t.t("nextPage")}</a>`
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
  return layout(
    { ...context, tab: "leads" },
    lead.name,
    html`<p><a href="${workspacePath(input.workspaceId, "leads")}">${t.t("backToLeads")}</a></p>
${notice("ok", input.info)}${notice("error", input.error)}
<div class="card"><dl class="facts">
<dt>${t.t("category")}</dt><dd>${lead.category}</dd>
<dt>${t.t("address")}</dt><dd>${lead.address ?? "—"}</dd>
<dt>${t.t("website")}</dt><dd>${lead.website ?? "—"}</dd>
<dt>${t.t("email")}</dt><dd>${lead.email ?? "—"}</dd>
<dt>${t.t("status")}</dt><dd>${lead.outreach_status}</dd>
<dt>${t.t("flags")}</dt><dd>${flagBadges(t, lead)}</dd>
<dt>${t.t("lastMediaYear")}</dt><dd>${lead.last_media_year ?? "—"}</dd>
</dl>
${lead.evidence || pitchEvidence(t, lead).length > 0 ? html`<h2>${t.t("evidence")}</h2>${evidenceList(t, lead)}` : ""}</div>
<div class="card"><form class="inline" method="post" action="${workspacePath(input.workspaceId, `leads/${lead.id}/draft`)}">${csrfField(context)}
<div>${field("locale", t.t("draftLocale"), html`<select id="locale" name="locale">${languageOptions(t, input.language)}</select>`)}</div>
<button type="submit" class="primary">${t.t("draft")}</button></form></div>
<h2>${t.t("drafts")}</h2>
${
  input.drafts.length === 0
    ? html`<p class="card empty">${t.t("noDrafts")}</p>`
    : input.drafts.map(
        (
          draft,
        ) => html`<article class="card"><p class="muted small">${t.date(draft.created_at)} · ${draft.locale} · ${t.t("factsUsed")}: ${draft.facts_used.join(", ")}</p>
<h3>${t.t("subject")}: ${draft.subject}</h3><pre class="draft">${draft.body}</pre></article>`,
      )
}`,
  );
}
