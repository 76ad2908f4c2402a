import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { listMemberships, type Membership } from "../../shared/accounts/accounts.ts";
import { findSession } from "../../shared/accounts/sessions.ts";
import type { Db } from "../../shared/db/database.ts";
import type { ApiError } from "../../shared/errors.ts";
import {
  approveConsent,
  checkAuthorizationRequest,
  createConsent,
  denyConsent,
  findConsent,
} from "../../shared/oauth/authorization.ts";
import { registerClient } from "../../shared/oauth/clients.ts";
import { OAuthError } from "../../shared/oauth/errors.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "../../shared/oauth/metadata.ts";
import {
  exchangeAuthorizationCode,
  refreshAccessToken,
  revokeToken,
  type TokenLifetimes,
} from "../../shared/oauth/tokens.ts";
import { readUserInfo } from "../../shared/oauth/userinfo.ts";
import { type AddressBucket, type AddressLimiter, consumeAddressOrThrow } from "../../shared/rate-limits.ts";
import { looksLikeSecret, newSecret } from "../../shared/secrets.ts";
import { isStorableText } from "../../shared/text-input.ts";
import { readCookie } from "../console/cookies.ts";
import { CONSOLE_PREFIX, SESSION_COOKIE } from "../console/paths.ts";
import { toApiError } from "../plugins/errors.ts";
import {
  CONSENT_FORM,
  consentContext,
  consentErrorPage,
  consentPage,
  pageSecurityHeaders,
} from "./consent-page.ts";

export interface OAuthRoutesOptions {
  db: Db;
  addressLimiter: AddressLimiter;
  publicUrl: string;
  lifetimes: TokenLifetimes;
}

type Params = Record<string, string>;

const toChoice = (membership: Membership) => ({
  id: membership.workspace_id,
  name: membership.workspace_name,
});

/** Ties a consent form to the browser that loaded it (HttpOnly, never readable by a page). */
const BROWSER_BINDING_COOKIE = "ld_oauth_browser";
const BROWSER_BINDING_MAX_AGE_SECONDS = 600;
const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";
const AUTHORIZE_PATH = "/oauth/authorize";
/** Redirects to the client carry a code or state in their URL: never cached, never in a Referer. */
const REDIRECT_HEADERS = { "cache-control": "no-store", "referrer-policy": "no-referrer" };

/** RFC 6749 3.1 / 3.2: a parameter sent more than once is an invalid request. */
function singleValued(entries: Iterable<[string, unknown]>): Params {
  // No prototype: a parameter named __proto__ is just a parameter.
  const params: Params = Object.create(null);
  for (const [name, value] of entries) {
    if (Object.hasOwn(params, name) || Array.isArray(value)) {
      throw new OAuthError("invalid_request", `${name}: sent more than once.`);
    }
    if (typeof value === "string") params[name] = value;
  }
  return params;
}

function formParams(request: FastifyRequest): Params {
  const contentType = request.headers["content-type"] ?? "";
  if (!contentType.toLowerCase().startsWith(FORM_CONTENT_TYPE)) {
    throw new OAuthError("invalid_request", `The body must be ${FORM_CONTENT_TYPE}.`);
  }
  return (request.body as Params | undefined) ?? {};
}

/**
 * The client_id of a token or revocation request: in the body (public clients), or as the user
 * of an HTTP Basic header (RFC 6749 2.3.1) from clients that send it that way. Nothing here has a
 * secret, so a password in that header is ignored.
 */
function clientIdOf(request: FastifyRequest, form: Params): string | undefined {
  const basic = /^Basic +([A-Za-z0-9+/]+=*)$/i.exec(request.headers.authorization ?? "")?.[1];
  if (basic === undefined) return form.client_id;
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  const separator = decoded.indexOf(":");
  let fromHeader: string;
  try {
    fromHeader = decodeURIComponent(
      (separator === -1 ? decoded : decoded.slice(0, separator)).replaceAll("+", " "),
    );
  } catch {
    throw new OAuthError("invalid_client", "The Basic authorization header is malformed.");
  }
  if (!isStorableText(fromHeader)) {
    throw new OAuthError(
      "invalid_client",
      "The Basic authorization header's client_id contains a NUL or an unpaired surrogate.",
    );
  }
  if (form.client_id !== undefined && form.client_id !== fromHeader) {
    throw new OAuthError(
      "invalid_request",
      "client_id differs between the body and the Authorization header.",
    );
  }
  return fromHeader;
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  if (error.status === 401) reply.header("www-authenticate", 'Basic realm="oauth"');
  reply.headers(error.headers);
  return reply.code(error.status).header("cache-control", "no-store").send(error.toJSON());
}

function sendPage(reply: FastifyReply, status: number, html: string, redirectOrigin?: string): FastifyReply {
  return reply.code(status).headers(pageSecurityHeaders(redirectOrigin)).send(html);
}

/**
 * The OAuth 2.0 authorization server of assistant clients: metadata (RFC 8414, RFC 9728),
 * dynamic registration (RFC 7591), the consent page, the token endpoint and revocation (RFC 7009).
 * None of it is in /openapi.json, which describes /v1.
 */
/** Unauthenticated endpoints are limited per client address: registration apart, being the costliest. */
const ADDRESS_BUCKETS: Record<string, AddressBucket> = {
  "/oauth/register": "oauth_register",
  [AUTHORIZE_PATH]: "oauth",
  "/oauth/token": "oauth",
  "/oauth/revoke": "oauth",
  "/oauth/userinfo": "oauth",
};

/** An ApiError as RFC 6749 renders it: 429 and 503 keep their status and Retry-After. */
function oauthErrorOf(apiError: ApiError): OAuthError {
  if (apiError.status === 429 || apiError.status === 503) {
    return new OAuthError("temporarily_unavailable", apiError.message, {
      status: apiError.status,
      headers: apiError.headers,
    });
  }
  return new OAuthError(
    apiError.status >= 500 ? "server_error" : "invalid_request",
    apiError.status >= 500 ? "Internal server error. It is safe to retry." : apiError.message,
  );
}

const oauthRoutes: FastifyPluginAsync<OAuthRoutesOptions> = async (
  app,
  { db, addressLimiter, publicUrl, lifetimes },
) => {
  app.addHook("onRequest", async (request) => {
    const bucket = ADDRESS_BUCKETS[request.routeOptions.url ?? ""];
    if (bucket) await consumeAddressOrThrow(addressLimiter, bucket, request.ip);
  });

  /** The console session of this browser (the cookie is shared with /app). */
  const sessionOf = async (request: FastifyRequest) => {
    const token = readCookie(request, SESSION_COOKIE);
    return token ? findSession(db, token) : null;
  };
  const cookiePath = `${new URL(publicUrl).pathname.replace(/\/$/, "")}/oauth`;
  const secureCookie = publicUrl.startsWith("https:");

  app.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: "string" }, (_request, body, done) => {
    try {
      done(null, singleValued(new URLSearchParams(typeof body === "string" ? body : body.toString("utf8"))));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // OAuth endpoints answer in RFC 6749's error format, the authorization page in HTML.
  app.setErrorHandler((error, request, reply) => {
    const oauthError = error instanceof OAuthError ? error : oauthErrorOf(toApiError(error, request));
    if (request.routeOptions.url === AUTHORIZE_PATH) {
      reply.headers(oauthError.headers);
      const context = consentContext(request, null);
      return sendPage(
        reply,
        oauthError.status,
        consentErrorPage(context, "oauthCannotAnswer", { text: oauthError.message }),
      );
    }
    return sendOAuthError(reply, oauthError);
  });

  const publicJson = (document: object) => async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .header("cache-control", "public, max-age=300")
      .header("access-control-allow-origin", "*")
      .send(document);

  app.get(
    "/.well-known/oauth-authorization-server",
    { schema: { hide: true } },
    publicJson(authorizationServerMetadata(publicUrl)),
  );
  app.get(
    "/.well-known/oauth-protected-resource",
    { schema: { hide: true } },
    publicJson(protectedResourceMetadata(publicUrl, "api")),
  );
  app.get(
    "/.well-known/oauth-protected-resource/mcp",
    { schema: { hide: true } },
    publicJson(protectedResourceMetadata(publicUrl, "mcp")),
  );

  app.post("/oauth/register", { schema: { hide: true } }, async (request, reply) => {
    const client = await registerClient(db, request.body);
    return reply.code(201).header("cache-control", "no-store").send(client);
  });

  // No automatic HEAD route: every GET stores a consent request.
  app.get(AUTHORIZE_PATH, { schema: { hide: true }, exposeHeadRoute: false }, async (request, reply) => {
    const query = singleValued(Object.entries((request.query ?? {}) as Record<string, unknown>));
    const decision = await checkAuthorizationRequest(db, query, publicUrl);
    const session = await sessionOf(request);
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
    const cookieValue = readCookie(request, BROWSER_BINDING_COOKIE);
    const browserBinding =
      cookieValue !== undefined && looksLikeSecret(cookieValue) ? cookieValue : newSecret();
    const { requestId, csrfToken } = await createConsent(db, decision.request, browserBinding);
    reply.header(
      "set-cookie",
      `${BROWSER_BINDING_COOKIE}=${browserBinding}; Path=${cookiePath}; Max-Age=${BROWSER_BINDING_MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict${secureCookie ? "; Secure" : ""}`,
    );
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
  });

  app.post(AUTHORIZE_PATH, { schema: { hide: true } }, async (request, reply) => {
    const form = formParams(request);
    const found = await findConsent(db, {
      requestId: form[CONSENT_FORM.requestId],
      csrfToken: form[CONSENT_FORM.csrfToken],
      browserBinding: readCookie(request, BROWSER_BINDING_COOKIE),
    });
    const session = await sessionOf(request);
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
    const outcome =
      decision === "deny"
        ? await denyConsent(db, consent, publicUrl)
        : await approveConsent(
            db,
            consent,
            { accountId: session.account.id, workspaceId: form[CONSENT_FORM.workspace] ?? "" },
            publicUrl,
          );
    if (outcome.kind === "missing") {
      return sendPage(reply, 400, consentErrorPage(context, "oauthExpired", { key: "oauthExpiredMessage" }));
    }
    if (outcome.kind === "not_a_member") {
      return sendPage(
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
          error: "oauthNotThatMember",
        }),
        redirectOrigin,
      );
    }
    return reply.headers(REDIRECT_HEADERS).redirect(outcome.location, 303);
  });

  app.post("/oauth/token", { schema: { hide: true } }, async (request, reply) => {
    const form = formParams(request);
    const grantType = form.grant_type;
    let tokens: Awaited<ReturnType<typeof exchangeAuthorizationCode>>;
    if (grantType === "authorization_code") {
      tokens = await exchangeAuthorizationCode(
        db,
        {
          clientId: clientIdOf(request, form),
          code: form.code,
          redirectUri: form.redirect_uri,
          codeVerifier: form.code_verifier,
        },
        lifetimes,
      );
    } else if (grantType === "refresh_token") {
      tokens = await refreshAccessToken(
        db,
        { clientId: clientIdOf(request, form), refreshToken: form.refresh_token, scope: form.scope },
        lifetimes,
      );
    } else if (grantType === undefined || grantType === "") {
      throw new OAuthError("invalid_request", "grant_type is required.");
    } else {
      throw new OAuthError(
        "unsupported_grant_type",
        "Only the authorization_code and refresh_token grant types are supported.",
      );
    }
    return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(tokens);
  });

  // OpenID Connect's userinfo shape: the approving person's claims, as far as the token's scopes go.
  app.get("/oauth/userinfo", { schema: { hide: true } }, async (request, reply) => {
    const token = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(request.headers.authorization ?? "")?.[1];
    const info = token ? await readUserInfo(db, token) : null;
    if (!info) {
      return reply
        .code(401)
        .header("www-authenticate", 'Bearer error="invalid_token"')
        .header("cache-control", "no-store")
        .send({
          error: "invalid_token",
          error_description: "Missing, unknown, expired or revoked access token.",
        });
    }
    return reply.header("cache-control", "no-store").send(info);
  });

  app.post("/oauth/revoke", { schema: { hide: true } }, async (request, reply) => {
    const form = formParams(request);
    await revokeToken(db, { clientId: clientIdOf(request, form), token: form.token });
    return reply.code(200).header("cache-control", "no-store").send();
  });
};

export default oauthRoutes;
