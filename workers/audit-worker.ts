import { UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { createAnalysisPool } from "../shared/audit/analysis-pool.ts";
import { closeHomepageAgents } from "../shared/audit/fetch-homepage.ts";
import { type AuditJob, auditJobSchema, SITE_AUDIT_QUEUE } from "../shared/audit/queue.ts";
import { auditUserAgent, createAuditRunner } from "../shared/audit/run-audit.ts";
import { ConfigError, loadConfig } from "../shared/config.ts";
import { describeUrl, openDatabase, StartupError, waitFor } from "../shared/db/startup.ts";
import { createLogger } from "../shared/logger.ts";
import { createMetrics, instrumentAuditRunner } from "../shared/metrics.ts";
import { startWorkerMetricsServer } from "./metrics-server.ts";

/** The audit worker process: `npm run worker`. Needs DATABASE_URL and REDIS_URL. */
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
  if (!config.redisUrl || config.database.kind !== "postgres") {
    throw new ConfigError(
      "The audit worker needs REDIS_URL and DATABASE_URL (embedded mode audits inside the API).",
    );
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

const logger = createLogger(config.logLevel, "audit-worker");
// Workers block on Redis: BullMQ requires maxRetriesPerRequest null on their connection.
const connection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
connection.on("error", (error) => logger.warn({ err: error }, "redis connection error"));
let database: Awaited<ReturnType<typeof openDatabase>>;
try {
  database = await openDatabase(config, logger);
  await waitFor(`Redis at ${describeUrl(config.redisUrl)}`, config.startupWaitMs, logger, async () => {
    if (connection.status !== "ready") throw new Error(`connection is ${connection.status}`);
    await connection.ping();
  });
} catch (error) {
  if (!(error instanceof StartupError)) throw error;
  logger.fatal({ reason: error.message }, `cannot start: ${error.message}`);
  process.exit(1);
}
const { db } = database;
const pool = createAnalysisPool(config.audit.threads > 0 ? { threads: config.audit.threads } : {});
const metrics = createMetrics({
  onCollectError: (error) => logger.warn({ err: error }, "could not read the audit queue counts"),
});
const runAudit = instrumentAuditRunner(
  createAuditRunner({
    db,
    pool,
    fetch: {
      allowPrivateNetworks: config.audit.allowPrivateNetworks,
      userAgent: auditUserAgent(config.publicUrl),
    },
  }),
  metrics,
);
const metricsServer = await startWorkerMetricsServer({
  metrics,
  port: config.workerMetricsPort,
  host: config.host,
  redisUrl: config.redisUrl,
  queuePrefix: config.queuePrefix,
  logger,
});

const worker = new Worker<AuditJob>(
  SITE_AUDIT_QUEUE,
  async (job) => {
    const parsed = auditJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid audit job payload: ${parsed.error.message}`);
    const started = performance.now();
    const audit = await runAudit(parsed.data);
    logger.info(
      {
        job_id: job.id,
        place_id: audit.place_id,
        outcome: audit.outcome,
        failure: audit.failure,
        ms: Math.round(performance.now() - started),
      },
      "audit finished",
    );
    return { outcome: audit.outcome, failure: audit.failure };
  },
  {
    connection,
    prefix: config.queuePrefix,
    concurrency: config.audit.concurrency,
    lockDuration: config.audit.jobLockMs,
    stalledInterval: config.audit.jobLockMs,
    maxStalledCount: 2,
  },
);
worker.on("error", (error) => logger.error({ err: error }, "worker error"));
worker.on("failed", (job, error) => logger.warn({ job_id: job?.id, err: error }, "audit job failed"));
await worker.waitUntilReady();
logger.info({ concurrency: config.audit.concurrency, threads: pool.threads }, "audit worker ready");

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "audit worker stopping: finishing active jobs");
  // close() waits for the jobs in progress; jobs not started stay in the queue for other workers.
  await worker.close();
  await metricsServer.close();
  await pool.close();
  await closeHomepageAgents();
  connection.disconnect();
  await database.close();
  logger.info("audit worker stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
