import closeWithGrace from "close-with-grace";
import { ConfigError, loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import { buildApp } from "./app.ts";
import { createServices } from "./services.ts";

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger(config.logLevel, "api");
const services = await createServices(config, logger);
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
