import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ApiError } from "../../shared/errors.ts";
import type { RateLimitBucket, RateLimiter } from "../../shared/rate-limits.ts";
import { principalOf } from "./authentication.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    rateLimitBucket?: RateLimitBucket;
  }
  interface FastifyInstance {
    enforceRateLimit: (request: FastifyRequest) => Promise<void>;
  }
}

/** Spec: a 429 always tells the client to wait 60 seconds. */
const RETRY_AFTER_SECONDS = "60";

async function rateLimitPlugin(app: FastifyInstance, options: { limiter: RateLimiter }): Promise<void> {
  app.decorate("enforceRateLimit", async (request: FastifyRequest) => {
    const bucket = request.routeOptions.config.rateLimitBucket;
    if (!bucket) return;
    let decision: Awaited<ReturnType<RateLimiter["consume"]>>;
    try {
      decision = await options.limiter.consume(bucket, principalOf(request).credentialId);
    } catch (error) {
      request.log.error({ err: error }, "rate-limit check failed");
      throw new ApiError(
        "rate_limit_unavailable",
        "The rate-limit check failed temporarily. It is safe to retry.",
      );
    }
    const headers = {
      "RateLimit-Limit": String(decision.limit),
      "RateLimit-Remaining": String(decision.remaining),
      "RateLimit-Reset": String(decision.resetSeconds),
      "RateLimit-Policy": `${decision.limit};w=60`,
    };
    if (!decision.allowed) {
      throw new ApiError(
        "rate_limited",
        `Rate limit of ${decision.limit} requests per minute for this key reached. Retry after 60 seconds.`,
        { headers: { ...headers, "Retry-After": RETRY_AFTER_SECONDS } },
      );
    }
    request.rateLimitHeaders = headers;
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
