import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { field } from "./components.ts";

/**
 * An invite link's page. Signed out, it reads the same whether or not the invited address has an
 * account (nothing here checks a password): create an account, or sign in and come back to accept.
 */
export function invitePage(
  context: PageContext,
  input: {
    token: string;
    workspaceName: string;
    email: string;
    name: string | null;
    /** Signed in: whether as the invited address (accept) or as another one (sign out first). */
    signedInAs?: { email: string; matches: boolean };
    error?: string;
  },
): string {
  const { t } = context;
  const signedIn = input.signedInAs;
  let body: ReturnType<typeof html>;
  if (signedIn?.matches) {
    body = html`<p class="muted">${t.t("inviteSignedInAs", { email: signedIn.email })}</p>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/invite/accept">${csrfField(context)}
<input type="hidden" name="token" value="${input.token}">
<div><button type="submit" class="primary">${t.t("join")}</button></div></form></div>`;
  } else if (signedIn) {
    body = html`<p>${t.t("inviteWrongAccount", { email: input.email, current: signedIn.email })}</p>
<form method="post" action="${CONSOLE_PREFIX}/sign-out" class="actions">${csrfField(context)}
<button type="submit">${t.t("signOut")}</button></form>`;
  } else {
    body = html`<h2>${t.t("createAccount")}</h2>
<p class="muted">${t.t("inviteNewAccount")}</p>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/invite">${csrfField(context)}
<input type="hidden" name="token" value="${input.token}">
<input type="text" name="username" autocomplete="username" value="${input.email}" hidden>
${field("name", t.t("yourName"), html`<input type="text" id="name" name="name" autocomplete="name" required maxlength="200" value="${input.name ?? ""}">`)}
${field("password", t.t("newPassword"), html`<input type="password" id="password" name="password" required autocomplete="new-password" minlength="10" aria-describedby="password-hint">`, t.t("passwordHint"))}
<div><button type="submit" class="primary">${t.t("createAndJoin")}</button></div>
</form></div>
<h2>${t.t("signIn")}</h2>
<p class="muted">${t.t("inviteHaveAccount")}</p>
<p><a class="button" href="${CONSOLE_PREFIX}/sign-in?next=${encodeURIComponent(`${CONSOLE_PREFIX}/invite`)}">${t.t("signInToAccept")}</a></p>`;
  }
  return layout(
    context,
    t.t("joinWorkspace", { workspace: input.workspaceName }),
    html`${notice("error", input.error)}
<p>${t.t("joinAs", { email: input.email })}</p>
${body}`,
    { narrow: true },
  );
}
