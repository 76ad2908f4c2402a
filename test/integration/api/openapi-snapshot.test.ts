// The served `/openapi.json`, byte for byte, against the committed copy in
// `__snapshots__/openapi.json`. A move that changes nothing leaves it green; a change to the API's
// surface made on purpose regenerates the copy in the same commit, and says why:
//
//   npx vitest run test/integration/api/openapi-snapshot.test.ts -u
//
// The copy is the served bytes laid out two spaces deep so that a diff reads; the test checks that
// laying out loses nothing (the served body is exactly the copy written back on one line).
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../../api/app.ts";
import { createServices, type Services } from "../../../api/services.ts";
import { loadConfig } from "../../../shared/config.ts";
import { createLogger } from "../../../shared/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";

let database: TestDatabase;
let services: Services;
let app: Awaited<ReturnType<typeof buildApp>>;

beforeAll(async () => {
  database = await createTestDatabase();
  // The default configuration, as `api/print-openapi.ts` (what Spectral lints) builds it.
  const config = loadConfig({
    DATA_DIR: "memory://",
    LOG_LEVEL: "silent",
    PUBLIC_URL: "https://api.example.com",
  });
  services = await createServices(config, createLogger("silent", "openapi-snapshot"), { db: database.db });
  app = await buildApp({ services });
});
afterAll(async () => {
  await app?.close();
  await services?.close();
  await database?.close();
});

it("serves the committed OpenAPI document, byte for byte", async () => {
  const response = await app.inject({ url: "/openapi.json" });
  expect(response.statusCode).toBe(200);
  const laidOut = `${JSON.stringify(JSON.parse(response.body), null, 2)}\n`;
  expect(JSON.stringify(JSON.parse(laidOut)), "the laid-out copy holds every served byte").toBe(
    response.body,
  );
  await expect(laidOut).toMatchFileSnapshot("./__snapshots__/openapi.json");
});
