import type { Spending } from "../../../shared/credits/caps.ts";
import type { ConnectedApp } from "../../../shared/oauth/grants.ts";
import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { spentAgainst } from "./caps.ts";

/** A connected app as the page lists it: with what it spent today (UTC) and in all. */
export type ConnectedAppRow = ConnectedApp & Spending;

/**
 * The assistants this person connected, in any of their workspaces: what each spent against its
 * caps, a link to set them, and a Disconnect button.
 */
export function connectedAppsPage(
  context: PageContext,
  input: { apps: ConnectedAppRow[]; info?: string },
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
    : html`<div class="table-wrap"><table class="rows"><thead><tr><th scope="col">${t.t("app")}</th><th scope="col">${t.t("workspace")}</th><th scope="col">${t.t("approvedOn")}</th><th scope="col">${t.t("spentToday")}</th><th scope="col">${t.t("spentTotal")}</th></tr></thead><tbody>
${input.apps.map(
  (
    app,
  ) => html`<tr><td data-label="${t.t("app")}">${app.client_name}<br><span class="muted small">${t.t("access")}${t.colon} ${app.scope}</span>
<div class="actions"><a href="${CONSOLE_PREFIX}/account/apps/${app.grant_id}/caps">${t.t("setCaps")}<span class="visually-hidden"> ${app.client_name}</span></a>
<form method="post" action="${CONSOLE_PREFIX}/account/apps/${app.grant_id}/revoke">${csrfField(context)}<button type="submit" class="danger">${t.t("disconnect")}<span class="visually-hidden"> ${app.client_name}</span></button></form></div></td>
<td data-label="${t.t("workspace")}">${app.workspace_name}</td><td class="small" data-label="${t.t("approvedOn")}">${t.date(app.approved_at)}</td>
<td data-label="${t.t("spentToday")}">${spentAgainst(t, app.spent_today, app.daily_credit_cap)}</td>
<td data-label="${t.t("spentTotal")}">${spentAgainst(t, app.spent_total, app.total_credit_cap)}</td></tr>`,
)}
</tbody></table></div>`
}
<p><a href="${CONSOLE_PREFIX}/account">${t.t("account")}</a></p>`,
  );
}
