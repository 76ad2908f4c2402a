/**
 * A PostgreSQL server that one test owns: its own cluster (initdb) in a temp folder, on a free
 * port, started and stopped with pg_ctl. Fault tests stop it, kill it, freeze it (SIGSTOP) and
 * terminate its backends; the machine's shared PostgreSQL is never touched.
 *
 * initdb refuses to run as root, so when the tests run as root the binaries run as the `postgres`
 * user (through `runuser`), in a folder that user owns.
 */

import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const exec = promisify(execFile);

/** The newest installed PostgreSQL's binaries (Debian keeps them out of PATH). */
function postgresBinDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(path.join(root, name, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (!newest) {
    throw new Error(
      "PostgreSQL's server binaries (initdb, pg_ctl) are not installed under /usr/lib/postgresql: the fault tests need them",
    );
  }
  return path.join(root, newest, "bin");
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

export interface OwnedPostgres {
  readonly port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  readonly adminUrl: string;
  /** A database URL on this server. */
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  start(): Promise<void>;
  /** pg_ctl stop: "fast" rolls back and disconnects clients, "immediate" is a crash. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: the server hangs without closing a socket. */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /** pg_terminate_backend on every client backend but the caller's; returns how many. */
  terminateBackends(database?: string): Promise<number>;
  query<T extends pg.QueryResultRow>(database: string, text: string, values?: unknown[]): Promise<T[]>;
  /** Stops the server (if running) and removes its folder. */
  destroy(): Promise<void>;
}

export async function createOwnedPostgres(): Promise<OwnedPostgres> {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const folder = await mkdtemp(path.join(tmpdir(), "lead-api-owned-pg-"));
  const dataDir = path.join(folder, "data");
  const logFile = path.join(folder, "server.log");
  if (asRoot) {
    await chmod(folder, 0o777);
    await exec("chown", ["postgres:postgres", folder]);
  }
  // By its path: /usr/sbin is not on every PATH (a CI environment may leave it out).
  const runuser = ["/usr/sbin/runuser", "/sbin/runuser"].find((file) => existsSync(file)) ?? "runuser";
  const run = (tool: string, args: string[]) =>
    asRoot
      ? exec(runuser, ["-u", "postgres", "--", path.join(bin, tool), ...args])
      : exec(path.join(bin, tool), args);

  await run("initdb", ["-D", dataDir, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${folder}`,
    "-c fsync=off",
    "-c max_connections=100",
  ].join(" ");

  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let running = false;
  let frozen = false;

  const postmasterPid = async (): Promise<number> => {
    const text = await readFile(path.join(dataDir, "postmaster.pid"), "utf8");
    return Number(text.split("\n")[0]);
  };
  const clusterPids = async (): Promise<number[]> => {
    const pid = await postmasterPid();
    const { stdout } = await exec("ps", ["-o", "pid=", "--ppid", String(pid)]).catch(() => ({ stdout: "" }));
    return [
      pid,
      ...stdout
        .split("\n")
        .map(Number)
        .filter((n) => n > 0),
    ];
  };
  const signalCluster = async (signal: NodeJS.Signals) => {
    for (const pid of await clusterPids()) {
      try {
        process.kill(pid, signal);
      } catch {
        // A backend that just exited.
      }
    }
  };

  const owned: OwnedPostgres = {
    port,
    adminUrl,
    url,
    async createDatabase(name) {
      await owned.query("postgres", `create database ${name}`);
      return url(name);
    },
    async start() {
      try {
        await run("pg_ctl", ["-D", dataDir, "-l", logFile, "-o", options, "-w", "-t", "30", "start"]);
      } catch (error) {
        const log = await readFile(logFile, "utf8").catch(() => "");
        throw new Error(`the test's PostgreSQL did not start:\n${log.slice(-2000)}`, { cause: error });
      }
      running = true;
    },
    async stop(mode = "fast") {
      if (frozen) await owned.thaw();
      await run("pg_ctl", ["-D", dataDir, "-m", mode, "-w", "-t", "30", "stop"]);
      running = false;
    },
    async freeze() {
      await signalCluster("SIGSTOP");
      frozen = true;
    },
    async thaw() {
      await signalCluster("SIGCONT");
      frozen = false;
    },
    async terminateBackends(database) {
      const rows = await owned.query<{ terminated: boolean }>(
        "postgres",
        `select pg_terminate_backend(pid) as terminated from pg_stat_activity
          where pid <> pg_backend_pid() and backend_type = 'client backend'
            and ($1::text is null or datname = $1)`,
        [database ?? null],
      );
      return rows.filter((row) => row.terminated).length;
    },
    async query(database, text, values) {
      const client = new pg.Client({ connectionString: url(database) });
      await client.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        await client.end();
      }
    },
    async destroy() {
      if (running) await owned.stop("immediate").catch(() => {});
      await rm(folder, { recursive: true, force: true });
    },
  };
  return owned;
}
