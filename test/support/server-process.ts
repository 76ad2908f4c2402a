/**
 * The real API server process (`node api/server.ts`) for tests that need what only a process has:
 * its stdout (pino JSON logs), signals (SIGTERM) and its exit code. It listens on a free port
 * (PORT 0) and is ready once Fastify logs the address it listens on.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { collectLogLines, type ProcessLogLine } from "./process-logs.ts";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SERVER_SCRIPT = "api/server.ts";

type ServerLogLine = ProcessLogLine;

interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  readonly pid: number;
  /** e.g. http://127.0.0.1:41234 */
  readonly baseUrl: string;
  readonly port: number;
  readonly logs: readonly ServerLogLine[];
  /** Settles when the process has exited and its output has been read to the end. */
  readonly exited: Promise<ServerExit>;
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit. */
  stop(graceMs?: number): Promise<ServerExit>;
  /** Everything written to stdout and stderr, for greps and failure messages. */
  output(): string;
}

/** Node 24 (type stripping): this process when it is one, else the repository's own node. */
function nodeBinary(): string {
  const major = Number(process.versions.node.split(".")[0]);
  return major >= 24 ? process.execPath : `${REPO_ROOT}node_modules/.bin/node`;
}

const running = new Set<ServerProcess>();

/**
 * Another start command than `node api/server.ts` (e.g. the image's `npm start` in a staged image
 * folder). It runs in a process group of its own: SIGTERM goes to the command's process only (as
 * tini, PID 1 of the image, sends it), SIGKILL to the whole group, so that no grandchild survives.
 */
export interface ProcessCommand {
  file: string;
  args: string[];
  cwd: string;
}

/** Sends `signal` to the child (SIGKILL: to its whole group when it leads one). */
export function signalChild(child: ChildProcess, signal: NodeJS.Signals, ownGroup: boolean): void {
  if (ownGroup && signal === "SIGKILL" && child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
      return;
    } catch {
      // The group is gone already: fall through to the child itself.
    }
  }
  child.kill(signal);
}

/**
 * Starts the server with exactly `env` (plus PATH and HOME; nothing else of this process's
 * environment leaks in; PATH in `env` wins), PORT 0 and HOST 127.0.0.1 unless given, and waits
 * until it listens.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: { readyTimeoutMs?: number; command?: ProcessCommand } = {},
): Promise<ServerProcess> {
  const { command } = options;
  const child: ChildProcess = spawn(command?.file ?? nodeBinary(), command?.args ?? [SERVER_SCRIPT], {
    cwd: command?.cwd ?? REPO_ROOT,
    detached: command !== undefined,
    env: {
      PATH: process.env.PATH ?? "",
      ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) {
    const error = await new Promise<Error>((resolve) => child.once("error", resolve));
    throw new Error(`could not start ${command?.file ?? nodeBinary()}: ${error.message}`);
  }
  const pid = child.pid;
  const logs: ServerLogLine[] = [];
  const listeners = new Set<() => void>();

  collectLogLines(child, (line) => {
    logs.push(line);
    for (const listener of listeners) listener();
  });

  let exit: ServerExit | null = null;
  // "close" comes after both pipes ended: every line is in `logs` by then.
  const exited = new Promise<ServerExit>((resolve) => {
    child.once("close", (code, signal) => {
      exit = { code, signal };
      resolve(exit);
      for (const listener of listeners) listener();
    });
  });
  const output = () => logs.map((line) => `[${line.stream}] ${line.raw}`).join("\n");
  const kill = (signal: NodeJS.Signals) => {
    if (exit === null) signalChild(child, signal, command !== undefined);
  };

  const listening = /Server listening at (http:\/\/127\.0\.0\.1:(\d+))/;
  const address = await new Promise<{ baseUrl: string; port: number }>((resolve, reject) => {
    const check = () => {
      for (const line of logs) {
        const match = typeof line.json?.msg === "string" ? listening.exec(line.json.msg) : null;
        if (match?.[1] && match[2]) {
          done();
          resolve({ baseUrl: match[1], port: Number(match[2]) });
          return;
        }
      }
      if (exit) {
        done();
        reject(new Error(`the server exited (code ${exit.code}) before listening\n${output()}`));
      }
    };
    const timer = setTimeout(() => {
      done();
      kill("SIGKILL");
      reject(
        new Error(`the server did not listen within ${options.readyTimeoutMs ?? 30_000} ms\n${output()}`),
      );
    }, options.readyTimeoutMs ?? 30_000);
    const done = () => {
      clearTimeout(timer);
      listeners.delete(check);
    };
    listeners.add(check);
    check();
  });

  const server: ServerProcess = {
    pid,
    ...address,
    logs,
    exited,
    kill,
    async stop(graceMs = 10_000) {
      if (exit) return exit;
      kill("SIGTERM");
      const timer = setTimeout(() => kill("SIGKILL"), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
    output,
  };
  running.add(server);
  void exited.then(() => running.delete(server));
  return server;
}

// A test runner that exits with a server still running must not leave it behind.
process.once("exit", () => {
  for (const server of running) server.kill("SIGKILL");
});
