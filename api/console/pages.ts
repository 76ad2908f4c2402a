import type { MemberListing, Membership } from "../../shared/accounts/accounts.ts";
import type {
  LeadWithEvidence,
  LedgerEntry,
  StoredDraft,
  WorkspaceOverview,
} from "../../shared/console/workspace-views.ts";
import type { Workspace } from "../../shared/db/schema.ts";
import type { ApiKeyListing } from "../../shared/workspaces/api-keys.ts";
import { html, type SafeHtml } from "./html.ts";
import type { Translator } from "./i18n.ts";
import { csrfField, layout, notice, type PageContext } from "./layout.ts";
import { CONSOLE_PREFIX, workspacePath } from "./paths.ts";

const field = (id: string, label: string, input: SafeHtml, hint?: string) =>
  html`<div><label for="${id}">${label}${hint ? html` <span class="hint" id="${id}-hint">${hint}</span>` : ""}</label>${input}</div>`;

const languageOptions = (t: Translator, selected: string) =>
  html`<option value="en"${selected === "en" ? html` selected` : ""}>${t.t("english")}</option><option value="fr"${selected === "fr" ? html` selected` : ""}>${t.t("french")}</option>`;

export function signInPage(
  context: PageContext,
  input: { email?: string; next?: string; error?: string; info?: string },
): string {
  const { t } = context;
  return layout(
    context,
    t.t("signIn"),
    html`${notice("error", input.error)}${notice("ok", input.info)}
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/sign-in">${csrfField(context)}
${input.next ? html`<input type="hidden" name="next" value="${input.next}">` : ""}
${field("email", t.t("email"), html`<input type="email" id="email" name="email" autocomplete="username" required value="${input.email ?? ""}">`)}
${field("password", t.t("password"), html`<input type="password" id="password" name="password" autocomplete="current-password" required>`)}
<div><button type="submit" class="primary">${t.t("signIn")}</button></div>
</form></div>`,
    { narrow: true },
  );
}

export function invitePage(
  context: PageContext,
  input: {
    token: string;
    workspaceName: string;
    email: string;
    name: string | null;
    accountExists: boolean;
    error?: string;
  },
): string {
  const { t } = context;
  return layout(
    context,
    t.t("joinWorkspace", { workspace: input.workspaceName }),
    html`${notice("error", input.error)}
<p>${t.t("joinAs", { email: input.email })}</p>
<p class="muted">${input.accountExists ? t.t("joinExisting") : t.t("setPassword")}</p>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/invite">${csrfField(context)}
<input type="hidden" name="token" value="${input.token}">
${input.accountExists ? "" : field("name", t.t("yourName"), html`<input type="text" id="name" name="name" autocomplete="name" required maxlength="200" value="${input.name ?? ""}">`)}
${field(
  "password",
  input.accountExists ? t.t("password") : t.t("newPassword"),
  html`<input type="password" id="password" name="password" required ${input.accountExists ? html`autocomplete="current-password"` : html`autocomplete="new-password" minlength="10" aria-describedby="password-hint"`}>`,
  input.accountExists ? undefined : t.t("passwordHint"),
)}
<div><button type="submit" class="primary">${t.t("join")}</button></div>
</form></div>`,
    { narrow: true },
  );
}

export function errorPage(context: PageContext, message: string): string {
  const { t } = context;
  return layout(
    context,
    t.t("errorTitle"),
    html`${notice("error", message)}<p><a href="${CONSOLE_PREFIX}">${t.t("overview")}</a></p>`,
    { narrow: true },
  );
}

export function workspacesPage(context: PageContext, memberships: Membership[]): string {
  const { t } = context;
  return layout(
    context,
    t.t("chooseWorkspace"),
    memberships.length === 0
      ? html`<p class="card empty">${t.t("noWorkspace")}</p>`
      : html`<ul class="card plain">${memberships.map(
          (membership) =>
            html`<li><a href="${workspacePath(membership.workspace_id)}">${membership.workspace_name}</a></li>`,
        )}</ul>`,
    { narrow: true },
  );
}

export function overviewPage(context: PageContext, overview: WorkspaceOverview, workspaceId: string): string {
  const { t } = context;
  const stat = (label: string, value: number | string, href?: string) =>
    html`<li><span class="muted small">${label}</span><span class="value">${href ? html`<a href="${href}">${value}</a>` : value}</span></li>`;
  return layout(
    context,
    t.t("overview"),
    html`<ul class="stats">
${stat(t.t("balance"), overview.balance, workspacePath(workspaceId, "credits"))}
${stat(t.t("leadsSaved"), overview.leads, workspacePath(workspaceId, "leads"))}
${stat(t.t("draftsWritten"), overview.drafts)}
${stat(t.t("keysInUse"), overview.active_keys, workspacePath(workspaceId, "keys"))}
</ul>
${overview.free_trial ? html`<p class="muted">${t.t("freeTrial")}</p>` : ""}
<p class="muted small">${t.t("workspaceId")}: <code>${workspaceId}</code></p>`,
  );
}

export function keysPage(
  context: PageContext,
  input: {
    workspaceId: string;
    keys: ApiKeyListing[];
    info?: string;
    error?: string;
    created?: { name: string; key: string };
  },
): string {
  const { t } = context;
  const rows = input.keys.map(
    (key) => html`<tr>
<td>${key.name}</td>
<td>${key.created_by_name ?? key.created_by_email}</td>
<td>${t.date(key.created_at)}</td>
<td>${t.date(key.last_used_at)}</td>
<td>${key.revoked_at ? t.date(key.revoked_at) : html`<span class="muted">${t.t("active")}</span>`}</td>
<td>${key.revoked_at ? "" : html`<a href="${workspacePath(input.workspaceId, `keys/${key.id}/revoke`)}">${t.t("revoke")}<span class="visually-hidden"> ${key.name}</span></a>`}</td>
</tr>`,
  );
  return layout(
    { ...context, tab: "keys" },
    t.t("keys"),
    html`${notice("ok", input.info)}${notice("error", input.error)}
${
  input.created
    ? html`<section class="card" aria-labelledby="new-key"><h2 id="new-key">${t.t("keyCreated")}: ${input.created.name}</h2>
<p>${t.t("keyShownOnce")}</p>
<div class="secret"><code id="new-key-value">${input.created.key}</code><button type="button" data-copy="new-key-value" data-copied="${t.t("copied")}">${t.t("copy")}</button></div></section>`
    : ""
}
<div class="card"><form class="inline" method="post" action="${workspacePath(input.workspaceId, "keys")}">${csrfField(context)}
<div>${field("key-name", t.t("keyName"), html`<input type="text" id="key-name" name="name" required maxlength="200">`)}</div>
<button type="submit" class="primary">${t.t("createKey")}</button></form></div>
${
  input.keys.length === 0
    ? html`<p class="card empty">${t.t("noKeys")}</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">${t.t("keyName")}</th><th scope="col">${t.t("createdBy")}</th><th scope="col">${t.t("createdAt")}</th><th scope="col">${t.t("lastUsed")}</th><th scope="col">${t.t("revoked")}</th><th scope="col"><span class="visually-hidden">${t.t("revoke")}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
}`,
  );
}

export function confirmPage(
  context: PageContext,
  input: {
    title: string;
    question: string;
    subject: string;
    action: string;
    button: string;
    cancelHref: string;
  },
): string {
  const { t } = context;
  return layout(
    context,
    input.title,
    html`<div class="card"><p><strong>${input.subject}</strong></p><p>${input.question}</p>
<form method="post" action="${input.action}" class="actions">${csrfField(context)}
<button type="submit" class="danger">${input.button}</button><a href="${input.cancelHref}">${t.t("cancel")}</a></form></div>`,
    { narrow: true },
  );
}

export function membersPage(
  context: PageContext,
  input: {
    workspaceId: string;
    members: MemberListing[];
    selfMemberId: string;
    info?: string;
    error?: string;
    invite?: { email: string; url: string };
  },
): string {
  const { t } = context;
  return layout(
    { ...context, tab: "members" },
    t.t("members"),
    html`${notice("ok", input.info)}${notice("error", input.error)}
${
  input.invite
    ? html`<section class="card" aria-labelledby="invite-link"><h2 id="invite-link">${t.t("inviteCreated")}: ${input.invite.email}</h2>
<p>${t.t("inviteShownOnce")}</p>
<div class="secret"><code id="invite-url">${input.invite.url}</code><button type="button" data-copy="invite-url" data-copied="${t.t("copied")}">${t.t("copy")}</button></div></section>`
    : ""
}
<div class="table-wrap"><table><thead><tr><th scope="col">${t.t("name")}</th><th scope="col">${t.t("email")}</th><th scope="col">${t.t("joinedOn")}</th><th scope="col"><span class="visually-hidden">${t.t("remove")}</span></th></tr></thead><tbody>
${input.members.map(
  (
    member,
  ) => html`<tr><td>${member.name ?? ""}${member.id === input.selfMemberId ? html` <span class="muted">(${t.t("you")})</span>` : ""}${member.signed_up ? "" : html` <span class="muted small">(${t.t("notJoined")})</span>`}</td>
<td>${member.email}</td><td>${t.date(member.created_at)}</td>
<td><a href="${workspacePath(input.workspaceId, `members/${member.id}/remove`)}">${t.t("remove")}<span class="visually-hidden"> ${member.email}</span></a></td></tr>`,
)}
</tbody></table></div>
<h2>${t.t("inviteMember")}</h2>
<div class="card"><form class="stack" method="post" action="${workspacePath(input.workspaceId, "members/invite")}">${csrfField(context)}
${field("invite-email", t.t("email"), html`<input type="email" id="invite-email" name="email" required maxlength="320">`)}
${field("invite-name", t.t("name"), html`<input type="text" id="invite-name" name="name" maxlength="200">`)}
<div><button type="submit" class="primary">${t.t("invite")}</button></div></form></div>`,
  );
}

export function settingsPage(
  context: PageContext,
  input: { workspace: Workspace; info?: string; error?: string },
): string {
  const { t } = context;
  const { workspace } = input;
  return layout(
    { ...context, tab: "settings" },
    t.t("settings"),
    html`${notice("ok", input.info)}${notice("error", input.error)}
<div class="card"><form class="stack" method="post" action="${workspacePath(workspace.id, "settings")}">${csrfField(context)}
${field("language", t.t("language"), html`<select id="language" name="language" aria-describedby="language-hint">${languageOptions(t, workspace.language)}</select>`, t.t("languageHelp"))}
${field("sender-name", t.t("senderName"), html`<input type="text" id="sender-name" name="sender_name" maxlength="200" value="${workspace.sender_name ?? ""}">`)}
${field("sender-company", t.t("senderCompany"), html`<input type="text" id="sender-company" name="sender_company" maxlength="200" value="${workspace.sender_company ?? ""}">`)}
${field("offer", t.t("offer"), html`<textarea id="offer" name="offer" maxlength="500" aria-describedby="offer-hint">${workspace.offer ?? ""}</textarea>`, t.t("offerHelp"))}
<div><button type="submit" class="primary">${t.t("save")}</button></div></form></div>`,
  );
}

function flagBadges(t: Translator, lead: LeadWithEvidence): SafeHtml {
  const badges: string[] = [];
  if (lead.no_website_flag) badges.push(t.t("noWebsite"));
  if (lead.not_mobile_friendly_flag) badges.push(t.t("notMobileFriendly"));
  if (lead.outdated_website_flag) badges.push(t.t("outdatedWebsite"));
  if (badges.length === 0 && lead.website !== null && lead.signals === null) {
    return html`<span class="muted small">${t.t("notChecked")}</span>`;
  }
  return html`${badges.map((badge) => html`<span class="flag">${badge}</span>`)}`;
}

/** The audit's evidence, one line per signal that was found, in words a person can check on the site. */
function evidenceList(t: Translator, lead: LeadWithEvidence): SafeHtml {
  const evidence = lead.evidence;
  const signals = lead.signals;
  if (!evidence || !signals) return html``;
  const lines: [string, string][] = [];
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
  if (lines.length === 0) return html``;
  return html`<dl class="facts small">${lines.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>`;
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
${lead.evidence ? html`<h2>${t.t("evidence")}</h2>${evidenceList(t, lead)}` : ""}</div>
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

export function creditsPage(
  context: PageContext,
  input: { workspaceId: string; balance: number; freeTrial: boolean; history: LedgerEntry[] },
): string {
  const { t } = context;
  const label = {
    purchase: t.t("purchase"),
    search_charge: t.t("searchCharge"),
    draft: t.t("draftCharge"),
  } as const;
  return layout(
    { ...context, tab: "credits" },
    t.t("credits"),
    html`<ul class="stats"><li><span class="muted small">${t.t("balance")}</span><span class="value">${input.balance}</span></li></ul>
${input.freeTrial ? html`<p class="muted">${t.t("freeTrial")}</p>` : ""}
<p class="card">${t.t("howToBuy")} <code>${input.workspaceId}</code></p>
<h2>${t.t("history")}</h2>
${
  input.history.length === 0
    ? html`<p class="card empty">${t.t("noHistory")}</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">${t.t("when")}</th><th scope="col">${t.t("what")}</th><th scope="col">${t.t("amount")}</th></tr></thead><tbody>
${input.history.map(
  (entry) =>
    html`<tr><td class="small">${t.date(entry.at)}</td><td>${label[entry.kind]}${entry.subject ? html`: ${entry.subject}` : ""}</td><td>${entry.credits > 0 ? `+${entry.credits}` : entry.credits}</td></tr>`,
)}</tbody></table></div>`
}`,
  );
}

export function accountPage(
  context: PageContext,
  input: { name: string; email: string; language: string; info?: string; error?: string },
): string {
  const { t } = context;
  return layout(
    context,
    t.t("account"),
    html`${notice("ok", input.info)}${notice("error", input.error)}
<h2>${t.t("profile")}</h2>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/account/profile">${csrfField(context)}
<p class="muted">${input.email}</p>
${field("account-name", t.t("name"), html`<input type="text" id="account-name" name="name" required maxlength="200" autocomplete="name" value="${input.name}">`)}
${field("account-language", t.t("consoleLanguage"), html`<select id="account-language" name="language">${languageOptions(t, input.language)}</select>`)}
<div><button type="submit" class="primary">${t.t("save")}</button></div></form></div>
<h2>${t.t("changePassword")}</h2>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/account/password">${csrfField(context)}
<input type="text" name="username" autocomplete="username" value="${input.email}" hidden>
${field("current-password", t.t("currentPassword"), html`<input type="password" id="current-password" name="current_password" required autocomplete="current-password">`)}
${field("new-password", t.t("newPassword"), html`<input type="password" id="new-password" name="new_password" required minlength="10" autocomplete="new-password" aria-describedby="new-password-hint">`, t.t("passwordHint"))}
<div><button type="submit" class="primary">${t.t("changePassword")}</button></div></form></div>`,
    { narrow: true },
  );
}
