import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import type { Config } from "../config.ts";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.ts";
import { createDatabase, type Db } from "./database.ts";
import { migrateToLatest } from "./migrate.ts";

/** A dependency that did not come up in time, or a data folder in use: the process cannot start. */
export class StartupError extends Error {
  override name = "StartupError";
}

interface StartupLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface OpenedDatabase {
  db: Db;
  /** Destroys the pool (or PGlite) and releases the data folder. */
  close(): Promise<void>;
}

/**
 * Opens the service's database as a starting process needs it: the embedded data folder locked to
 * this process, PostgreSQL waited for (a bounded, logged retry), then the migrations applied. On
 * PostgreSQL, Kysely's migrator holds an advisory lock while it migrates, so nodes starting together
 * migrate one at a time and the others find the work done.
 */
export async function openDatabase(
  config: Pick<Config, "database" | "startupWaitMs">,
  logger: StartupLogger,
  onWaiting?: (what: string) => void,
): Promise<OpenedDatabase> {
  const { database } = config;
  let lock: DataDirLock | undefined;
  if (database.kind === "pglite" && database.dataDir !== "memory://") {
    try {
      lock = await acquireDataDirLock(database.dataDir);
    } catch (error) {
      throw new StartupError(error instanceof Error ? error.message : String(error), { cause: error });
    }
  }
  try {
    const db = await createDatabase(database, {
      onConnectionError: (error) =>
        logger.warn({ err: error }, "database connection lost; the pool replaces it"),
    });
    try {
      if (database.kind === "postgres") {
        await waitFor(
          `PostgreSQL at ${describeUrl(database.url)}`,
          config.startupWaitMs,
          logger,
          async () => {
            await sql`select 1`.execute(db);
          },
          onWaiting,
        );
      }
      const applied = await migrateToLatest(db);
      if (applied.length > 0) logger.info({ migrations: applied }, "migrations applied");
    } catch (error) {
      await db.destroy().catch(() => {});
      throw error;
    }
    return {
      db,
      async close() {
        await db.destroy();
        await lock?.release();
      },
    };
  } catch (error) {
    await lock?.release();
    throw error;
  }
}

/**
 * Calls `check` until it succeeds, logging one line per failed attempt naming what is missing, for at
 * most `waitMs`; then throws a StartupError with a one-line reason.
 */
export async function waitFor(
  what: string,
  waitMs: number,
  logger: StartupLogger,
  check: () => Promise<void>,
  onWaiting?: (what: string) => void,
): Promise<void> {
  onWaiting?.(what);
  const giveUpAt = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      await check();
      if (attempt > 1) logger.info({ dependency: what, attempt }, `${what} is up`);
      return;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const pause = Math.min(500 * 2 ** (attempt - 1), 5_000);
      if (Date.now() + pause > giveUpAt) {
        throw new StartupError(`${what} did not answer within ${Math.round(waitMs / 1000)} s: ${reason}`, {
          cause: error,
        });
      }
      logger.warn({ dependency: what, attempt, reason, retry_in_ms: pause }, `waiting for ${what}`);
      await sleep(pause);
    }
  }
}

/** host:port/database of a connection URL, without its credentials (it goes into logs). */
export function describeUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname}`;
}
