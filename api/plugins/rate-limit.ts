import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { consumeOrThrow, type RateLimitBucket, type RateLimiter } from "../../shared/rate-limits.ts";
import { principalOf } from "./authentication.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    rateLimitBucket?: RateLimitBucket;
  }
  interface FastifyInstance {
    enforceRateLimit: (request: FastifyRequest) => Promise<void>;
  }
}

async function rateLimitPlugin(app: FastifyInstance, options: { limiter: RateLimiter }): Promise<void> {
  app.decorate("enforceRateLimit", async (request: FastifyRequest) => {
    const bucket = request.routeOptions.config.rateLimitBucket;
    if (!bucket) return;
    request.rateLimitHeaders = await consumeOrThrow(
      options.limiter,
      bucket,
      principalOf(request).rateLimitId,
    );
  });
  app.decorateRequest("rateLimitHeaders", null);
  // Headers go on every limited response, errors included (the error handler adds its own on 429).
  app.addHook("onSend", async (request, reply) => {
    if (request.rateLimitHeaders) reply.headers(request.rateLimitHeaders);
  });
}

declare module "fastify" {
  interface FastifyRequest {
    rateLimitHeaders: Record<string, string> | null;
  }
}

export default fp(rateLimitPlugin, { name: "rate-limit", dependencies: ["authentication"] });
