import type { CreditPack } from "../../../shared/config.ts";
import type { CreditHistory, LedgerEntry } from "../../../shared/credits/history.ts";
import { INTL_LOCALES, type Language } from "../../../shared/languages.ts";
import { html, type SafeHtml } from "../html.ts";
import type { Translator } from "../i18n.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";

/** An amount in the currency's smallest unit, in the page's language (`US$19.00`, `19,00 $ US`). */
function formatMoney(amount: number, currency: string, language: Language): string {
  const format = new Intl.NumberFormat(INTL_LOCALES[language], {
    style: "currency",
    currency: currency.toUpperCase(),
  });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** digits);
}

export interface CreditsPageInput {
  workspaceId: string;
  balance: number;
  freeTrial: boolean;
  history: CreditHistory;
  /** The packs on sale; undefined without Stripe (credits then come from the operator). */
  sale: { packs: CreditPack[]; currency: string } | undefined;
  /** OPERATOR_CONTACT_EMAIL, named wherever the person must write to the operator. */
  operatorEmail: string | undefined;
  info?: string | undefined;
  warning?: SafeHtml | undefined;
}

/** "write to x@y" with the address as a link, or the operator in words when none is configured. */
export function operatorContact(t: Translator, email: string | undefined): SafeHtml {
  return email ? html`<a href="mailto:${email}">${email}</a>` : html`${t.t("theOperator")}`;
}

function describe(t: Translator, entry: LedgerEntry): SafeHtml {
  const money = (amount: number | null) =>
    amount === null || !entry.currency ? "" : formatMoney(amount, entry.currency, t.language);
  const shortfall =
    entry.shortfall > 0
      ? html`<span class="hint">${t.t("shortfallNote", { credits: entry.shortfall })}</span>`
      : "";
  switch (entry.kind) {
    case "free_credits":
      return html`${t.t("freeCredits")}`;
    case "operator_purchase":
      return html`${t.t("operatorPurchase")}`;
    case "stripe_purchase":
      return html`${t.t("stripePurchase", { credits: entry.pack ?? entry.credits, price: money(entry.amount) })}`;
    case "refund":
      return html`${t.t("refundLine", { credits: entry.pack ?? 0, price: money(entry.amount) })}${shortfall}`;
    case "dispute":
      return html`${t.t("disputeLine", { credits: entry.pack ?? 0 })}${shortfall}`;
    case "search_charge":
      return html`${t.t("searchCharge")}${t.colon} ${entry.subject ?? ""}`;
    case "draft":
      return html`${t.t("draftCharge")}${t.colon} ${entry.subject ?? ""}`;
  }
}

const signed = (credits: number) => (credits > 0 ? `+${credits}` : String(credits));

export function creditsPage(context: PageContext, input: CreditsPageInput): string {
  const { t } = context;
  const { sale, history } = input;
  const action = workspacePath(input.workspaceId, "credits/checkout");
  const [before = "", after = ""] = t.t("contactOperator").split("{email}");
  const buy = sale
    ? html`<section aria-labelledby="buy"><h2 id="buy">${t.t("buyCredits")}</h2>
<ul class="packs">${sale.packs.map(
        (pack) => html`<li><span class="pack-credits">${t.t("packCredits", { credits: pack.credits })}</span>
<span class="price">${formatMoney(pack.price, sale.currency, t.language)}</span>
<span class="muted small">${t.t("perCredit", { price: formatMoney(pack.price / pack.credits, sale.currency, t.language) })}</span>
<form method="post" action="${action}">${csrfField(context)}<input type="hidden" name="pack" value="${pack.credits}">
<button type="submit" class="primary">${t.t("buyPack")}<span class="visually-hidden"> ${t.t("packCredits", { credits: pack.credits })}</span></button></form></li>`,
      )}</ul>
<p class="muted small">${t.t("paymentNote")}</p></section>`
    : html`<p class="card" id="how-to-buy">${before}${operatorContact(t, input.operatorEmail)}${after}
<span class="hint">${t.t("workspaceIdLabel")}${t.colon} <code>${input.workspaceId}</code></span></p>`;
  const rows = history.entries.map(
    (entry) =>
      html`<tr><td class="small" data-label="${t.t("when")}">${t.date(entry.at)}</td><td data-label="${t.t("what")}">${describe(t, entry)}</td><td data-label="${t.t("amount")}">${signed(entry.credits)}</td></tr>`,
  );
  const earlier = history.earlier
    ? html`<tr><td class="small" data-label="${t.t("when")}"></td><td data-label="${t.t("what")}">${t.t("earlierLines", { lines: history.earlier.lines })}</td><td data-label="${t.t("amount")}">${signed(history.earlier.credits)}</td></tr>`
    : "";
  return layout(
    { ...context, tab: "credits" },
    t.t("credits"),
    html`${notice("ok", input.info)}${input.warning ? html`<div class="alert warn" role="status">${input.warning}</div>` : ""}
<ul class="stats"><li><span class="muted small">${t.t("balance")}</span><span class="value" id="balance">${input.balance}</span></li></ul>
${input.freeTrial ? html`<p class="muted">${t.t("freeTrial")}</p>` : ""}
${buy}
<h2 id="history">${t.t("history")}</h2>
<div class="table-wrap"><table class="rows" aria-labelledby="history"><thead><tr><th scope="col">${t.t("when")}</th><th scope="col">${t.t("what")}</th><th scope="col">${t.t("amount")}</th></tr></thead><tbody>
${rows}${earlier}</tbody>
<tfoot><tr><th scope="row" colspan="2">${t.t("balanceTotal")}</th><td data-label="${t.t("balanceTotal")}" id="history-total">${history.total}</td></tr></tfoot></table></div>`,
  );
}
