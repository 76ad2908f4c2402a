import type { Membership } from "../../../shared/workspaces/members.ts";
import { html } from "../html.ts";
import { layout, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";

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
