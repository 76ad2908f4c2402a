import type { OpportunityDimension, OpportunityTier } from "../../../shared/scoring/opportunity.ts";
import type { OpportunityJson as Opportunity } from "../../../shared/scoring/schemas.ts";
import { html, type SafeHtml } from "../html.ts";
import type { MessageKey, Translator } from "../i18n.ts";
import { factLabel } from "./labels.ts";

/** The opportunity score in the console (DESIGN "Opportunity score"): tiers, reasons and dimensions in words. */
const TIER_LABELS: Record<OpportunityTier, MessageKey> = {
  high: "tierHigh",
  medium: "tierMedium",
  low: "tierLow",
  unchecked: "tierUnchecked",
};
const DIMENSION_LABELS: Record<OpportunityDimension, MessageKey> = {
  presence: "dimensionPresence",
  security: "dimensionSecurity",
  mobile: "dimensionMobile",
  technology: "dimensionTechnology",
  freshness: "dimensionFreshness",
  language: "dimensionLanguage",
  reviews: "dimensionReviews",
};

const reasonLabel = (t: Translator, fact: string): string =>
  fact === "last_media_year" ? t.t("reasonOldMedia") : factLabel(t, fact);

/** "65 · High", for a list's cell. */
export function opportunityCell(t: Translator, opportunity: Opportunity): SafeHtml {
  return html`<span class="score score-${opportunity.tier}">${opportunity.score}</span> <span class="small">${t.t(TIER_LABELS[opportunity.tier])}</span>`;
}

/** The lead page's block: the score and tier, each reason with its points, what was not checked. */
export function opportunityBlock(t: Translator, opportunity: Opportunity): SafeHtml {
  const notChecked = opportunity.unknown.map((dimension) => t.t(DIMENSION_LABELS[dimension]));
  return html`<section class="card" id="opportunity" aria-labelledby="opportunity-title">
<h2 id="opportunity-title">${t.t("opportunity")}${t.colon} ${opportunity.score}/100 · ${t.t(TIER_LABELS[opportunity.tier])}</h2>
${
  opportunity.reasons.length === 0
    ? html`<p class="muted">${t.t("noReasons")}</p>`
    : html`<ul class="reasons">${opportunity.reasons.map(
        (reason) => html`<li>${reasonLabel(t, reason.fact)}${t.colon} +${reason.points}</li>`,
      )}</ul>`
}
${notChecked.length > 0 ? html`<p><strong>${t.t("notCheckedDimensions")}</strong> ${notChecked.join(", ")}</p>` : ""}
<p class="muted small">${t.t("coverageLine", { percent: Math.round(opportunity.coverage * 100) })}</p>
</section>`;
}
