/**
 * A Redis server that one test owns (`redis-server --port N`, nothing on disk), for tests that
 * stop or restart Redis under a running service; the machine's shared Redis is never touched.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Redis } from "ioredis";
import { freePort } from "./owned-postgres.ts";

export interface OwnedRedis {
  readonly port: number;
  readonly url: string;
  /** Starts it (again, on the same port); resolves once it answers PING. */
  start(): Promise<void>;
  /** SIGKILL: connections drop at once, as in a crash. */
  stop(): Promise<void>;
}

export async function createOwnedRedis(): Promise<OwnedRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  const owned: OwnedRedis = {
    port,
    url,
    async start() {
      child = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        { stdio: "ignore" },
      );
      child.once("error", () => {});
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on("error", () => {});
      try {
        for (let attempt = 0; ; attempt++) {
          try {
            await probe.connect();
            await probe.ping();
            return;
          } catch (error) {
            if (attempt >= 100)
              throw new Error(`redis-server on port ${port} did not start`, { cause: error });
            probe.disconnect();
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      } finally {
        probe.disconnect();
      }
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      running.kill("SIGKILL");
      await once(running, "exit");
    },
  };
  return owned;
}
