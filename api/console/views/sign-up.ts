import type { OpenSignUp } from "../../../shared/accounts/sign-ups.ts";
import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { field, languageOptions } from "./components.ts";

export interface SignUpValues {
  name?: string;
  email?: string;
  agency_name?: string;
}

/** Self-serve sign-up: name, address and the agency's name; the password is chosen on the mailed link's page. */
export function signUpPage(context: PageContext, input: { values?: SignUpValues; error?: string }): string {
  const { t } = context;
  const values = input.values ?? {};
  return layout(
    context,
    t.t("signUpTitle"),
    html`${notice("error", input.error)}
<p class="muted">${t.t("signUpIntro")}</p>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/sign-up">${csrfField(context)}
${field("name", t.t("yourName"), html`<input type="text" id="name" name="name" autocomplete="name" required maxlength="200" value="${values.name ?? ""}">`)}
${field("email", t.t("email"), html`<input type="email" id="email" name="email" autocomplete="email" required maxlength="320" value="${values.email ?? ""}">`)}
${field("agency-name", t.t("agencyName"), html`<input type="text" id="agency-name" name="agency_name" autocomplete="organization" required maxlength="200" value="${values.agency_name ?? ""}">`)}
${field("language", t.t("consoleLanguage"), html`<select id="language" name="language">${languageOptions(t, t.language)}</select>`)}
<div><button type="submit" class="primary">${t.t("signUp")}</button></div></form></div>
<p><a href="${CONSOLE_PREFIX}/sign-in">${t.t("signIn")}</a></p>`,
    { narrow: true },
  );
}

/** After the form (POST, 303, here): where the link went, the same whether the address has an account or not. */
export function signUpSentPage(context: PageContext, email: string | undefined): string {
  const { t } = context;
  const words = email === undefined ? t.t("signUpSentNoAddress") : t.t("signUpSent", { email });
  return layout(
    context,
    t.t("signUpTitle"),
    html`${notice("ok", words)}<p><a href="${CONSOLE_PREFIX}/sign-in">${t.t("signIn")}</a></p>`,
    { narrow: true },
  );
}

/** The mailed link's page: the owner of the mailbox chooses the password, and the account and its workspace are made. */
export function confirmSignUpPage(
  context: PageContext,
  input: { token: string; signUp: OpenSignUp; error?: string },
): string {
  const { t } = context;
  return layout(
    context,
    t.t("confirmSignUpTitle"),
    html`${notice("error", input.error)}<p>${t.t("confirmSignUpIntro", { name: input.signUp.name, email: input.signUp.email, agency: input.signUp.agency_name })}</p>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/sign-up/confirm">${csrfField(context)}
<input type="hidden" name="token" value="${input.token}">
${field("password", t.t("password"), html`<input type="password" id="password" name="password" required minlength="10" autocomplete="new-password" aria-describedby="password-hint">`, t.t("passwordHint"))}
<div><button type="submit" class="primary">${t.t("confirmSignUp")}</button></div></form></div>`,
    { narrow: true },
  );
}
