import { parentPort, workerData } from "node:worker_threads";
import type { AuditStageLabel } from "../metrics.ts";
import type { FetchLoopReply, FetchLoopRequest, FetchLoopStart } from "./fetch-loops.ts";
import { createLocalSiteCheck } from "./site-check.ts";

/**
 * One fetch loop: a thread with its own event loop that runs the site checks it is sent (fetch,
 * https check, analysis on its own pool, mail DNS) and answers each with its audit. Loaded by plain
 * Node (type stripping): this file and its imports use only erasable TypeScript.
 */
const port = parentPort;
if (port === null) throw new Error("fetch-loop-thread.ts runs as a worker thread (fetch-loops.ts)");
const start = workerData as FetchLoopStart;
const local = createLocalSiteCheck(start.settings, {
  addressMemory: start.addressMemory,
  ...(start.lazyPool ? { lazyPool: true } : {}),
});

const reply = (message: FetchLoopReply) => port.postMessage(message);
reply({ kind: "ready" });

port.on("message", (request: FetchLoopRequest) => {
  if (request.kind === "check") {
    const stages: [AuditStageLabel, number][] = [];
    local
      .check(request.target, (stage, seconds) => stages.push([stage, seconds]))
      .then(
        (audit) => reply({ kind: "checked", id: request.id, audit, stages }),
        (error: unknown) =>
          reply({
            kind: "failed",
            id: request.id,
            message: error instanceof Error ? error.message : String(error),
          }),
      );
  } else if (request.kind === "usage") {
    reply({ kind: "usage", id: request.id, usage: local.usage() });
  } else {
    void local.close().finally(() => {
      reply({ kind: "closed" });
      port.close();
    });
  }
});
