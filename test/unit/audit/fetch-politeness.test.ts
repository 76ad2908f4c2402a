import { describe, expect, it } from "vitest";
import { createFetchMemoryBudget, createFetchPoliteness } from "../../../shared/audit/fetch-politeness.ts";

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

describe("fetch memory budget", () => {
  it("admits bodies while their bytes fit, and the next one as soon as room is released", async () => {
    const budget = createFetchMemoryBudget(1_000);
    const a = await budget.reserve(600);
    await budget.reserve(300);
    let third = false;
    const pending = budget.reserve(200).then((release) => {
      third = true;
      return release;
    });
    await flush();
    expect(third).toBe(false);
    expect(budget.heldBytes).toBe(900);
    expect(budget.waiting).toBe(1);
    a();
    a(); // idempotent: released once
    await pending;
    expect(third).toBe(true);
    expect(budget.heldBytes).toBe(500);
    expect(budget.peakBytes).toBe(900);
  });

  it("serves in arrival order: a large body is not starved by small ones behind it", async () => {
    const budget = createFetchMemoryBudget(1_000);
    const first = await budget.reserve(900);
    const order: string[] = [];
    const large = budget.reserve(800).then((release) => {
      order.push("large");
      return release;
    });
    const small = budget.reserve(50).then((release) => {
      order.push("small");
      return release;
    });
    await flush();
    // 50 bytes would fit now, but the large one asked first.
    expect(order).toEqual([]);
    first();
    await Promise.all([large, small]);
    expect(order).toEqual(["large", "small"]);
    expect(budget.heldBytes).toBe(850);
  });

  it("serves a request larger than the budget as the whole budget, alone", async () => {
    const budget = createFetchMemoryBudget(1_000);
    const huge = await budget.reserve(5_000);
    expect(budget.heldBytes).toBe(1_000);
    let next = false;
    const pending = budget.reserve(1).then(() => {
      next = true;
    });
    await flush();
    expect(next).toBe(false);
    huge();
    await pending;
    expect(next).toBe(true);
  });

  it("counts bodies handed to their analysis at once, which holds back the next reservations", async () => {
    const budget = createFetchMemoryBudget(1_000);
    const analysing = budget.hold(700);
    let admitted = false;
    const pending = budget.reserve(400).then(() => {
      admitted = true;
    });
    await flush();
    expect(admitted).toBe(false);
    analysing();
    await pending;
    expect(admitted).toBe(true);
  });

  it("drops a waiter whose fetch gave up, and lets the ones behind it through", async () => {
    const budget = createFetchMemoryBudget(1_000);
    const held = await budget.reserve(600);
    const controller = new AbortController();
    const abandoned = budget.reserve(700, controller.signal);
    let small = false;
    const behind = budget.reserve(300).then(() => {
      small = true;
    });
    await flush();
    expect(small).toBe(false);
    controller.abort(new Error("fetch deadline"));
    await expect(abandoned).rejects.toThrow("fetch deadline");
    await behind;
    expect(small).toBe(true);
    expect(budget.heldBytes).toBe(900);
    expect(budget.waiting).toBe(0);
    held();
  });
});
