import { createDatabase, type Db } from "../../shared/db/database.ts";
import { migrateToLatest } from "../../shared/db/migrate.ts";
import { createDatabaseFromTemplate } from "./postgres.ts";

export type TestDatabaseKind = "postgres" | "pglite";

export interface TestDatabase {
  kind: TestDatabaseKind;
  db: Db;
  /** Set for PostgreSQL: child processes (workers, a second API node) connect with it. */
  url: string | undefined;
  close(): Promise<void>;
}

/** The backend this test project runs against: vitest's projects set TEST_DATABASE. */
function testDatabaseKind(): TestDatabaseKind {
  const kind = process.env.TEST_DATABASE ?? "postgres";
  if (kind !== "postgres" && kind !== "pglite")
    throw new Error(`TEST_DATABASE must be postgres or pglite, not ${kind}`);
  return kind;
}

/** The service's default timeouts (see shared/config.ts). */
const TEST_DATABASE_TIMEOUTS = { connectMs: 5_000, statementMs: 10_000, idleInTransactionMs: 10_000 };

/** A migrated database of its own: a template clone on PostgreSQL, an in-memory PGlite otherwise. */
export async function createTestDatabase(kind: TestDatabaseKind = testDatabaseKind()): Promise<TestDatabase> {
  if (kind === "pglite") {
    const db = await createDatabase({ kind: "pglite", dataDir: "memory://" });
    await migrateToLatest(db);
    return { kind, db, url: undefined, close: () => db.destroy() };
  }
  const database = await createDatabaseFromTemplate();
  const db = await createDatabase({ kind: "postgres", url: database.url, timeouts: TEST_DATABASE_TIMEOUTS });
  return {
    kind,
    db,
    url: database.url,
    async close() {
      await db.destroy();
      await database.drop();
    },
  };
}
