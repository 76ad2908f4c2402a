import { Worker } from "node:worker_threads";
import type { AuditStageLabel } from "../metrics.ts";
import type { AuditTarget } from "./audit-site.ts";
import { sharedAddressMemory } from "./fetch-politeness.ts";
import type { CheckSite } from "./run-audit.ts";
import type { SiteCheckSettings, SiteCheckUsage } from "./site-check.ts";
import type { SiteAudit } from "./types.ts";

/** What a fetch loop's thread starts from (its `workerData`). */
export interface FetchLoopStart {
  settings: SiteCheckSettings;
  /** The per-IP politeness counts, shared by every loop of the process. */
  addressMemory: SharedArrayBuffer;
  lazyPool: boolean;
}

export type FetchLoopRequest =
  | { kind: "check"; id: number; target: AuditTarget }
  | { kind: "usage"; id: number }
  | { kind: "close" };

export type FetchLoopReply =
  | { kind: "checked"; id: number; audit: SiteAudit; stages: [AuditStageLabel, number][] }
  | { kind: "failed"; id: number; message: string }
  | { kind: "usage"; id: number; usage: SiteCheckUsage }
  | { kind: "ready" }
  | { kind: "closed" };

export interface FetchLoops {
  check: CheckSite;
  /** Loops of this process. */
  readonly count: number;
  /** Settles when every loop has loaded its code and can take checks; rejects if one stopped first. */
  readonly ready: Promise<void>;
  /** Every loop's usage added up (loops that do not answer within a second are left out). */
  usage(): Promise<SiteCheckUsage>;
  /** Waits for the checks in progress, then stops every loop. */
  close(): Promise<void>;
}

const THREAD_FILE = new URL("./fetch-loop-thread.ts", import.meta.url);
const USAGE_TIMEOUT_MS = 1_000;

/**
 * Several event loops for fetching (Audit capacity in DESIGN): `count` threads, each running the
 * site checks it is sent with its own connection pool, DNS cache, analysis pool and share of the
 * memory budget, so that the undici, TLS and stream work of hundreds of fetches at once is spread
 * over several loops instead of the process's one, which keeps only the queue and the cache writes.
 *
 * A site always goes to the same loop (by its hostname), so each loop's per-hostname politeness
 * holds for the process; the per-IP counts are shared by all loops in memory. A loop that stops
 * (a bug, not a site: sites end as failed audits) fails the checks it held and is started again.
 */
export function startFetchLoops(
  settings: SiteCheckSettings,
  count: number,
  options: { lazyPool?: boolean } = {},
): FetchLoops {
  if (!Number.isInteger(count) || count < 1) throw new Error(`invalid fetch loop count: ${count}`);
  const set: LoopSet = {
    start: {
      settings: { ...settings, memoryBudgetBytes: Math.floor(settings.memoryBudgetBytes / count) },
      addressMemory: sharedAddressMemory(),
      lazyPool: options.lazyPool ?? false,
    },
    loops: [],
    closing: false,
    nextId: 1,
  };
  set.loops = Array.from({ length: count }, (_, index) => startLoop(set, index));

  return {
    count,
    ready: Promise.all(set.loops.map((loop) => loop.ready)).then(() => {}),
    async check(target, onStage) {
      if (set.closing) throw new Error("the fetch loops are closed");
      const reply = await ask(set, loopOf(target, count), { kind: "check", id: set.nextId++, target });
      if (reply.kind === "failed") throw new Error(reply.message);
      if (reply.kind !== "checked") throw new Error(`unexpected fetch loop reply: ${reply.kind}`);
      for (const [stage, seconds] of reply.stages) onStage?.(stage, seconds);
      return reply.audit;
    },
    usage: () => usageOfLoops(set),
    close: () => closeLoops(set),
  };
}

type Waiting = { resolve: (reply: FetchLoopReply) => void; reject: (error: Error) => void };

/** One loop: its thread, the requests waiting on its replies, and its ends. */
interface FetchLoop {
  worker: Worker;
  waiting: Map<number, Waiting>;
  exited: Promise<number>;
  ready: Promise<void>;
}

/** The loops of the process and what they share. */
interface LoopSet {
  start: FetchLoopStart;
  /** By index; a loop that stopped is replaced at its index. */
  loops: FetchLoop[];
  closing: boolean;
  /** The id of the next request (replies name the request they answer). */
  nextId: number;
}

/** Starts loop `index`: its replies go to their requests; when it stops, its requests fail and it starts again. */
function startLoop(set: LoopSet, index: number): FetchLoop {
  const worker = new Worker(THREAD_FILE, { workerData: set.start, name: `fetch-loop-${index + 1}` });
  const waiting = new Map<number, Waiting>();
  const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
  const ready = new Promise<void>((resolve, reject) => {
    worker.on("message", (reply: FetchLoopReply) => {
      if (reply.kind === "ready") resolve();
    });
    void exited.then((code) =>
      reject(new Error(`fetch loop ${index + 1} stopped before it was ready (exit ${code})`)),
    );
  });
  ready.catch(() => {});
  const loop = { worker, waiting, exited, ready };
  worker.on("message", (reply: FetchLoopReply) => {
    if (reply.kind === "closed" || reply.kind === "ready") return;
    const entry = waiting.get(reply.id);
    if (entry === undefined) return;
    waiting.delete(reply.id);
    entry.resolve(reply);
  });
  worker.on("error", () => {}); // its exit follows, handled there
  worker.once("exit", (code) => {
    for (const entry of waiting.values())
      entry.reject(new Error(`fetch loop ${index + 1} stopped (exit ${code})`));
    waiting.clear();
    if (!set.closing) set.loops[index] = startLoop(set, index);
  });
  return loop;
}

function ask(
  set: LoopSet,
  index: number,
  request: FetchLoopRequest & { id: number },
): Promise<FetchLoopReply> {
  const loop = set.loops[index];
  if (loop === undefined) return Promise.reject(new Error(`no fetch loop ${index}`));
  return new Promise<FetchLoopReply>((resolve, reject) => {
    loop.waiting.set(request.id, { resolve, reject });
    loop.worker.postMessage(request);
  });
}

async function usageOfLoops(set: LoopSet): Promise<SiteCheckUsage> {
  const total: SiteCheckUsage = {
    fetchesInFlight: 0,
    fetchesWaiting: 0,
    memoryBytes: 0,
    memoryLimitBytes: 0,
    memoryWaiting: 0,
  };
  const replies = await Promise.all(
    set.loops.map((_, index) => {
      const id = set.nextId++;
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([
        ask(set, index, { kind: "usage", id }).catch(() => undefined),
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => {
            set.loops[index]?.waiting.delete(id);
            resolve(undefined);
          }, USAGE_TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    }),
  );
  for (const reply of replies) {
    if (reply?.kind !== "usage") continue;
    for (const key of Object.keys(total) as (keyof SiteCheckUsage)[]) total[key] += reply.usage[key];
  }
  return total;
}

async function closeLoops(set: LoopSet): Promise<void> {
  set.closing = true;
  const { loops } = set;
  // Checks in progress end first (each within its fetch deadline); then each loop closes its pool.
  await Promise.allSettled(
    loops.flatMap((loop) =>
      [...loop.waiting.values()].map(
        (entry) =>
          new Promise<void>((settled) => {
            const { resolve, reject } = entry;
            entry.resolve = (reply) => {
              resolve(reply);
              settled();
            };
            entry.reject = (error) => {
              reject(error);
              settled();
            };
          }),
      ),
    ),
  );
  for (const loop of loops) loop.worker.postMessage({ kind: "close" } satisfies FetchLoopRequest);
  await Promise.all(loops.map((loop) => loop.exited));
}

/** The loop of a site: by its hostname (FNV-1a), so that one host is always fetched by one loop. */
export function loopOf(target: Pick<AuditTarget, "url">, count: number): number {
  let host: string;
  try {
    host = new URL(target.url).hostname.toLowerCase();
  } catch {
    return 0;
  }
  let hash = 0x811c9dc5;
  for (let index = 0; index < host.length; index++) {
    hash ^= host.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}
