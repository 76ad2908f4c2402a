import closeWithGrace from "close-with-grace";
import { loadConfigOrExit } from "../shared/config.ts";
import { StartupError } from "../shared/db/startup.ts";
import { createLogger } from "../shared/logger.ts";
import { buildApp } from "./app.ts";
import { createServices, type Services } from "./services.ts";

const config = loadConfigOrExit(process.env);
const logger = createLogger(config.logLevel, "api");

let services: Services;
try {
  services = await createServices(config, logger);
} catch (error) {
  // A dependency that never came up, or a data folder in use: one line saying why, exit 1, so that
  // a supervisor shows the reason instead of a stack trace.
  if (!(error instanceof StartupError)) throw error;
  logger.fatal({ reason: error.message }, `cannot start: ${error.message}`);
  process.exit(1);
}
const app = await buildApp({ services, logger });

// SIGTERM: stop accepting, let in-flight requests (a waiting search included) answer, then close pools.
closeWithGrace({ delay: 60_000, logger }, async ({ err, signal }) => {
  if (err) logger.error({ err }, "shutting down after an error");
  else logger.info({ signal }, "shutting down");
  await app.close();
  await services.close();
});

await app.listen({ port: config.port, host: config.host });
if (config.places.kind === "none") {
  logger.warn(
    "no places provider configured: set GOOGLE_PLACES_API_KEY or PLACES_FIXTURE_FILE to run searches",
  );
}
if (!config.adminToken) logger.warn("ADMIN_TOKEN is not set: the /admin API is disabled");
