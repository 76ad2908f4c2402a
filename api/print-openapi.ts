import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import { buildApp } from "./app.ts";
import { createServices } from "./services.ts";

/**
 * Writes the `/openapi.json` this code serves (to the file named, else to stdout), from an app on
 * an in-memory embedded database with the default configuration; nothing listens. `npm run lint`
 * hands it to Spectral. The server is an https address, as every deployment's PUBLIC_URL must be.
 */
const config = loadConfig({
  DATA_DIR: "memory://",
  LOG_LEVEL: "silent",
  PUBLIC_URL: "https://api.example.com",
});
const services = await createServices(config, createLogger("silent", "openapi"));
try {
  const app = await buildApp({ services });
  const response = await app.inject({ url: "/openapi.json" });
  if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
  const text = `${JSON.stringify(response.json(), null, 2)}\n`;
  const target = process.argv[2];
  if (target) {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
  } else {
    process.stdout.write(text);
  }
  await app.close();
} finally {
  await services.close();
}
