import { describe, expect, it } from "vitest";
import { createFetchPoliteness } from "../../../shared/audit/fetch-politeness.ts";

const never = () => new AbortController().signal;
/** Lets every settled promise's callbacks run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("fetch politeness", () => {
  it("holds a hostname to perHost requests and lets the next one in when one ends", async () => {
    const politeness = createFetchPoliteness({ perHost: 2, perAddress: 10 });
    const a = await politeness.acquire("shop.example", "203.0.113.1", never());
    await politeness.acquire("shop.example", "203.0.113.2", never());
    let third = false;
    const pending = politeness.acquire("Shop.Example", "203.0.113.3", never()).then((release) => {
      third = true;
      return release;
    });
    // Another hostname on the same address is not held up.
    await politeness.acquire("other.example", "203.0.113.1", never());
    await flush();
    expect(third).toBe(false);
    expect(politeness.waiting).toBe(1);
    a();
    await pending;
    expect(third).toBe(true);
    expect(politeness.waiting).toBe(0);
  });

  it("holds one IP address to perAddress requests, whatever the hostnames", async () => {
    const politeness = createFetchPoliteness({ perHost: 5, perAddress: 2 });
    const first = await politeness.acquire("a.example", "198.51.100.7", never());
    await politeness.acquire("b.example", "198.51.100.7", never());
    let granted = false;
    const pending = politeness.acquire("c.example", "198.51.100.7", never()).then(() => {
      granted = true;
    });
    // An IP literal URL (no hostname) counts against its address only.
    const literal = politeness.acquire(null, "198.51.100.8", never());
    await literal;
    await flush();
    expect(granted).toBe(false);
    first();
    // Releasing twice frees one slot, not two.
    first();
    await pending;
    expect(granted).toBe(true);
    expect(politeness.held).toBe(3);
  });

  it("gives up a wait when the fetch's deadline aborts, and frees the hostname slot it held", async () => {
    const politeness = createFetchPoliteness({ perHost: 1, perAddress: 1 });
    const holder = await politeness.acquire("x.example", "192.0.2.1", never());
    const deadline = new AbortController();
    // Holds the y.example slot while it waits for the address.
    const waiting = politeness.acquire("y.example", "192.0.2.1", deadline.signal);
    deadline.abort(new Error("deadline"));
    await expect(waiting).rejects.toThrow("deadline");
    expect(politeness.waiting).toBe(0);
    // y.example's slot went back: another fetch of it on a free address goes at once.
    const release = await politeness.acquire("y.example", "192.0.2.2", never());
    release();
    holder();
    expect(politeness.held).toBe(0);
  });
});
