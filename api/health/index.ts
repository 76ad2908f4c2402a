import type { FastifyPluginAsync } from "fastify";
import type { Redis } from "ioredis";
import { sql } from "kysely";
import type { Db } from "../../shared/db/database.ts";
import { ApiError } from "../../shared/errors.ts";
import type { Metrics } from "../../shared/metrics.ts";

interface HealthRoutesOptions {
  metrics: Metrics;
  db: Db;
  redis: Redis | undefined;
}

/** A dependency that does not answer within this is as good as down for a load balancer. */
const READINESS_TIMEOUT_MS = 2_000;

async function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${READINESS_TIMEOUT_MS} ms`)),
      READINESS_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Health (`/healthz`, `/readyz`) and `/metrics`, for operators and load balancers, outside /v1:
 * no authentication, no rate limit, not in the OpenAPI document. `/metrics` is Prometheus text;
 * expose it to the scraper only (network policy).
 */
const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, { metrics, db, redis }) => {
  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  });

  // Liveness: the process answers. Nothing external is checked, so a database outage never
  // gets healthy processes restarted.
  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));

  // Readiness: this node can serve requests, which needs the database. Redis holds no money and no
  // lead: without it the node still serves (rate limits per node, live checks in process), so an
  // unreachable Redis is reported, not a reason to take every node out of the load balancer.
  app.get("/readyz", { schema: { hide: true } }, async (request) => {
    let redisCheck: "ok" | "unreachable" | "not_configured" = "not_configured";
    const [database] = await Promise.all([
      withTimeout(sql`select 1`.execute(db), "the database").then(
        () => true,
        (error: unknown) => {
          request.log.warn({ err: error }, "readiness: database unreachable");
          return false;
        },
      ),
      redis
        ? withTimeout(redis.ping(), "Redis").then(
            () => {
              redisCheck = "ok";
            },
            (error: unknown) => {
              request.log.warn({ err: error }, "readiness: Redis unreachable (serving without it)");
              redisCheck = "unreachable";
            },
          )
        : undefined,
    ]);
    if (!database) throw new ApiError("service_unavailable", "Not ready: the database is unreachable.");
    return { status: "ready", checks: { database: "ok", redis: redisCheck } };
  });
};

export default healthRoutes;
