import { randomUUID } from "node:crypto";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { migrateToLatest } from "../../shared/db/migrate.ts";
import { databaseUrl, withAdminClient } from "./postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/**
 * Builds a migrated template database once per run; each test file clones it. The name is unique
 * per run so that two runs on one machine never drop each other's template.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const template = `lead_api_template_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await withAdminClient((client) => client.query(`create database ${template}`));
  const db = new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl(template), max: 1 }) }),
  });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  project.provide("templateDatabase", template);
  return async () => {
    await withAdminClient((client) => client.query(`drop database if exists ${template} with (force)`));
  };
}
