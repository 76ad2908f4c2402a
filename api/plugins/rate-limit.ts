import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { type Admission, admit, type Operation } from "../../shared/operations/operation.ts";
import type { RateLimitBucket, RateLimiter } from "../../shared/rate-limits.ts";
import { principalOf } from "./authentication.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The operation a /v1 route performs: its bucket is spent before the body is read. */
    operation?: Operation;
    /** The bucket the OpenAPI document names for the route (its operation's). */
    rateLimitBucket?: RateLimitBucket;
  }
  interface FastifyInstance {
    enforceRateLimit: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    admission: Admission | null;
  }
}

async function rateLimitPlugin(app: FastifyInstance, options: { limiter: RateLimiter }): Promise<void> {
  app.decorate("enforceRateLimit", async (request: FastifyRequest) => {
    const { operation } = request.routeOptions.config;
    if (!operation) return;
    request.admission = await admit(operation, principalOf(request), options.limiter);
  });
  app.decorateRequest("admission", null);
  // Headers go on every limited response, errors included (the error handler adds its own on 429).
  app.addHook("onSend", async (request, reply) => {
    if (request.admission) reply.headers(request.admission.headers);
  });
}

export default fp(rateLimitPlugin, { name: "rate-limit", dependencies: ["authentication"] });
