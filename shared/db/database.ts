import { AsyncLocalStorage } from "node:async_hooks";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import {
  Kysely,
  type PostgresCursor,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
} from "kysely";
import pg from "pg";
import type { Config, DatabaseTimeouts } from "../config.ts";
import type { Database } from "./schema.ts";

export type Db = Kysely<Database>;

export interface DatabaseOptions {
  /** Told about connections lost while idle or in use; the pool replaces them, requests see a 500. */
  onConnectionError?: (error: Error) => void;
}

/** Raised when the database did not answer within a timeout or a caller's deadline. */
class DatabaseTimeoutError extends Error {
  override name = "DatabaseTimeoutError";
}

const deadlines = new AsyncLocalStorage<number>();

/**
 * Runs `work` with every database call inside it bounded by `deadline` (epoch ms) as well as by
 * the usual timeouts: waiting for a connection and each statement give up when it passes. A search
 * uses it so that its answer comes within its budget whatever PostgreSQL does. No effect on PGlite,
 * which runs in this process.
 */
export function withDatabaseDeadline<T>(deadline: number, work: () => Promise<T>): Promise<T> {
  const outer = deadlines.getStore();
  return deadlines.run(outer === undefined ? deadline : Math.min(outer, deadline), work);
}

/** Runs `work` free of any caller's deadline: background work that outlives the request. */
export function withoutDatabaseDeadline<T>(work: () => Promise<T>): Promise<T> {
  return deadlines.exit(work);
}

/**
 * Kysely over pg when a PostgreSQL URL is configured, else over embedded PGlite kept in
 * `dataDir` (or in memory with `memory://`, used by tests). Same SQL, same migrations.
 */
export async function createDatabase(
  database: Config["database"],
  options: DatabaseOptions = {},
): Promise<Db> {
  if (database.kind === "postgres") {
    return new Kysely<Database>({
      dialect: new PostgresDialect({ pool: createGuardedPool(database.url, database.timeouts, options) }),
    });
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

/**
 * A pg pool that a lost connection never takes down with it, and that never waits forever:
 * - pg emits `error` on a client whose connection drops (a PostgreSQL restart, failover,
 *   `pg_terminate_backend`); the pool listens only while a client is idle, and an `error` with no
 *   listener kills the process. Every client gets a listener for its whole life; the query in
 *   flight fails on its own (the request answers 500) and the pool drops the client on release.
 * - The server ends slow statements and stalled transactions; the client gives up on a server that
 *   does not answer at all (frozen, or a network that drops packets) and destroys that connection,
 *   since a reply may still arrive on it later.
 */
function createGuardedPool(url: string, timeouts: DatabaseTimeouts, options: DatabaseOptions): PostgresPool {
  const report = (error: Error) => options.onConnectionError?.(error);
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    keepAlive: true,
  });
  pool.on("error", report);
  pool.on("connect", (client) => client.on("error", report));

  const guarded = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const guard = (client: pg.PoolClient): PostgresPoolClient => {
    let broken = false;
    async function run(text: string, parameters: readonly unknown[]): Promise<pg.QueryResult> {
      // After a timeout, even the transaction's ROLLBACK must not wait on this connection again.
      if (broken) throw new DatabaseTimeoutError("the connection was abandoned after a timeout");
      const timeout = remainingMs(timeouts.statementMs);
      if (timeout <= 0) throw new DatabaseTimeoutError("the request's deadline passed");
      // `query_timeout` per query is read by pg at run time but missing from its types.
      const query: pg.QueryConfig & { query_timeout: number } = {
        text,
        values: [...parameters],
        query_timeout: timeout,
      };
      try {
        return await client.query(query);
      } catch (error) {
        if (error instanceof Error && /Query read timeout/.test(error.message)) {
          broken = true;
          throw new DatabaseTimeoutError(`the database did not answer within ${timeout} ms`, {
            cause: error,
          });
        }
        throw error;
      }
    }
    function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
    function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
    function query(sql: string | object, parameters: ReadonlyArray<unknown> = []): unknown {
      // Kysely passes a cursor only when the dialect is given a cursor class, which this one is not.
      if (typeof sql !== "string") throw new Error("streaming cursors are not configured");
      return run(sql, parameters);
    }
    return {
      query,
      release() {
        // A connection whose statement timed out on our side may still receive that statement's
        // reply: never hand it to another request.
        client.release(broken || undefined);
      },
    };
  };

  return {
    async connect() {
      const timeout = remainingMs(timeouts.connectMs);
      if (timeout <= 0) throw new DatabaseTimeoutError("the request's deadline passed");
      const pending = pool.connect();
      let timer: NodeJS.Timeout | undefined;
      try {
        const client = await Promise.race([
          pending,
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new DatabaseTimeoutError(`no database connection within ${timeout} ms`)),
              timeout,
            );
          }),
        ]);
        let wrapper = guarded.get(client);
        if (!wrapper) {
          wrapper = guard(client);
          guarded.set(client, wrapper);
        }
        return wrapper;
      } catch (error) {
        // Given up on: a connection that arrives later goes straight back to the pool.
        pending.then(
          (client) => client.release(),
          () => {},
        );
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
    end: () => pool.end(),
  };
}

/** The lower of a timeout and what is left of the caller's deadline (if any). */
function remainingMs(timeoutMs: number): number {
  const deadline = deadlines.getStore();
  return deadline === undefined ? timeoutMs : Math.min(timeoutMs, Math.floor(deadline - Date.now()));
}
