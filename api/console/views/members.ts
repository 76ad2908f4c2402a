import type { PendingInvite } from "../../../shared/accounts/invites.ts";
import type { MemberListing } from "../../../shared/workspaces/members.ts";
import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";
import { field } from "./components.ts";

export function membersPage(
  context: PageContext,
  input: {
    workspaceId: string;
    members: MemberListing[];
    pending: PendingInvite[];
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
    ? html`<section class="card" aria-labelledby="invite-link"><h2 id="invite-link">${t.t("inviteCreated")}${t.colon} ${input.invite.email}</h2>
<p>${t.t("inviteShownOnce")}</p>
<div class="secret"><code id="invite-url">${input.invite.url}</code><button type="button" data-copy="invite-url" data-copied="${t.t("copied")}">${t.t("copy")}</button></div></section>`
    : ""
}
<div class="table-wrap"><table class="rows"><thead><tr><th scope="col">${t.t("name")}</th><th scope="col">${t.t("email")}</th><th scope="col">${t.t("joinedOn")}</th><th scope="col"><span class="visually-hidden">${t.t("remove")}</span></th></tr></thead><tbody>
${input.members.map(
  (
    member,
  ) => html`<tr><td data-label="${t.t("name")}">${member.name ?? ""}${member.id === input.selfMemberId ? html` <span class="muted">(${t.t("you")})</span>` : ""}${member.signed_up ? "" : html` <span class="muted small">(${t.t("notJoined")})</span>`}</td>
<td data-label="${t.t("email")}">${member.email}</td><td data-label="${t.t("joinedOn")}">${t.date(member.created_at)}</td>
<td><a href="${workspacePath(input.workspaceId, `members/${member.id}/remove`)}">${t.t("remove")}<span class="visually-hidden"> ${member.email}</span></a></td></tr>`,
)}
</tbody></table></div>
<h2>${t.t("pendingInvites")}</h2>
${
  input.pending.length === 0
    ? html`<p class="card empty">${t.t("noPendingInvites")}</p>`
    : html`<div class="table-wrap"><table class="rows"><thead><tr><th scope="col">${t.t("email")}</th><th scope="col">${t.t("invitedBy")}</th><th scope="col">${t.t("expires")}</th><th scope="col"><span class="visually-hidden">${t.t("cancelInvite")}</span></th></tr></thead><tbody>
${input.pending.map(
  (
    invite,
  ) => html`<tr><td data-label="${t.t("email")}">${invite.email}</td><td data-label="${t.t("invitedBy")}">${invite.invited_by_name ?? invite.invited_by_email ?? t.t("operator")}</td><td class="small" data-label="${t.t("expires")}">${t.date(invite.expires_at)}</td>
<td><a href="${workspacePath(input.workspaceId, `members/invites/${invite.id}/cancel`)}">${t.t("cancelInvite")}<span class="visually-hidden"> ${invite.email}</span></a></td></tr>`,
)}
</tbody></table></div>`
}
<h2>${t.t("inviteMember")}</h2>
<div class="card"><form class="stack" method="post" action="${workspacePath(input.workspaceId, "members/invite")}">${csrfField(context)}
${field("invite-email", t.t("email"), html`<input type="email" id="invite-email" name="email" required maxlength="320">`)}
${field("invite-name", t.t("name"), html`<input type="text" id="invite-name" name="name" maxlength="200">`)}
<div><button type="submit" class="primary">${t.t("invite")}</button></div></form></div>`,
  );
}
