import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { field, languageOptions } from "./components.ts";

export function accountPage(
  context: PageContext,
  input: { name: string; email: string; language: string; info?: string; error?: string },
): string {
  const { t } = context;
  return layout(
    context,
    t.t("account"),
    html`${notice("ok", input.info)}${notice("error", input.error)}
<h2>${t.t("profile")}</h2>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/account/profile">${csrfField(context)}
<p class="muted">${input.email}</p>
${field("account-name", t.t("name"), html`<input type="text" id="account-name" name="name" required maxlength="200" autocomplete="name" value="${input.name}">`)}
${field("account-language", t.t("consoleLanguage"), html`<select id="account-language" name="language">${languageOptions(t, input.language)}</select>`)}
<div><button type="submit" class="primary">${t.t("save")}</button></div></form></div>
<h2>${t.t("changePassword")}</h2>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/account/password">${csrfField(context)}
<input type="text" name="username" autocomplete="username" value="${input.email}" hidden>
${field("current-password", t.t("currentPassword"), html`<input type="password" id="current-password" name="current_password" required autocomplete="current-password">`)}
${field("new-password", t.t("newPassword"), html`<input type="password" id="new-password" name="new_password" required minlength="10" autocomplete="new-password" aria-describedby="new-password-hint">`, t.t("passwordHint"))}
<div><button type="submit" class="primary">${t.t("changePassword")}</button></div></form></div>
<h2>${t.t("connectedApps")}</h2>
<p><a href="${CONSOLE_PREFIX}/account/apps">${t.t("connectedApps")}</a></p>`,
    { narrow: true },
  );
}
