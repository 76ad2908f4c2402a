import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Metrics } from "../../shared/metrics.ts";

/** The `route` label of a request no route matched (a 404): one value, whatever the URL was. */
const UNMATCHED_ROUTE = "unmatched";

/**
 * Request duration of every response, errors included, labelled with the route pattern
 * (`/v1/leads/:id`), never the raw URL, so the number of series stays bounded.
 */
async function metricsPlugin(app: FastifyInstance, options: { metrics: Metrics }): Promise<void> {
  app.addHook("onResponse", async (request, reply) => {
    options.metrics.httpRequestFinished(
      request.method,
      request.routeOptions.url ?? UNMATCHED_ROUTE,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
}

export default fp(metricsPlugin, { name: "metrics" });
