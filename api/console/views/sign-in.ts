import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { field } from "./components.ts";

export function signInPage(
  context: PageContext,
  input: { email?: string; next?: string; error?: string; info?: string; signUpOpen?: boolean },
): string {
  const { t } = context;
  return layout(
    context,
    t.t("signIn"),
    html`${notice("error", input.error)}${notice("ok", input.info)}
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/sign-in">${csrfField(context)}
${input.next ? html`<input type="hidden" name="next" value="${input.next}">` : ""}
${field("email", t.t("email"), html`<input type="email" id="email" name="email" autocomplete="username" required value="${input.email ?? ""}">`)}
${field("password", t.t("password"), html`<input type="password" id="password" name="password" autocomplete="current-password" required>`)}
<div><button type="submit" class="primary">${t.t("signIn")}</button></div>
</form></div>
<p class="actions"><a href="${CONSOLE_PREFIX}/forgot-password">${t.t("forgotPassword")}</a>${input.signUpOpen ? html`<a href="${CONSOLE_PREFIX}/sign-up">${t.t("createAccount")}</a>` : ""}</p>`,
    { narrow: true },
  );
}
