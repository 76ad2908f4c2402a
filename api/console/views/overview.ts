import type { WorkspaceOverview } from "../../../shared/console/workspace-views.ts";
import { html } from "../html.ts";
import { layout, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";

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
