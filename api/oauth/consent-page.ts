import type { FastifyRequest } from "fastify";
import type { SignedInAccount } from "../../shared/accounts/sessions.ts";
import { languageFromHeader, translator } from "../console/i18n.ts";
import { PAGE_HEADERS, type PageContext } from "../console/layout.ts";

export { CONSENT_FORM, consentErrorPage, consentPage } from "../console/views/consent.ts";

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
export function pageSecurityHeaders(redirectOrigin?: string): Record<string, string> {
  // The console's policy without its script: nothing may run here.
  const csp = (PAGE_HEADERS["content-security-policy"] ?? "").replace(" script-src 'self';", "");
  return {
    ...PAGE_HEADERS,
    "content-security-policy": redirectOrigin
      ? csp.replace("form-action 'self'", `form-action 'self' ${redirectOrigin}`)
      : csp,
  };
}
