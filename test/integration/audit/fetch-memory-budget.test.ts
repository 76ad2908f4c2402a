/**
 * Fetch admission by memory, over real HTTP: a body is read only once room for it is reserved in
 * the process's budget (its Content-Length, or the 2 MiB cap when it is undeclared or compressed),
 * the room is released once the body is in one buffer, and a site that is slow to answer costs no
 * budget while it makes us wait.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_BYTES, type FetchedPage, fetchHomepage } from "../../../shared/audit/fetch-homepage.ts";
import { createFetchMemoryBudget } from "../../../shared/audit/fetch-politeness.ts";
import { OLD_HOMEPAGE } from "../../support/fake-sites.ts";
import { systemResolve } from "../../support/system-resolve.ts";

const userAgent = "LeadDiscoveryAudit/1.0 (+http://127.0.0.1/v1/docs)";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: Server;
let origin: string;
/** Responses of /trickle held open by the test: it writes their body when it chooses. */
const trickling: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? "/";
    if (path.startsWith("/trickle")) {
      // Headers at once, no Content-Length: the body follows when the test says.
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "transfer-encoding": "chunked" });
      response.flushHeaders();
      response.write("<!DOCTYPE html><html><head><title>Slow body</title></head>");
      trickling.push(response);
      return;
    }
    if (path.startsWith("/slow-headers")) {
      setTimeout(() => {
        response
          .writeHead(200, {
            "content-type": "text/html; charset=utf-8",
            "content-length": String(Buffer.byteLength(OLD_HOMEPAGE)),
          })
          .end(OLD_HOMEPAGE);
      }, 600);
      return;
    }
    response
      .writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-length": String(Buffer.byteLength(OLD_HOMEPAGE)),
      })
      .end(OLD_HOMEPAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("fetch admission by a memory budget", () => {
  it("reserves the cap for an undeclared body while it is read, and holds the next body back meanwhile", async () => {
    // Room for the cap plus 10 bytes: not for a second page beside it.
    const budget = createFetchMemoryBudget(DEFAULT_MAX_BYTES + 10);
    const options = { allowPrivateNetworks: true, userAgent, memoryBudget: budget, resolve: systemResolve };

    const slowBody = fetchHomepage(`${origin}/trickle-1`, options);
    for (let tries = 0; budget.heldBytes === 0; tries++) {
      if (tries > 100) throw new Error("the first body never started to be read");
      await sleep(20);
    }
    // Undeclared size: the whole cap is reserved while the body comes in.
    expect(budget.heldBytes).toBe(DEFAULT_MAX_BYTES);

    // A second body (declared, small) does not fit beside it: it waits, its fetch still running.
    let secondDone = false;
    const second = fetchHomepage(`${origin}/declared`, options).then((page) => {
      secondDone = true;
      return page;
    });
    for (let tries = 0; budget.waiting === 0; tries++) {
      if (tries > 100) throw new Error("the second body never waited for room");
      await sleep(20);
    }
    await sleep(200);
    expect(secondDone).toBe(false);

    // The first body ends: its room is released and the second is read.
    const response = trickling.shift();
    response?.end("<body><p>&copy; 2012</p></body></html>");
    const [first, declared] = (await Promise.all([slowBody, second])) as [FetchedPage, FetchedPage];
    expect(first.ok).toBe(true);
    expect(declared.ok).toBe(true);
    expect(new TextDecoder().decode(declared.body)).toBe(OLD_HOMEPAGE);
    expect(budget.heldBytes).toBe(0);
    expect(budget.peakBytes).toBe(DEFAULT_MAX_BYTES);
  });

  it("costs nothing while a site is slow to answer: many slow sites fit in a budget of one body", async () => {
    const budget = createFetchMemoryBudget(Buffer.byteLength(OLD_HOMEPAGE));
    const options = { allowPrivateNetworks: true, userAgent, memoryBudget: budget, resolve: systemResolve };
    const started = Date.now();
    const pages = await Promise.all(
      Array.from({ length: 20 }, (_, index) => fetchHomepage(`${origin}/slow-headers-${index}`, options)),
    );
    // Twenty sites answering after 600 ms, read one at a time, all within about one site's delay.
    expect(pages.every((page) => page.ok)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(budget.peakBytes).toBe(Buffer.byteLength(OLD_HOMEPAGE));
    expect(budget.heldBytes).toBe(0);
  });

  it("gives a body that cannot get room before the fetch's deadline a failed fetch (timeout), never a hang", async () => {
    const budget = createFetchMemoryBudget(DEFAULT_MAX_BYTES);
    const options = { allowPrivateNetworks: true, userAgent, memoryBudget: budget, resolve: systemResolve };
    const blocker = budget.hold(DEFAULT_MAX_BYTES);
    const page = await fetchHomepage(`${origin}/declared-late`, { ...options, timeoutMs: 500 });
    expect(page).toMatchObject({ ok: false, failure: "timeout" });
    blocker();
    expect(budget.heldBytes).toBe(0);
    expect(budget.waiting).toBe(0);
  });
});
