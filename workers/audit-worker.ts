import closeWithGrace from "close-with-grace";
import { loadConfigOrExit } from "../shared/config.ts";
import { StartupError } from "../shared/db/startup.ts";
import { createLogger } from "../shared/logger.ts";
import { type AuditWorker, buildWorker } from "./build-worker.ts";

/** The audit worker process: `npm run worker`. Needs DATABASE_URL and REDIS_URL. */
const config = loadConfigOrExit(process.env, (c) =>
  !c.redisUrl || c.database.kind !== "postgres"
    ? "The audit worker needs REDIS_URL and DATABASE_URL (embedded mode audits inside the API)."
    : undefined,
);
const logger = createLogger(config.logLevel, "audit-worker");

let worker: AuditWorker;
try {
  worker = await buildWorker(config, logger);
} catch (error) {
  // A dependency that never came up: one line saying why, exit 1, not a stack trace.
  if (!(error instanceof StartupError)) throw error;
  logger.fatal({ reason: error.message }, `cannot start: ${error.message}`);
  process.exit(1);
}

// SIGTERM: finish the jobs in progress (a homepage fetch ends within its 10 s timeout), then exit 0.
closeWithGrace({ delay: 60_000, logger }, async ({ err, signal }) => {
  if (err) logger.error({ err }, "audit worker stopping after an error");
  else logger.info({ signal }, "audit worker stopping: finishing active jobs");
  await worker.close();
  logger.info("audit worker stopped");
});
