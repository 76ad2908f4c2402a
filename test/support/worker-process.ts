/**
 * Real audit worker processes (`node workers/audit-worker.ts`) for tests and benchmarks: started
 * with an environment of the caller's choosing, ready once they log "audit worker ready", with
 * their logs captured, killable with any signal, and their exit awaited.
 *
 * Every process started here is remembered until it exits: `stopAllWorkers()` (afterEach /
 * afterAll) ends the ones a failed test left behind, and an exit hook SIGKILLs any survivor.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { collectLogLines } from "./process-logs.ts";
import { type ProcessCommand, signalChild } from "./server-process.ts";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WORKER_SCRIPT = "workers/audit-worker.ts";

/** One line the worker wrote: pino JSON when it parses, the raw text in any case. */
interface WorkerLogLine {
  stream: "stdout" | "stderr";
  raw: string;
  /** The parsed pino object; undefined for a line that is not JSON. */
  json: Record<string, unknown> | undefined;
  /** `json.msg` when present. */
  msg: string | undefined;
}

interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface WorkerProcess {
  readonly pid: number;
  /** A name of the caller's choosing, shown in error messages. */
  readonly name: string;
  /** Every line written so far, in order. */
  readonly logs: readonly WorkerLogLine[];
  /** Null while the process runs. */
  readonly exit: WorkerExit | null;
  /** Settles when the process has exited (never rejects). */
  readonly exited: Promise<WorkerExit>;
  /** Resolves with the first line (already written or to come) that matches; rejects on timeout or exit. */
  waitForLog(match: string | ((line: WorkerLogLine) => boolean), timeoutMs?: number): Promise<WorkerLogLine>;
  /** Lines whose message is `msg`. */
  linesWith(msg: string): WorkerLogLine[];
  /** Sends a signal (no-op once exited). */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if still running after `graceMs`; resolves with the exit. */
  stop(graceMs?: number): Promise<WorkerExit>;
  /** All output as text, for failure messages. */
  output(): string;
}

export interface StartWorkerOptions {
  /** Label for messages. Default "audit-worker". */
  name?: string;
  /** How long to wait for "audit worker ready". Default 20 000 ms. */
  readyTimeoutMs?: number;
  /** Another start command than `node workers/audit-worker.ts` (see ProcessCommand). */
  command?: ProcessCommand;
}

const running = new Set<WorkerProcess>();

/** Node 24 (type stripping): this process when it is one, else the repository's own node. */
export function nodeBinary(): string {
  const major = Number(process.versions.node.split(".")[0]);
  return major >= 24 ? process.execPath : `${REPO_ROOT}node_modules/.bin/node`;
}

/**
 * Starts one audit worker and waits until it is ready. `env` is the worker's whole configuration
 * (DATABASE_URL, REDIS_URL, QUEUE_PREFIX, ...): nothing of this process's environment leaks in
 * but PATH and HOME. LOG_LEVEL defaults to "info", the level of the lines tests wait for, and
 * WORKER_METRICS_PORT to 0 (a free port), so that workers started side by side do not collide.
 */
export async function startAuditWorker(
  env: Record<string, string>,
  options: StartWorkerOptions = {},
): Promise<WorkerProcess> {
  const name = options.name ?? "audit-worker";
  if (env.LOG_LEVEL && !["info", "debug", "trace"].includes(env.LOG_LEVEL)) {
    throw new Error(
      `${name}: LOG_LEVEL ${env.LOG_LEVEL} hides the "audit worker ready" line; use info or lower`,
    );
  }
  const { command } = options;
  const child: ChildProcess = spawn(command?.file ?? nodeBinary(), command?.args ?? [WORKER_SCRIPT], {
    cwd: command?.cwd ?? REPO_ROOT,
    detached: command !== undefined,
    env: {
      PATH: process.env.PATH ?? "",
      ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
      LOG_LEVEL: "info",
      // Several workers share this machine: each takes a free port for its metrics endpoint.
      WORKER_METRICS_PORT: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) {
    // spawn reports ENOENT and the like through an "error" event.
    const error = await new Promise<Error>((resolve) => child.once("error", resolve));
    throw new Error(`${name}: could not start ${command?.file ?? nodeBinary()}: ${error.message}`);
  }
  const pid = child.pid;

  const logs: WorkerLogLine[] = [];
  const listeners = new Set<(line: WorkerLogLine) => void>();
  let exit: WorkerExit | null = null;
  const exitListeners = new Set<(exit: WorkerExit) => void>();

  // "close", not "exit": it comes once the pipes are drained, so every line is in `logs` by then.
  const exited = new Promise<WorkerExit>((resolve) => {
    child.once("close", (code, signal) => {
      exit = { code, signal };
      resolve(exit);
      for (const listener of exitListeners) listener(exit);
    });
  });

  collectLogLines(child, ({ stream, raw, json }) => {
    const line: WorkerLogLine = {
      stream,
      raw,
      json,
      msg: typeof json?.msg === "string" ? json.msg : undefined,
    };
    logs.push(line);
    for (const listener of listeners) listener(line);
  });

  const output = () => logs.map((line) => `[${name} ${line.stream}] ${line.raw}`).join("\n");

  const waitForLog: WorkerProcess["waitForLog"] = (match, timeoutMs = 20_000) => {
    const test = typeof match === "string" ? (line: WorkerLogLine) => line.msg === match : match;
    const found = logs.find(test);
    if (found) return Promise.resolve(found);
    return new Promise<WorkerLogLine>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        listeners.delete(onLine);
        exitListeners.delete(onExit);
      };
      const onLine = (line: WorkerLogLine) => {
        if (!test(line)) return;
        done();
        resolve(line);
      };
      const onExit = (info: WorkerExit) => {
        done();
        reject(
          new Error(
            `${name} (pid ${pid}) exited (code ${info.code}, signal ${info.signal}) before logging ${describeMatch(match)}\n${output()}`,
          ),
        );
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(`${name} (pid ${pid}): no ${describeMatch(match)} within ${timeoutMs} ms\n${output()}`),
        );
      }, timeoutMs);
      listeners.add(onLine);
      if (exit) onExit(exit);
      else exitListeners.add(onExit);
    });
  };

  const kill = (signal: NodeJS.Signals) => {
    if (exit === null) signalChild(child, signal, command !== undefined);
  };

  const worker: WorkerProcess = {
    pid,
    name,
    logs,
    get exit() {
      return exit;
    },
    exited,
    waitForLog,
    linesWith: (msg) => logs.filter((line) => line.msg === msg),
    kill,
    async stop(graceMs = 10_000) {
      if (exit) return exit;
      kill("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          kill("SIGKILL");
          resolve();
        }, graceMs);
      });
      await Promise.race([exited, forced]);
      clearTimeout(timer);
      return exited;
    },
    output,
  };
  running.add(worker);
  void exited.then(() => running.delete(worker));

  try {
    await waitForLog("audit worker ready", options.readyTimeoutMs ?? 20_000);
  } catch (error) {
    kill("SIGKILL");
    await exited;
    throw error;
  }
  return worker;
}

/** Ends every worker still running (SIGTERM, then SIGKILL after `graceMs`). */
export async function stopAllWorkers(graceMs = 5_000): Promise<void> {
  await Promise.all([...running].map((worker) => worker.stop(graceMs)));
}

function describeMatch(match: string | ((line: WorkerLogLine) => boolean)): string {
  return typeof match === "string" ? `"${match}" log line` : "matching log line";
}

// Last resort: a test runner that exits with workers still running must not leave them behind.
process.once("exit", () => {
  for (const worker of running) worker.kill("SIGKILL");
});
