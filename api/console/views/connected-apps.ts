import type { ConnectedApp } from "../../../shared/oauth/grants.ts";
import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { CONSOLE_PREFIX } from "../paths.ts";

/** The assistants this person connected, in any of their workspaces, each with a Disconnect button. */
export function connectedAppsPage(
  context: PageContext,
  input: { apps: ConnectedApp[]; info?: string },
): string {
  const { t } = context;
  return layout(
    context,
    t.t("connectedApps"),
    html`${notice("ok", input.info)}
<p class="muted">${t.t("connectedAppsIntro")}</p>
${
  input.apps.length === 0
    ? html`<p class="card empty">${t.t("noConnectedApps")}</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">${t.t("app")}</th><th scope="col">${t.t("workspace")}</th><th scope="col">${t.t("approvedOn")}</th></tr></thead><tbody>
${input.apps.map(
  (
    app,
  ) => html`<tr><td>${app.client_name}<br><span class="muted small">${t.t("access")}${t.colon} ${app.scope}</span>
<form method="post" action="${CONSOLE_PREFIX}/account/apps/${app.grant_id}/revoke">${csrfField(context)}<button type="submit" class="danger">${t.t("disconnect")}<span class="visually-hidden"> ${app.client_name}</span></button></form></td>
<td>${app.workspace_name}</td><td class="small">${t.date(app.approved_at)}</td></tr>`,
)}
</tbody></table></div>`
}
<p><a href="${CONSOLE_PREFIX}/account">${t.t("account")}</a></p>`,
  );
}
