import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { findSession } from "../../shared/accounts/sessions.ts";
import type { Db } from "../../shared/db/database.ts";
import {
  approveConsent,
  checkAuthorizationRequest,
  createConsent,
  denyConsent,
  findConsent,
} from "../../shared/oauth/authorization.ts";
import { looksLikeSecret, newSecret } from "../../shared/secrets.ts";
import { listMemberships, type Membership } from "../../shared/workspaces/members.ts";
import { capsForm, readCapsForm } from "../console/forms.ts";
import { CONSOLE_PREFIX, SESSION_COOKIE } from "../console/paths.ts";
import {
  CONSENT_FORM,
  type ConsentPageInput,
  consentContext,
  consentErrorPage,
  consentPage,
  sendPage,
} from "./consent-page.ts";
import { formParams, singleValued } from "./form.ts";

export const AUTHORIZE_PATH = "/oauth/authorize";

/** Ties a consent form to the browser that loaded it (HttpOnly, never readable by a page). */
const BROWSER_BINDING_COOKIE = "ld_oauth_browser";
const BROWSER_BINDING_MAX_AGE_SECONDS = 600;
/** Redirects to the client carry a code or state in their URL: never cached, never in a Referer. */
const REDIRECT_HEADERS = { "cache-control": "no-store", "referrer-policy": "no-referrer" };

interface AuthorizeOptions {
  db: Db;
  publicUrl: string;
}

/**
 * The authorization endpoint, the one OAuth page a person sees: GET checks the client's request
 * and asks the signed-in member which workspace to connect; POST records their decision.
 */
export function authorizeRoutes(app: FastifyInstance, options: AuthorizeOptions): void {
  // No automatic HEAD route: every GET stores a consent request.
  app.get(AUTHORIZE_PATH, { schema: { hide: true }, exposeHeadRoute: false }, (request, reply) =>
    showConsent(options, request, reply),
  );
  app.post(AUTHORIZE_PATH, { schema: { hide: true } }, (request, reply) =>
    decideConsent(options, request, reply),
  );
}

const toChoice = (membership: Membership) => ({
  id: membership.workspace_id,
  name: membership.workspace_name,
});

/** The console session of this browser (the cookie is shared with /app). */
const sessionOf = async (db: Db, request: FastifyRequest) => {
  const token = request.cookies[SESSION_COOKIE];
  return token ? findSession(db, token) : null;
};

/** GET: the consent page for a valid request of a signed-in member, bound to this browser. */
async function showConsent(
  { db, publicUrl }: AuthorizeOptions,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const cookiePath = `${new URL(publicUrl).pathname.replace(/\/$/, "")}/oauth`;
  const secureCookie = publicUrl.startsWith("https:");
  const query = singleValued(Object.entries((request.query ?? {}) as Record<string, unknown>));
  const decision = await checkAuthorizationRequest(db, query, publicUrl);
  const session = await sessionOf(db, request);
  const context = consentContext(request, session);
  if (decision.kind === "show_error") {
    return sendPage(reply, 400, consentErrorPage(context, "oauthCannotAnswer", { text: decision.message }));
  }
  // The person decides as themselves: sign in first, then come back to this very request.
  if (!session) {
    return reply
      .headers(REDIRECT_HEADERS)
      .redirect(`${CONSOLE_PREFIX}/sign-in?next=${encodeURIComponent(request.url)}`, 303);
  }
  const workspaces = await listMemberships(db, session.account.id);
  if (workspaces.length === 0) {
    return sendPage(
      reply,
      403,
      consentErrorPage(context, "oauthNoWorkspace", { key: "oauthNoWorkspaceMessage" }),
    );
  }
  const cookieValue = request.cookies[BROWSER_BINDING_COOKIE];
  const browserBinding =
    cookieValue !== undefined && looksLikeSecret(cookieValue) ? cookieValue : newSecret();
  const { requestId, csrfToken } = await createConsent(db, decision.request, browserBinding);
  reply.setCookie(BROWSER_BINDING_COOKIE, browserBinding, {
    path: cookiePath,
    maxAge: BROWSER_BINDING_MAX_AGE_SECONDS,
    httpOnly: true,
    sameSite: "strict",
    secure: secureCookie,
  });
  const { request: consent } = decision;
  return sendPage(
    reply,
    200,
    consentPage(context, {
      clientName: consent.client.client_name,
      redirectUri: consent.redirectUri,
      scopes: consent.scopes,
      requestId,
      consentCsrfToken: csrfToken,
      account: session.account,
      workspaces: workspaces.map(toChoice),
    }),
    new URL(consent.redirectUri).origin,
  );
}

/** POST: the member's decision, checked against the consent request and this browser. */
async function decideConsent(
  { db, publicUrl }: AuthorizeOptions,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const form = formParams(request);
  const found = await findConsent(db, {
    requestId: form[CONSENT_FORM.requestId],
    csrfToken: form[CONSENT_FORM.csrfToken],
    browserBinding: request.cookies[BROWSER_BINDING_COOKIE],
  });
  const session = await sessionOf(db, request);
  const context = consentContext(request, session);
  if (found.kind === "missing") {
    return sendPage(reply, 400, consentErrorPage(context, "oauthExpired", { key: "oauthExpiredMessage" }));
  }
  if (found.kind === "forbidden") {
    return sendPage(
      reply,
      403,
      consentErrorPage(context, "oauthNotVerified", { key: "oauthNotVerifiedMessage" }),
    );
  }
  const { consent } = found;
  if (!session) {
    return sendPage(
      reply,
      403,
      consentErrorPage(context, "oauthSignedOut", { key: "oauthSignedOutMessage" }),
    );
  }
  const redirectOrigin = new URL(consent.redirectUri).origin;
  const decision = form[CONSENT_FORM.decision];
  if (decision !== "approve" && decision !== "deny") {
    return sendPage(
      reply,
      400,
      consentErrorPage(context, "oauthNoDecision", { key: "oauthNoDecisionMessage" }),
    );
  }
  // The spending caps typed beside the choice (optional); a refused one shows the page again, the
  // request still open, what was typed kept and the error beside its field.
  const typedCaps = capsForm.parse({
    daily_credit_cap: form[CONSENT_FORM.dailyCap],
    total_credit_cap: form[CONSENT_FORM.totalCap],
  });
  const { caps, errors: capErrors } = readCapsForm(typedCaps);
  const again = async (refusal: Pick<ConsentPageInput, "error" | "capErrors">) =>
    sendPage(
      reply,
      400,
      consentPage(context, {
        clientName: consent.clientName,
        redirectUri: consent.redirectUri,
        scopes: consent.scopes,
        requestId: consent.id,
        consentCsrfToken: form[CONSENT_FORM.csrfToken] ?? "",
        account: session.account,
        workspaces: (await listMemberships(db, session.account.id)).map(toChoice),
        typedCaps,
        ...refusal,
      }),
      redirectOrigin,
    );
  if (decision === "approve" && Object.keys(capErrors).length > 0) {
    return again({ error: "formHasErrors", capErrors });
  }
  const outcome =
    decision === "deny"
      ? await denyConsent(db, consent, publicUrl)
      : await approveConsent(
          db,
          consent,
          { accountId: session.account.id, workspaceId: form[CONSENT_FORM.workspace] ?? "", caps },
          publicUrl,
        );
  if (outcome.kind === "missing") {
    return sendPage(reply, 400, consentErrorPage(context, "oauthExpired", { key: "oauthExpiredMessage" }));
  }
  if (outcome.kind === "not_a_member") return again({ error: "oauthNotThatMember" });
  return reply.headers(REDIRECT_HEADERS).redirect(outcome.location, 303);
}
