import { mkdir } from "node:fs/promises";
import path from "node:path";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Config } from "../config.ts";
import type { Database } from "./schema.ts";

export type Db = Kysely<Database>;

/**
 * Kysely over pg when a PostgreSQL URL is configured, else over embedded PGlite kept in
 * `dataDir` (or in memory with `memory://`, used by tests). Same SQL, same migrations.
 */
export async function createDatabase(database: Config["database"]): Promise<Db> {
  if (database.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: database.url, max: 10 });
    // An idle client losing its connection (server restart, failover) must not crash the process;
    // the pool replaces it and the next query reports any real problem.
    pool.on("error", () => {});
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  let dataDir: string | undefined;
  if (database.dataDir !== "memory://") {
    dataDir = path.resolve(database.dataDir, "pglite");
    await mkdir(dataDir, { recursive: true });
  }
  // Loaded only in embedded mode: PGlite's WASM costs a second or more to load, for nothing elsewhere.
  const [{ PGlite }, { PGliteDialect }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("kysely-pglite-dialect"),
  ]);
  const client = await PGlite.create(dataDir);
  return new Kysely<Database>({ dialect: new PGliteDialect(client) });
}
