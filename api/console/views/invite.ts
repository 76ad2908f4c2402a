import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { field } from "./components.ts";

export function invitePage(
  context: PageContext,
  input: {
    token: string;
    workspaceName: string;
    email: string;
    name: string | null;
    accountExists: boolean;
    error?: string;
  },
): string {
  const { t } = context;
  return layout(
    context,
    t.t("joinWorkspace", { workspace: input.workspaceName }),
    html`${notice("error", input.error)}
<p>${t.t("joinAs", { email: input.email })}</p>
<p class="muted">${input.accountExists ? t.t("joinExisting") : t.t("setPassword")}</p>
<div class="card"><form class="stack" method="post" action="${CONSOLE_PREFIX}/invite">${csrfField(context)}
<input type="hidden" name="token" value="${input.token}">
${input.accountExists ? "" : field("name", t.t("yourName"), html`<input type="text" id="name" name="name" autocomplete="name" required maxlength="200" value="${input.name ?? ""}">`)}
${field(
  "password",
  input.accountExists ? t.t("password") : t.t("newPassword"),
  html`<input type="password" id="password" name="password" required ${input.accountExists ? html`autocomplete="current-password"` : html`autocomplete="new-password" minlength="10" aria-describedby="password-hint"`}>`,
  input.accountExists ? undefined : t.t("passwordHint"),
)}
<div><button type="submit" class="primary">${t.t("join")}</button></div>
</form></div>`,
    { narrow: true },
  );
}
