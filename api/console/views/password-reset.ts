import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { field } from "./components.ts";

/** "Forgot your password?": the same answer whether or not the address has an account. */
export function forgotPasswordPage(
  context: PageContext,
  input: { mailConfigured: boolean; sent?: boolean; email?: string },
): string {
  const { t } = context;
  const form = html`<p class="muted">${t.t("forgotIntro")}</p>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/forgot-password">${csrfField(context)}
${field("email", t.t("email"), html`<input type="email" id="email" name="email" autocomplete="username" required maxlength="320" value="${input.email ?? ""}">`)}
<div><button type="submit" class="primary">${t.t("sendResetLink")}</button></div></form></div>`;
  return layout(
    context,
    t.t("forgotTitle"),
    html`${input.sent ? notice("ok", t.t("resetSent")) : ""}
${input.mailConfigured ? (input.sent ? "" : form) : html`<p class="card">${t.t("resetNoMail")}</p>`}
<p><a href="${CONSOLE_PREFIX}/sign-in">${t.t("signIn")}</a></p>`,
    { narrow: true },
  );
}

/** A reset link's page: the new password, for the account the link names. */
export function resetPasswordPage(
  context: PageContext,
  input: { token: string; email: string; error?: string },
): string {
  const { t } = context;
  return layout(
    context,
    t.t("chooseNewPassword"),
    html`${notice("error", input.error)}
<p class="muted">${t.t("resetFor", { email: input.email })}</p>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/reset-password">${csrfField(context)}
<input type="hidden" name="token" value="${input.token}">
<input type="text" name="username" autocomplete="username" value="${input.email}" hidden>
${field("new-password", t.t("newPassword"), html`<input type="password" id="new-password" name="new_password" required minlength="10" autocomplete="new-password" aria-describedby="new-password-hint">`, t.t("passwordHint"))}
<div><button type="submit" class="primary">${t.t("chooseNewPassword")}</button></div></form></div>`,
    { narrow: true },
  );
}
