/**
 * Politeness of the homepage fetcher: at most a few requests at once to one hostname, and a
 * bounded number to one IP address (shared hosting serves many businesses from one address).
 * How many fetches run in the whole process is bounded by the audit concurrency, not here.
 *
 * Slots are taken hostname first, then address, and released in reverse: one order for every
 * caller, so two fetches can never each hold what the other waits for.
 */

export interface FetchPoliteness {
  /** Requests at once to one hostname (an IP literal in the URL counts as an address only). */
  readonly perHost: number;
  /** Requests at once to one IP address, whatever the hostnames. */
  readonly perAddress: number;
  /** Waits for a slot of `host` (null: none) and of `address`; rejects when `signal` aborts. */
  acquire(host: string | null, address: string, signal: AbortSignal): Promise<() => void>;
  /** Requests holding or waiting for a slot (for metrics and tests). */
  readonly held: number;
  readonly waiting: number;
}

export interface KeyedSlots {
  take(key: string, signal: AbortSignal): Promise<void>;
  give(key: string): void;
  readonly held: number;
  readonly waiting: number;
}

function keyedSlots(limit: number): KeyedSlots {
  const active = new Map<string, number>();
  const queues = new Map<string, (() => void)[]>();
  let held = 0;
  let waiting = 0;
  return {
    get held() {
      return held;
    },
    get waiting() {
      return waiting;
    },
    take(key, signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      const count = active.get(key) ?? 0;
      if (count < limit) {
        active.set(key, count + 1);
        held += 1;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const queue = queues.get(key) ?? [];
        queues.set(key, queue);
        waiting += 1;
        const grant = () => {
          signal.removeEventListener("abort", onAbort);
          waiting -= 1;
          held += 1;
          resolve();
        };
        const onAbort = () => {
          const index = queue.indexOf(grant);
          if (index >= 0) queue.splice(index, 1);
          if (queue.length === 0) queues.delete(key);
          waiting -= 1;
          reject(signal.reason);
        };
        queue.push(grant);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
    give(key) {
      held -= 1;
      const queue = queues.get(key);
      const next = queue?.shift();
      if (queue?.length === 0) queues.delete(key);
      // The slot passes straight to the next waiter: the count of this key stays the same.
      if (next) next();
      else {
        const count = (active.get(key) ?? 1) - 1;
        if (count === 0) active.delete(key);
        else active.set(key, count);
      }
    },
  };
}

export function createFetchPoliteness(limits: {
  perHost: number;
  perAddress: number;
  /**
   * Address slots shared with other fetch loops of the process (`sharedAddressSlots`); unset: this
   * loop's own. Hostnames need no sharing: each is always fetched by the same loop (fetch-loops.ts).
   */
  addressSlots?: KeyedSlots;
}): FetchPoliteness {
  const hosts = keyedSlots(limits.perHost);
  const addresses = limits.addressSlots ?? keyedSlots(limits.perAddress);
  return {
    perHost: limits.perHost,
    perAddress: limits.perAddress,
    get held() {
      return addresses.held;
    },
    get waiting() {
      return hosts.waiting + addresses.waiting;
    },
    async acquire(host, address, signal) {
      const hostKey = host?.toLowerCase() ?? null;
      if (hostKey !== null) await hosts.take(hostKey, signal);
      try {
        await addresses.take(address, signal);
      } catch (error) {
        if (hostKey !== null) hosts.give(hostKey);
        throw error;
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        addresses.give(address);
        if (hostKey !== null) hosts.give(hostKey);
      };
    },
  };
}

/**
 * Admission of homepage bodies by memory: bytes of bodies being read, or read and waiting for (or
 * in) their analysis, stay within `limitBytes`. A fetch waits for room only once the site starts
 * answering (its headers are in): a slow site costs no budget while it makes us wait, so a process
 * holds as many slow fetches as its audit concurrency allows, and memory is bounded by this budget,
 * not by that count. Requests are served in arrival order (a large one is not starved by small
 * ones); a request larger than the whole budget is served as the whole budget, alone.
 */
export interface FetchMemoryBudget {
  readonly limitBytes: number;
  /** Bytes reserved now (bodies being read, and bodies waiting for or in their analysis). */
  readonly heldBytes: number;
  /** Reservations waiting for room. */
  readonly waiting: number;
  /** The most bytes ever reserved at once (for the capacity bench and metrics). */
  readonly peakBytes: number;
  /** Waits until `bytes` fit; rejects when `signal` aborts. The release is idempotent. */
  reserve(bytes: number, signal?: AbortSignal): Promise<() => void>;
  /**
   * Counts bytes already in memory (a body handed to its analysis) at once, without waiting: they
   * delay the next reservations instead. The release is idempotent.
   */
  hold(bytes: number): () => void;
}

export function createFetchMemoryBudget(limitBytes: number): FetchMemoryBudget {
  if (!Number.isInteger(limitBytes) || limitBytes < 1)
    throw new Error(`invalid memory budget: ${limitBytes}`);
  let held = 0;
  let peak = 0;
  const queue: { bytes: number; grant: () => void }[] = [];
  const take = (bytes: number) => {
    held += bytes;
    peak = Math.max(peak, held);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held -= bytes;
      // Grant waiters in order while the first of them fits.
      while (queue.length > 0 && held + (queue[0]?.bytes ?? 0) <= limitBytes) queue.shift()?.grant();
    };
  };
  return {
    limitBytes,
    get heldBytes() {
      return held;
    },
    get waiting() {
      return queue.length;
    },
    get peakBytes() {
      return peak;
    },
    hold(bytes) {
      return take(Math.max(0, bytes));
    },
    reserve(requested, signal) {
      const bytes = Math.min(Math.max(0, Math.ceil(requested)), limitBytes);
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (queue.length === 0 && held + bytes <= limitBytes) return Promise.resolve(take(bytes));
      return new Promise<() => void>((resolve, reject) => {
        const waiter = {
          bytes,
          grant: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve(take(bytes));
          },
        };
        const onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index >= 0) queue.splice(index, 1);
          // The next waiter may fit now that this one no longer blocks the line.
          while (queue.length > 0 && held + (queue[0]?.bytes ?? 0) <= limitBytes) queue.shift()?.grant();
          reject(signal?.reason);
        };
        queue.push(waiter);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}

/** Buckets of the shared address counters: different addresses rarely share one (a shared bucket only slows them). */
const SHARED_ADDRESS_BUCKETS = 16_384;

/** The memory behind `sharedAddressSlots`, made once per process and handed to every fetch loop. */
export function sharedAddressMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(SHARED_ADDRESS_BUCKETS * Int32Array.BYTES_PER_ELEMENT);
}

/** How long a waiter sleeps at most before it looks again (a wake-up it missed, or its abort). */
const SHARED_WAIT_MS = 50;

/**
 * Requests at once per IP address, counted in memory shared by the threads of a process, so that
 * several fetch loops together hold an address to `limit`, as one loop alone would. An address is
 * counted in a bucket picked by its hash; two addresses in one bucket share its limit (never more
 * requests than the limit to any address, sometimes fewer). Waiters are woken by a release in any
 * thread; unlike the in-process slots they are not served in arrival order.
 */
export function sharedAddressSlots(memory: SharedArrayBuffer, limit: number): KeyedSlots {
  const counts = new Int32Array(memory);
  let held = 0;
  let waiting = 0;
  const bucketOf = (key: string) => {
    // FNV-1a, 32 bits.
    let hash = 0x811c9dc5;
    for (let index = 0; index < key.length; index++) {
      hash ^= key.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193);
    }
    return (hash >>> 0) % counts.length;
  };
  const tryTake = (bucket: number): number | null => {
    for (;;) {
      const current = Atomics.load(counts, bucket);
      if (current >= limit) return current;
      if (Atomics.compareExchange(counts, bucket, current, current + 1) === current) return null;
    }
  };
  return {
    get held() {
      return held;
    },
    get waiting() {
      return waiting;
    },
    async take(key, signal) {
      if (signal.aborted) throw signal.reason;
      const bucket = bucketOf(key);
      let seen = tryTake(bucket);
      if (seen === null) {
        held += 1;
        return;
      }
      waiting += 1;
      try {
        while (seen !== null) {
          const wait = Atomics.waitAsync(counts, bucket, seen, SHARED_WAIT_MS);
          if (wait.async) await wait.value;
          if (signal.aborted) throw signal.reason;
          seen = tryTake(bucket);
        }
      } finally {
        waiting -= 1;
      }
      held += 1;
    },
    give(key) {
      const bucket = bucketOf(key);
      held -= 1;
      Atomics.sub(counts, bucket, 1);
      Atomics.notify(counts, bucket);
    },
  };
}
