import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import type { Logger } from "pino";
import { buildApp } from "../../api/app.ts";
import { createServices, type ServiceOverrides, type Services } from "../../api/services.ts";
import { type Config, loadConfig } from "../../shared/config.ts";
import type { Db } from "../../shared/db/database.ts";
import { createLogger } from "../../shared/logger.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

/** The per-address and per-workspace-hour limits set out of reach (tests and benches opt in). */
export const UNLIMITED_ABUSE_GUARDS = {
  RATE_LIMIT_OAUTH_REGISTER_PER_MIN: "1000000",
  RATE_LIMIT_OAUTH_PER_MIN: "1000000",
  RATE_LIMIT_ADMIN_FAILURES_PER_MIN: "1000000",
  COST_PROVIDER_PAGES_PER_HOUR: "1000000",
  COST_PROVIDER_PAGES_PER_HOUR_FREE_TRIAL: "1000000",
  COST_LIVE_CHECKS_PER_HOUR: "1000000",
  COST_LIVE_CHECKS_PER_HOUR_FREE_TRIAL: "1000000",
  COST_DRAFT_ATTEMPTS_PER_HOUR: "1000000",
  COST_DRAFT_ATTEMPTS_PER_HOUR_FREE_TRIAL: "1000000",
} as const;

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  database: TestDatabase;
  config: Config;
  close(): Promise<void>;
}

/** Where the app and its services log (silent unless a test reads the lines). */
export interface AppLogOptions {
  logger?: Logger;
}

export interface SiblingApp {
  app: FastifyInstance;
  services: Services;
  config: Config;
  /** Closes the app and its services; the database stays open (its owner closes it). */
  close(): Promise<void>;
}

/**
 * One more app (one more "API node") on an existing database, with its own config: its own rate
 * limiter, provider and settings. Starting PGlite again would cost seconds; sharing it is free.
 */
export async function startSiblingApp(
  db: Db,
  env: Record<string, string> = {},
  overrides: Omit<ServiceOverrides, "db"> = {},
  options: AppLogOptions = {},
): Promise<SiblingApp> {
  // Every test drives /oauth and /admin from 127.0.0.1, and many search one workspace far more than
  // an hour's cost limits allow: per-address and cost limits apply only where a test sets them.
  const config = loadConfig({ ADMIN_TOKEN, LOG_LEVEL: "silent", ...UNLIMITED_ABUSE_GUARDS, ...env });
  const services = await createServices(config, options.logger ?? createLogger("silent", "test"), {
    ...overrides,
    db,
  });
  const app = await buildApp({ services, ...(options.logger ? { logger: options.logger } : {}) });
  await app.ready();
  return {
    app,
    services,
    config,
    async close() {
      await app.close();
      await services.close();
    },
  };
}

/** The real app on a database of its own, driven with `inject` (Fastify's own HTTP simulation). */
export async function startTestApp(
  env: Record<string, string> = {},
  overrides: Omit<ServiceOverrides, "db"> = {},
  options: AppLogOptions = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const sibling = await startSiblingApp(database.db, env, overrides, options);
  return {
    ...sibling,
    database,
    async close() {
      await sibling.close();
      await database.close();
    },
  };
}

export interface TestWorkspace {
  workspaceId: string;
  memberId: string;
  keyId: string;
  key: string;
  auth: { authorization: string };
}

export async function adminRequest(
  app: FastifyInstance,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  url: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/** A workspace with one member and one API key, created through the admin API. */
export async function createWorkspace(
  app: FastifyInstance,
  input: { name?: string; language?: "en" | "fr" } = {},
): Promise<TestWorkspace> {
  const workspace = await adminRequest(app, "POST", "/admin/workspaces", {
    name: input.name ?? "Test agency",
    ...input,
  });
  if (workspace.statusCode !== 201) throw new Error(`workspace: ${workspace.statusCode} ${workspace.body}`);
  const workspaceId = workspace.json().id as string;
  const member = await adminRequest(app, "POST", `/admin/workspaces/${workspaceId}/members`, {
    email: `owner-${workspaceId.slice(0, 8)}@agency.test`,
  });
  const memberId = member.json().id as string;
  const key = await adminRequest(app, "POST", `/admin/workspaces/${workspaceId}/api-keys`, {
    name: "server",
    created_by: memberId,
  });
  if (key.statusCode !== 201) throw new Error(`key: ${key.statusCode} ${key.body}`);
  const { id: keyId, key: plaintext } = key.json() as { id: string; key: string };
  return { workspaceId, memberId, keyId, key: plaintext, auth: { authorization: `Bearer ${plaintext}` } };
}
