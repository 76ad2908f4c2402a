import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { migrateToLatest } from "../../shared/db/migrate.ts";
import { databaseUrl, TEMPLATE_DATABASE, withAdminClient } from "./postgres.ts";

/** Builds the migrated template database once per run; each test file clones it. */
export default async function setup(): Promise<void> {
  await withAdminClient(async (client) => {
    await client.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`);
    await client.query(`create database ${TEMPLATE_DATABASE}`);
  });
  const db = new Kysely({
    dialect: new PostgresDialect({
      pool: new pg.Pool({ connectionString: databaseUrl(TEMPLATE_DATABASE), max: 1 }),
    }),
  });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}
