import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Queue } from "bullmq";
import type { Logger } from "pino";
import { readQueueCounts, SITE_AUDIT_QUEUE } from "../shared/audit/queue.ts";
import type { Metrics } from "../shared/metrics.ts";
import { createRedisConnection, logRedisConnection } from "../shared/redis.ts";

export interface WorkerMetricsOptions {
  metrics: Metrics;
  /** 0 picks a free port (logged). */
  port: number;
  host: string;
  redisUrl: string;
  queuePrefix: string;
  logger: Logger;
  /** More figures served after the shared ones (the worker's capacity metrics). */
  more?: { scrape(): Promise<string> };
}

export interface WorkerMetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The worker's own HTTP server for Prometheus (`GET /metrics`) and liveness (`GET /healthz`).
 * The queue gauges read BullMQ's counts at each scrape (`readQueueCounts`).
 */
export async function startWorkerMetricsServer(options: WorkerMetricsOptions): Promise<WorkerMetricsServer> {
  const { metrics, logger } = options;
  const connection = createRedisConnection(options.redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  const queue = new Queue(SITE_AUDIT_QUEUE, { connection, prefix: options.queuePrefix });
  logRedisConnection(connection, logger, "worker metrics", [queue]);
  metrics.observeAuditQueue(() => readQueueCounts(queue, connection));

  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (path === "/healthz") {
      response.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      return;
    }
    if (path === "/metrics") {
      Promise.all([metrics.scrape(), options.more?.scrape() ?? ""])
        .then(([shared, more]) => `${shared}${more}`)
        .then(
          (text) => response.writeHead(200, { "content-type": metrics.contentType }).end(text),
          (error: unknown) => {
            logger.error({ err: error }, "metrics scrape failed");
            response.writeHead(500).end();
          },
        );
      return;
    }
    response.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ port, host: options.host }, "worker metrics listening on /metrics and /healthz");

  return {
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue.close();
      connection.disconnect();
    },
  };
}
