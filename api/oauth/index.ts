import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Db } from "../../shared/db/database.ts";
import type { ApiError } from "../../shared/errors.ts";
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
import { compressAnswers } from "../plugins/compression.ts";
import { toApiError } from "../plugins/errors.ts";
import { AUTHORIZE_PATH, authorizeRoutes } from "./authorize.ts";
import { consentContext, consentErrorPage, sendPage } from "./consent-page.ts";
import { clientIdOf, FORM_CONTENT_TYPE, formParams, singleValued } from "./form.ts";

interface OAuthRoutesOptions {
  db: Db;
  addressLimiter: AddressLimiter;
  publicUrl: string;
  lifetimes: TokenLifetimes;
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  if (error.status === 401) reply.header("www-authenticate", 'Basic realm="oauth"');
  reply.headers(error.headers);
  return reply.code(error.status).header("cache-control", "no-store").send(error.toJSON());
}

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

/**
 * The OAuth 2.0 authorization server of assistant clients: metadata (RFC 8414, RFC 9728),
 * dynamic registration (RFC 7591), the consent page, the token endpoint and revocation (RFC 7009).
 * None of it is in /openapi.json, which describes /v1.
 */
const oauthRoutes: FastifyPluginAsync<OAuthRoutesOptions> = async (
  app,
  { db, addressLimiter, publicUrl, lifetimes },
) => {
  app.addHook("onRequest", async (request) => {
    const bucket = ADDRESS_BUCKETS[request.routeOptions.url ?? ""];
    if (bucket) await consumeAddressOrThrow(addressLimiter, bucket, request.ip);
  });

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

  metadataRoutes(app, publicUrl);
  clientRoutes(app, { db, lifetimes });
  // The consent pages are pages: compressed like the console's (the JSON endpoints are not).
  await app.register(async (pages) => {
    await compressAnswers(pages);
    authorizeRoutes(pages, { db, publicUrl });
  });
};

/** RFC 8414 and RFC 9728 metadata: public, cacheable, readable from any origin. */
function metadataRoutes(app: FastifyInstance, publicUrl: string): void {
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
}

/** What a client calls directly, in JSON: registration, the token endpoint, userinfo, revocation. */
function clientRoutes(app: FastifyInstance, { db, lifetimes }: { db: Db; lifetimes: TokenLifetimes }): void {
  app.post("/oauth/register", { schema: { hide: true } }, async (request, reply) => {
    const client = await registerClient(db, request.body);
    return reply.code(201).header("cache-control", "no-store").send(client);
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
}

export default oauthRoutes;
