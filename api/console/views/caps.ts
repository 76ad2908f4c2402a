import type { Spending } from "../../../shared/credits/caps.ts";
import type { CapField, CapsTyped } from "../forms.ts";
import { html, type SafeHtml } from "../html.ts";
import type { MessageKey, Translator } from "../i18n.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";

/** A key's or an app's caps as stored (null: not capped). */
export interface Caps {
  daily_credit_cap: number | null;
  total_credit_cap: number | null;
}

/** Errors of a refused form, beside the field each is about. */
export type FieldErrors = Partial<Record<CapField | "name", MessageKey>>;

/** The caps as the form shows them: empty for no cap. */
export const typedCaps = (caps: Caps): CapsTyped => ({
  daily_credit_cap: caps.daily_credit_cap === null ? "" : String(caps.daily_credit_cap),
  total_credit_cap: caps.total_credit_cap === null ? "" : String(caps.total_credit_cap),
});

/**
 * A text input with its label and hint, and the error (if any) right below it: tied to the input
 * by aria-describedby and aria-invalid, so a screen reader reads it with the field.
 */
export function inputWithError(
  t: Translator,
  input: {
    id: string;
    name: string;
    label: string;
    value: string;
    hint?: string;
    error?: MessageKey;
    attributes?: SafeHtml;
  },
): SafeHtml {
  const described = [input.hint ? `${input.id}-hint` : "", input.error ? `${input.id}-error` : ""]
    .filter(Boolean)
    .join(" ");
  return html`<div class="field${input.error ? " invalid" : ""}"><label for="${input.id}">${input.label}${input.hint ? html` <span class="hint" id="${input.id}-hint">${input.hint}</span>` : ""}</label>
<input type="text" id="${input.id}" name="${input.name}" value="${input.value}"${input.attributes ?? ""}${described ? html` aria-describedby="${described}"` : ""}${input.error ? html` aria-invalid="true"` : ""}>${input.error ? html`<p class="field-error" id="${input.id}-error">${t.t(input.error)}</p>` : ""}</div>`;
}

/** The daily and total cap inputs, with what was typed and the error beside each. */
export function capInputs(t: Translator, typed: CapsTyped, errors: FieldErrors, idPrefix: string): SafeHtml {
  const numeric = html` inputmode="numeric" autocomplete="off" maxlength="20"`;
  return html`${inputWithError(t, {
    id: `${idPrefix}-daily-cap`,
    name: "daily_credit_cap",
    label: t.t("dailyCap"),
    hint: t.t("dailyCapHint"),
    value: typed.daily_credit_cap,
    ...(errors.daily_credit_cap ? { error: errors.daily_credit_cap } : {}),
    attributes: numeric,
  })}
${inputWithError(t, {
  id: `${idPrefix}-total-cap`,
  name: "total_credit_cap",
  label: t.t("totalCap"),
  hint: t.t("totalCapHint"),
  value: typed.total_credit_cap,
  ...(errors.total_credit_cap ? { error: errors.total_credit_cap } : {}),
  attributes: numeric,
})}`;
}

/** "2 of 50" beside a cap, "2 (no cap)" without one. */
export const spentAgainst = (t: Translator, spent: number, cap: number | null) =>
  cap === null ? t.t("spentNoCap", { spent }) : t.t("spentOfCap", { spent, cap });

/** The page that edits one key's or one app's caps: what it spent, then the two inputs. */
export function capsPage(
  context: PageContext,
  input: {
    name: string;
    intro?: string;
    spending: Spending;
    typed: CapsTyped;
    errors: FieldErrors;
    action: string;
    cancelHref: string;
  },
): string {
  const { t } = context;
  const refused = Object.keys(input.errors).length > 0;
  return layout(
    context,
    t.t("capsTitle", { name: input.name }),
    html`${notice("error", refused ? t.t("formHasErrors") : undefined)}
${input.intro ? html`<p>${input.intro}</p>` : ""}
<p class="muted">${t.t("capsIntro")}</p>
<div class="card"><p>${t.t("capsSpent", { today: input.spending.spent_today, total: input.spending.spent_total })}</p>
<form class="stack" method="post" action="${input.action}" novalidate>${csrfField(context)}
${capInputs(t, input.typed, input.errors, "caps")}
<div class="actions"><button type="submit" class="primary">${t.t("saveCaps")}</button><a href="${input.cancelHref}">${t.t("cancel")}</a></div></form></div>`,
    { narrow: true },
  );
}
