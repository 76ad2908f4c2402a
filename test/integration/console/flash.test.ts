/**
 * The flash that carries a form's one-time answer across its redirect, in Redis (every API node
 * can show it) and in memory (a single node without Redis): taken once, per session only.
 */
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createFlashStore, type Flash } from "../../../api/console/flash.ts";
import { newSecret } from "../../../shared/secrets.ts";

const redis = new Redis("redis://127.0.0.1:6379", { maxRetriesPerRequest: 1 });
afterAll(() => redis.disconnect());

const key: Flash = { kind: "key_created", name: "CRM sync", key: `ldk_${"k".repeat(43)}` };

describe.each([
  [
    "redis",
    () =>
      createFlashStore(redis, (error) => {
        throw error;
      }),
  ],
  [
    "memory",
    () =>
      createFlashStore(undefined, (error) => {
        throw error;
      }),
  ],
])("the console flash in %s", (_name, makeStore) => {
  it("is shown once when taken, only to the session that made it", async () => {
    const store = makeStore();
    const session = newSecret();
    const id = await store.put(session, key);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await store.read(newSecret(), id ?? "", { take: true })).toBeNull();
    expect(await store.read(session, id ?? "", { take: true })).toEqual(key);
    expect(await store.read(session, id ?? "", { take: true })).toBeNull();
  });

  it("can be read again until it expires when not taken (a search's results on reload)", async () => {
    const store = makeStore();
    const session = newSecret();
    const id = (await store.put(session, key)) ?? "";
    expect(await store.read(session, id, { take: false })).toEqual(key);
    expect(await store.read(session, id, { take: false })).toEqual(key);
    expect(await store.read(session, "not-an-id", { take: false })).toBeNull();
  });
});

describe("the console flash with Redis unreachable", () => {
  it("answers null on put, so the page shows the answer at once instead of losing it", async () => {
    const down = new Redis("redis://127.0.0.1:1", {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    const logged: unknown[] = [];
    const store = createFlashStore(down, (error) => logged.push(error));
    expect(await store.put(newSecret(), key)).toBeNull();
    expect(logged).toHaveLength(1);
    down.disconnect();
  });
});
