import fastifyCookie from "@fastify/cookie";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { adminGuard } from "./admin/guard.ts";
import adminRoutes from "./admin/index.ts";
import consoleRoutes from "./console/index.ts";
import { CONSOLE_PREFIX, hideLinkToken } from "./console/paths.ts";
import { faviconRoutes } from "./console/routes/assets.ts";
import docsRoutes from "./docs/index.ts";
import healthRoutes from "./health/index.ts";
import legalRoutes from "./legal/index.ts";
import mcpRoutes from "./mcp/index.ts";
import oauthRoutes from "./oauth/index.ts";
import authentication from "./plugins/authentication.ts";
import crossOrigin, { refuseUnmatchedRoute } from "./plugins/cross-origin.ts";
import errors, { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from "./plugins/errors.ts";
import gracefulClose from "./plugins/graceful-close.ts";
import metrics from "./plugins/metrics.ts";
import openApi, { refuseUnknownQueryParameters } from "./plugins/openapi.ts";
import rateLimit from "./plugins/rate-limit.ts";
import { requestIdFor } from "./request-id.ts";
import type { Services } from "./services.ts";
import v1Routes from "./v1/index.ts";
import stripeWebhookRoutes from "./webhooks/stripe.ts";

const BODY_LIMIT_BYTES = 16 * 1024;

export interface BuildAppOptions {
  services: Services;
  /** A pino logger; without one the app logs nothing (tests). */
  logger?: FastifyBaseLogger;
}

/** The whole HTTP API as one Fastify instance; the caller owns `services` and closes them. */
export async function buildApp({ services, logger }: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    bodyLimit: BODY_LIMIT_BYTES,
    // A live-check search may take 45 s; keep the socket open beyond that.
    requestTimeout: 120_000,
    // While the node drains (SIGTERM), a request on an open connection is served, with
    // `Connection: close`, rather than refused with Fastify's own 503 (see plugins/graceful-close.ts).
    return503OnClosing: false,
    // X-Request-Id is read by genReqId, which keeps it only when it is a sane token.
    requestIdHeader: false,
    genReqId: requestIdFor,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // The client address of per-address limits: the socket's, or X-Forwarded-For behind trusted proxies.
    trustProxy: (_address: string, hop: number) => hop < config.trustProxyHops,
    // Every answer is the error object, the parser's and the router's included.
    clientErrorHandler,
    frameworkErrors,
    rewriteUrl: hideLinkToken,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(errors);
  await app.register(metrics, { metrics: services.metrics });
  await app.register(gracefulClose);
  await app.register(crossOrigin);
  // Cookies are read and written by the console and the consent page only; the API uses bearers.
  await app.register(fastifyCookie);
  if (config.adminToken) app.addHook("onRequest", adminGuard(config.adminToken, services.addressLimiter));
  app.addHook("onRequest", refuseUnmatchedRoute);
  app.addHook("onRoute", refuseUnknownQueryParameters);
  await app.register(openApi, {
    publicUrl: config.publicUrl,
    accessTokenTtlSeconds: config.oauth.accessTokenTtlSeconds,
    contactEmail: config.legal.contactEmail,
    rateLimits: config.rateLimits,
    costLimits: config.costLimits,
  });
  await app.register(authentication, { verifiers: services.bearerVerifiers });
  await app.register(rateLimit, { limiter: services.rateLimiter });

  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  await app.register(docsRoutes, {
    rateLimits: config.rateLimits,
    costLimits: config.costLimits,
    appLimits: {
      consoleRateLimits: config.consoleRateLimits,
      suppressionsPerWorkspace: config.suppressionsPerWorkspace,
    },
  });
  await app.register(healthRoutes, { metrics: services.metrics, db: services.db, redis: services.redis });
  await app.register(v1Routes, { prefix: "/v1", services });
  await app.register(oauthRoutes, {
    db: services.db,
    addressLimiter: services.addressLimiter,
    publicUrl: config.publicUrl,
    lifetimes: config.oauth,
  });
  await app.register(mcpRoutes, { services });
  await app.register(consoleRoutes, { prefix: CONSOLE_PREFIX, services });
  await app.register(legalRoutes, config.legal);
  await app.register(faviconRoutes);
  // Without Stripe configured there is nothing to receive: the route does not exist (404).
  if (services.payments) {
    await app.register(stripeWebhookRoutes, { payments: services.payments, metrics: services.metrics });
  }
  if (config.adminToken) {
    await app.register(adminRoutes, { prefix: "/admin", services });
  }
  return app;
}
