import type { WorkspaceOverview } from "../../../shared/console/workspace-views.ts";
import { html } from "../html.ts";
import type { MessageKey } from "../i18n.ts";
import { layout, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";

/** What to do next in this workspace, first things first; nothing once everything is done. */
function nextSteps(context: PageContext, overview: WorkspaceOverview, workspaceId: string) {
  const { t } = context;
  const steps: [MessageKey, string][] = [];
  if (!overview.sender_set) steps.push(["stepSettings", "settings"]);
  if (overview.leads === 0) steps.push(["stepSearch", "search"]);
  else if (overview.drafts === 0) steps.push(["stepLeads", "leads"]);
  if (overview.balance === 0) steps.push(["stepCredits", "credits"]);
  if (overview.active_keys === 0) steps.push(["stepKey", "keys"]);
  if (overview.active_members <= 1) steps.push(["stepInvite", "members"]);
  if (steps.length === 0) return html``;
  return html`<section class="card" aria-labelledby="next-steps"><h2 id="next-steps">${t.t("nextSteps")}</h2>
<ol class="steps">${steps.map(([key, page]) => html`<li><a href="${workspacePath(workspaceId, page)}">${t.t(key)}</a></li>`)}</ol></section>`;
}

export function overviewPage(context: PageContext, overview: WorkspaceOverview, workspaceId: string): string {
  const { t } = context;
  const stat = (label: string, value: number | string, href?: string) =>
    html`<li><span class="muted small">${label}</span><span class="value">${href ? html`<a href="${href}">${value}</a>` : value}</span></li>`;
  return layout(
    { ...context, tab: "overview" },
    t.t("overview"),
    html`<ul class="stats">
${stat(t.t("balance"), overview.balance, workspacePath(workspaceId, "credits"))}
${stat(t.t("leadsSaved"), overview.leads, workspacePath(workspaceId, "leads"))}
${stat(t.t("draftsWritten"), overview.drafts)}
${stat(t.t("keysInUse"), overview.active_keys, workspacePath(workspaceId, "keys"))}
</ul>
${overview.free_trial ? html`<p class="muted">${t.t("freeTrial")}</p>` : ""}
${nextSteps(context, overview, workspaceId)}
<p class="muted small">${t.t("workspaceId")}${t.colon} <code>${workspaceId}</code></p>`,
  );
}
