import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import type { FetchMemoryBudget } from "./fetch-politeness.ts";
import type { AnalyzeInput, AnalyzeOutput } from "./types.ts";

export interface AnalysisPool {
  /**
   * Analyses one homepage on a worker thread. When `input.body` spans its whole ArrayBuffer, the
   * buffer is moved to the worker rather than copied: the caller must not read `input.body`
   * afterwards (it becomes empty).
   *
   * `signal` bounds the work: a pathological page (htmlparser2 is quadratic in nesting depth) is
   * stopped by ending its worker thread, and the promise rejects with an AbortError.
   */
  analyze(input: AnalyzeInput, options?: { signal?: AbortSignal }): Promise<AnalyzeOutput>;
  /** Waits for queued analyses, then stops the threads. */
  close(): Promise<void>;
  /** Number of worker threads the pool runs at most. */
  readonly threads: number;
}

export interface AnalysisPoolOptions {
  /** Worker threads; default: one less than the available cores, at least 1. */
  threads?: number;
  /** Counts each body from the moment it is handed over until its analysis ends (fetch admission). */
  memoryBudget?: FetchMemoryBudget;
}

const TASK_FILE = new URL("./analyze-task.ts", import.meta.url).href;

/** One less than the available cores, at least 1: the pool's size when none is given. */
export function defaultAnalysisThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** A thread pool that runs HTML parsing and signal extraction off the caller's event loop. */
export function createAnalysisPool(options: AnalysisPoolOptions = {}): AnalysisPool {
  const threads = Math.max(1, Math.floor(options.threads ?? defaultAnalysisThreads()));
  const piscina = new Piscina<AnalyzeInput, AnalyzeOutput>({
    filename: TASK_FILE,
    minThreads: threads,
    maxThreads: threads,
  });
  return {
    threads,
    analyze(input, { signal } = {}) {
      const { body } = input;
      // Only a body that owns its whole buffer may move: a view into a shared pool (small Node
      // Buffers) would detach its neighbours.
      const ownsWholeBuffer =
        body.buffer instanceof ArrayBuffer &&
        body.byteOffset === 0 &&
        body.byteLength === body.buffer.byteLength;
      // Bodies waiting for a thread are memory too: fetches wait while analyses lag behind.
      const release = options.memoryBudget?.hold(body.byteLength) ?? (() => {});
      return piscina
        .run(input, {
          signal: signal ?? null,
          ...(ownsWholeBuffer ? { transferList: [body.buffer] } : {}),
        })
        .finally(release);
    },
    close() {
      return piscina.close();
    },
  };
}
