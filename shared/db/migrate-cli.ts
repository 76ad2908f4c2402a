import { loadConfigOrExit } from "../config.ts";
import { createLogger } from "../logger.ts";
import { openDatabase, StartupError } from "./startup.ts";

// `npm run migrate`: the explicit way for operators (every node also migrates at start, one at a time).
const config = loadConfigOrExit(process.env);
const logger = createLogger(config.logLevel, "migrate");
try {
  const { close } = await openDatabase(config, logger);
  await close();
  console.log("Database is up to date.");
} catch (error) {
  if (!(error instanceof StartupError)) throw error;
  console.error(`cannot migrate: ${error.message}`);
  process.exit(1);
}
