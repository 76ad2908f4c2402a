import type { LedgerEntry } from "../../../shared/console/workspace-views.ts";
import { html } from "../html.ts";
import { layout, type PageContext } from "../layout.ts";

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
    : html`<div class="table-wrap"><table class="rows"><thead><tr><th scope="col">${t.t("when")}</th><th scope="col">${t.t("what")}</th><th scope="col">${t.t("amount")}</th></tr></thead><tbody>
${input.history.map(
  (entry) =>
    html`<tr><td class="small" data-label="${t.t("when")}">${t.date(entry.at)}</td><td data-label="${t.t("what")}">${label[entry.kind]}${entry.subject ? html`: ${entry.subject}` : ""}</td><td data-label="${t.t("amount")}">${entry.credits > 0 ? `+${entry.credits}` : entry.credits}</td></tr>`,
)}</tbody></table></div>`
}`,
  );
}
