import { describe, expect, it } from "vitest";
import { type AddressQueries, createCachingResolver } from "../../../shared/audit/fetch-homepage.ts";

type Answer = Array<{ address: string; ttl: number }> | { code: string };

function dnsError(code: string): Error {
  return Object.assign(new Error(`query ${code}`), { code });
}

/** A stand-in for c-ares that answers from a table and counts queries per hostname and family. */
function fakeQueries(table: Record<string, { a?: Answer; aaaa?: Answer }>) {
  const queries: string[] = [];
  const answer = (hostname: string, family: "a" | "aaaa") => {
    queries.push(`${family} ${hostname}`);
    const entry = table[hostname]?.[family] ?? { code: "ENODATA" };
    return "code" in entry ? Promise.reject(dnsError(entry.code)) : Promise.resolve(entry);
  };
  const dns: AddressQueries = {
    resolve4: (hostname) => answer(hostname, "a"),
    resolve6: (hostname) => answer(hostname, "aaaa"),
  };
  return { dns, queries };
}

describe("createCachingResolver", () => {
  it("answers IPv4 then IPv6 addresses", async () => {
    const { dns } = fakeQueries({
      "bakery.example": {
        a: [{ address: "93.184.216.34", ttl: 300 }],
        aaaa: [{ address: "2606:2800::1", ttl: 300 }],
      },
    });
    const resolve = createCachingResolver({ queries: dns, maxTtlMs: 60_000, maxEntries: 10 });
    expect(await resolve("bakery.example")).toEqual(["93.184.216.34", "2606:2800::1"]);
  });

  it("keeps an answer through its TTL, capped, then asks again", async () => {
    // Any clock but 0: lru-cache reads an entry stored at 0 as one without a TTL (Date.now never is 0).
    const start = Date.parse("2026-11-28T00:00:00Z");
    let clock = start;
    const { dns, queries } = fakeQueries({
      short: { a: [{ address: "93.184.216.34", ttl: 5 }] },
      long: { a: [{ address: "93.184.216.35", ttl: 86_400 }] },
    });
    const resolve = createCachingResolver({
      queries: dns,
      maxTtlMs: 60_000,
      maxEntries: 10,
      now: () => clock,
    });

    await resolve("short");
    await resolve("long");
    clock = start + 5_000;
    await resolve("short");
    expect(queries.filter((query) => query === "a short")).toHaveLength(1);
    clock = start + 5_001;
    await resolve("short");
    expect(queries.filter((query) => query === "a short")).toHaveLength(2);
    clock = start + 60_000;
    await resolve("long");
    expect(queries.filter((query) => query === "a long")).toHaveLength(1);
    clock = start + 60_001;
    await resolve("long");
    expect(queries.filter((query) => query === "a long")).toHaveLength(2);
  });

  it("does not cache an answer with a zero TTL", async () => {
    const { dns, queries } = fakeQueries({ zero: { a: [{ address: "93.184.216.34", ttl: 0 }] } });
    const resolve = createCachingResolver({ queries: dns, maxTtlMs: 60_000, maxEntries: 10, now: () => 0 });
    await resolve("zero");
    await resolve("zero");
    expect(queries.filter((query) => query === "a zero")).toHaveLength(2);
  });

  it("shares one lookup between concurrent callers, and the caller cannot alter the cache", async () => {
    const { dns, queries } = fakeQueries({ shop: { a: [{ address: "93.184.216.34", ttl: 60 }] } });
    const resolve = createCachingResolver({ queries: dns, maxTtlMs: 60_000, maxEntries: 10, now: () => 0 });
    const [first, second] = await Promise.all([resolve("shop"), resolve("SHOP")]);
    expect(first).toEqual(["93.184.216.34"]);
    expect(second).toEqual(["93.184.216.34"]);
    expect(queries).toEqual(["a shop", "aaaa shop"]);
    first.push("10.0.0.1");
    expect(await resolve("shop")).toEqual(["93.184.216.34"]);
  });

  it("uses the family that answered when the other fails", async () => {
    const { dns } = fakeQueries({
      v6only: { a: { code: "ETIMEOUT" }, aaaa: [{ address: "2606:2800::1", ttl: 60 }] },
    });
    const resolve = createCachingResolver({ queries: dns, maxTtlMs: 60_000, maxEntries: 10 });
    expect(await resolve("v6only")).toEqual(["2606:2800::1"]);
  });

  it("fails with the real error when neither family answers, and returns nothing for no records", async () => {
    const { dns } = fakeQueries({
      missing: { a: { code: "ENOTFOUND" }, aaaa: { code: "ENOTFOUND" } },
      empty: {},
    });
    const resolve = createCachingResolver({ queries: dns, maxTtlMs: 60_000, maxEntries: 10 });
    await expect(resolve("missing")).rejects.toMatchObject({ code: "ENOTFOUND" });
    expect(await resolve("empty")).toEqual([]);
  });

  it("forgets the least recently used answer when full", async () => {
    const { dns, queries } = fakeQueries({
      one: { a: [{ address: "93.184.216.1", ttl: 60 }] },
      two: { a: [{ address: "93.184.216.2", ttl: 60 }] },
      three: { a: [{ address: "93.184.216.3", ttl: 60 }] },
    });
    const resolve = createCachingResolver({ queries: dns, maxTtlMs: 60_000, maxEntries: 2, now: () => 0 });
    await resolve("one");
    await resolve("two");
    await resolve("three");
    await resolve("two");
    await resolve("one");
    // "two" was asked for after "three": "three" made room for "one".
    await resolve("two");
    await resolve("three");
    expect(queries.filter((query) => query.startsWith("a "))).toEqual([
      "a one",
      "a two",
      "a three",
      "a one",
      "a three",
    ]);
  });
});
