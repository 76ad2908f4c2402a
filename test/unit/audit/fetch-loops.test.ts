import { describe, expect, it } from "vitest";
import { loopOf } from "../../../shared/audit/fetch-loops.ts";
import { sharedAddressMemory, sharedAddressSlots } from "../../../shared/audit/fetch-politeness.ts";

const never = () => new AbortController().signal;
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("fetch loops: which loop fetches a site", () => {
  it("one host always goes to one loop, whatever the path, scheme or case", () => {
    const loop = loopOf({ url: "http://bakery.example/" }, 4);
    for (const url of ["https://Bakery.Example/menu", "http://bakery.example:80/contact?x=1"]) {
      expect(loopOf({ url }, 4)).toBe(loop);
    }
  });

  it("spreads hosts over the loops", () => {
    const used = new Set(
      Array.from({ length: 40 }, (_, index) => loopOf({ url: `http://site-${index}.example/` }, 4)),
    );
    expect(used).toEqual(new Set([0, 1, 2, 3]));
  });

  it("an unparsable URL goes to the first loop (the check itself says it is invalid)", () => {
    expect(loopOf({ url: "not a url" }, 3)).toBe(0);
  });
});

describe("per-IP slots shared by the loops of a process", () => {
  it("holds an address to the limit across loops; a release in one lets a waiter of another in", async () => {
    const memory = sharedAddressMemory();
    const first = sharedAddressSlots(memory, 2);
    const second = sharedAddressSlots(memory, 2);
    await first.take("203.0.113.7", never());
    await second.take("203.0.113.7", never());
    let third = false;
    const pending = second.take("203.0.113.7", never()).then(() => {
      third = true;
    });
    // Another address is not held up.
    await first.take("203.0.113.8", never());
    await flush();
    expect(third).toBe(false);
    expect(second.waiting).toBe(1);
    first.give("203.0.113.7");
    await pending;
    expect(third).toBe(true);
    expect(second.waiting).toBe(0);
    expect(second.held).toBe(2);
  });

  it("a waiter whose fetch is aborted stops waiting", async () => {
    const memory = sharedAddressMemory();
    const slots = sharedAddressSlots(memory, 1);
    await slots.take("198.51.100.1", never());
    const controller = new AbortController();
    const waiting = slots.take("198.51.100.1", controller.signal);
    controller.abort(new Error("deadline"));
    await expect(waiting).rejects.toThrow("deadline");
    expect(slots.waiting).toBe(0);
    slots.give("198.51.100.1");
    await slots.take("198.51.100.1", never());
  });
});
