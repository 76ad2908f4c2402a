import type { ListenOptions } from "node:net";
import closeWithGrace from "close-with-grace";
import type { FastifyListenOptions } from "fastify";
import { describeNodeMode, loadConfigOrExit, nodeModeOf } from "../shared/config.ts";
import { StartupError } from "../shared/db/startup.ts";
import { createLogger } from "../shared/logger.ts";
import { buildApp } from "./app.ts";
import { createServices, type Services } from "./services.ts";
import { listenWhileStarting } from "./starting-server.ts";

const config = loadConfigOrExit(process.env);
const logger = createLogger(config.logLevel, "api");

// The port answers from the first moment (alive, not ready) while PostgreSQL and Redis are awaited.
const starting = await listenWhileStarting({ port: config.port, host: config.host }, logger).catch(
  (error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE" && error.code !== "EACCES") throw error;
    logger.fatal(
      { reason: error.code },
      `cannot start: cannot listen on ${config.host}:${config.port} (${error.code})`,
    );
    process.exit(1);
  },
);
let services: Services;
try {
  services = await createServices(config, logger, { onWaiting: starting.waitingFor });
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
  // The start-up server still serves the connections it accepted (with the app's handlers): it
  // stops accepting too, and its connections end after their answers, as the app's do.
  await Promise.all([app.close(), starting.close()]);
  await services.close();
});

// Fastify hands its listen options to Node's server.listen, reusePort included (not in its types).
const listenOptions: FastifyListenOptions & Pick<ListenOptions, "reusePort"> = {
  port: starting.port,
  host: config.host,
  reusePort: starting.sharesPort,
};
await starting.handOver(app.server, () => app.listen(listenOptions));
const mode = nodeModeOf(config);
logger.info(mode, describeNodeMode(mode));
if (config.places.kind === "none") {
  logger.warn(
    "no places provider configured: set GOOGLE_PLACES_API_KEY or PLACES_FIXTURE_FILE to run searches",
  );
}
if (config.mail?.kind === "log") {
  logger.warn(
    `SMTP_URL=log: account mail goes nowhere: each mail (sign-up, invite, password reset) is written to this log with its links${config.signUp === "open" ? "; SIGNUP=open: whoever reads this log can confirm any sign-up" : ""}`,
  );
}
if (!config.adminToken) logger.warn("ADMIN_TOKEN is not set: the /admin API is disabled");
