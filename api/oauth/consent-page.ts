import type { FastifyReply, FastifyRequest } from "fastify";
import type { SignedInAccount } from "../../shared/accounts/sessions.ts";
import type { CapsTyped } from "../console/forms.ts";
import { html } from "../console/html.ts";
import { languageFromHeader, type MessageKey, translator } from "../console/i18n.ts";
import { layout, notice, PAGE_HEADERS, type PageContext } from "../console/layout.ts";
import { capInputs, type FieldErrors } from "../console/views/caps.ts";

/** Names of the consent form's fields, shared with the route that reads them. */
export const CONSENT_FORM = {
  requestId: "request_id",
  csrfToken: "csrf_token",
  workspace: "workspace_id",
  decision: "decision",
  dailyCap: "daily_credit_cap",
  totalCap: "total_credit_cap",
} as const;

const NO_CAPS: CapsTyped = { daily_credit_cap: "", total_credit_cap: "" };

const SCOPE_MEANINGS: Record<string, MessageKey> = { email: "scopeEmail", profile: "scopeProfile" };

export interface ConsentPageInput {
  clientName: string;
  redirectUri: string;
  scopes: readonly string[];
  requestId: string;
  /** The consent request's own CSRF token (bound to this browser), not the console's. */
  consentCsrfToken: string;
  /** The signed-in person who decides, and the workspaces they may connect. */
  account: { name: string; email: string };
  workspaces: readonly { id: string; name: string }[];
  /** Shown above the form after a refused choice. */
  error?: MessageKey;
  /** The spending caps as typed (kept after a refusal), and the error beside each. */
  typedCaps?: CapsTyped;
  capErrors?: FieldErrors;
}

/** The authorization endpoint's consent page, in the console's layout and the member's language. */
export function consentPage(context: PageContext, input: ConsentPageInput): string {
  const { t } = context;
  const host = new URL(input.redirectUri).host;
  return layout(
    context,
    t.t("consentTitle", { client: input.clientName }),
    html`<div class="card"><p>${t.t("consentAsks", { client: input.clientName, host })}</p>
<p class="muted small">${t.t("consentNameWarning")}</p></div>
<p>${t.t("consentIfApprove")}</p>
<ul><li>${t.t("consentCanRead")}</li><li><strong>${t.t("consentCanSpend")}</strong></li></ul>
<p>${t.t("consentScopes")}</p>
<ul>${input.scopes.map((scope) => {
      const meaning = SCOPE_MEANINGS[scope];
      return html`<li><code>${scope}</code>${meaning ? html`${t.colon} ${t.t(meaning)}` : ""}</li>`;
    })}</ul>
${notice("error", input.error ? t.t(input.error) : undefined)}
<div class="card"><form method="post" action="authorize" class="stack">
<input type="hidden" name="${CONSENT_FORM.requestId}" value="${input.requestId}">
<input type="hidden" name="${CONSENT_FORM.csrfToken}" value="${input.consentCsrfToken}">
<p>${t.t("signedInAs", { name: input.account.name, email: input.account.email })}</p>
<fieldset><legend>${t.t("workspaceToConnect")}</legend>
${input.workspaces.map(
  (workspace, index) =>
    html`<label class="choice"><input type="radio" name="${CONSENT_FORM.workspace}" value="${workspace.id}"${index === 0 ? html` checked` : ""} required> ${workspace.name}</label>`,
)}
</fieldset>
<fieldset><legend>${t.t("consentCapsLegend")}</legend>
<p class="muted small">${t.t("consentCapsHint")}</p>
${capInputs(t, input.typedCaps ?? NO_CAPS, input.capErrors ?? {}, "consent")}
</fieldset>
<p class="muted small">${t.t("consentLasts")}</p>
<div class="actions"><button class="primary" type="submit" name="${CONSENT_FORM.decision}" value="approve">${t.t("approve")}</button>
<button type="submit" name="${CONSENT_FORM.decision}" value="deny" formnovalidate>${t.t("deny")}</button></div>
</form></div>`,
    // Nothing runs on the pages where a member grants access: no script at all.
    { narrow: true, script: false },
  );
}

/** An answer of the authorization endpoint that cannot go back to the client. */
export function consentErrorPage(
  context: PageContext,
  title: MessageKey,
  message: { key: MessageKey } | { text: string },
): string {
  const { t } = context;
  return layout(
    context,
    t.t(title),
    html`${notice("error", "key" in message ? t.t(message.key) : message.text)}
<p class="muted">${t.t("consentGoBack")}</p>`,
    // Nothing runs on the pages where a member grants access: no script at all.
    { narrow: true, script: false },
  );
}

/**
 * The pages of the authorization endpoint are console pages: the console's layout, style sheet
 * and words, in the signed-in member's language (the browser's before sign-in). No console
 * header or forms: the one decision on the page is the consent's.
 */
export function consentContext(request: FastifyRequest, session: SignedInAccount | null): PageContext {
  return {
    t: translator(session?.account.language ?? languageFromHeader(request.headers["accept-language"])),
    csrf: "",
  };
}

/**
 * The console's page headers, except that no script may run and forms may also post to the client's redirect URI: a
 * browser checks form-action against the redirect that follows a submission.
 */
function pageSecurityHeaders(redirectOrigin?: string): Record<string, string> {
  // The console's policy without its script: nothing may run here.
  const csp = (PAGE_HEADERS["content-security-policy"] ?? "").replace(" script-src 'self';", "");
  return {
    ...PAGE_HEADERS,
    "content-security-policy": redirectOrigin
      ? csp.replace("form-action 'self'", `form-action 'self' ${redirectOrigin}`)
      : csp,
  };
}

/** An OAuth page with the headers of its kind (no script; forms may post to the client). */
export function sendPage(
  reply: FastifyReply,
  status: number,
  html: string,
  redirectOrigin?: string,
): FastifyReply {
  return reply.code(status).headers(pageSecurityHeaders(redirectOrigin)).send(html);
}
