import { LANGUAGES } from "../../../shared/languages.ts";
import { html, type SafeHtml } from "../html.ts";
import type { Translator } from "../i18n.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { languageName } from "./labels.ts";

export const field = (id: string, label: string, input: SafeHtml, hint?: string) =>
  html`<div><label for="${id}">${label}${hint ? html` <span class="hint" id="${id}-hint">${hint}</span>` : ""}</label>${input}</div>`;

export const languageOptions = (t: Translator, selected: string) =>
  html`${LANGUAGES.map((language) => html`<option value="${language}"${selected === language ? html` selected` : ""}>${languageName(t, language)}</option>`)}`;

export function errorPage(context: PageContext, message: string): string {
  const { t } = context;
  return layout(
    context,
    t.t("errorTitle"),
    html`${notice("error", message)}<p><a href="${CONSOLE_PREFIX}">${t.t("overview")}</a></p>`,
    { narrow: true },
  );
}

export function confirmPage(
  context: PageContext,
  input: {
    title: string;
    question: string;
    subject: string;
    action: string;
    button: string;
    cancelHref: string;
  },
): string {
  const { t } = context;
  return layout(
    context,
    input.title,
    html`<div class="card"><p><strong>${input.subject}</strong></p><p>${input.question}</p>
<form method="post" action="${input.action}" class="actions">${csrfField(context)}
<button type="submit" class="danger">${input.button}</button><a href="${input.cancelHref}">${t.t("cancel")}</a></form></div>`,
    { narrow: true },
  );
}
