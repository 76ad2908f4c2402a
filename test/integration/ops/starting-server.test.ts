/**
 * The start-up server's handover over real sockets: a keep-alive connection it accepted while the
 * node was starting is passed to the app (its next request is the app's), and at shutdown a slow
 * request on it is answered in full, even past the drain's grace for idle connections.
 */
import { createServer, type Server } from "node:http";
import { Agent, request } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { listenWhileStarting } from "../../../api/starting-server.ts";
import { createLogger } from "../../../shared/logger.ts";

const SLOW_MS = 3_000;
const servers: Server[] = [];

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
});

describe("the start-up server's handover", () => {
  it("passes its keep-alive connections to the app and lets a slow request on one finish at shutdown", {
    timeout: 30_000,
  }, async () => {
    const starting = await listenWhileStarting(
      { port: 0, host: "127.0.0.1" },
      createLogger("silent", "test"),
    );
    // One connection, kept alive: whatever the kernel does, it is the start-up server's.
    const client = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
    const origin = `http://127.0.0.1:${starting.port}`;
    const early = await request(`${origin}/healthz`, { dispatcher: client });
    expect(early.statusCode).toBe(200);
    await early.body.text();

    const app = createServer((incoming, response) => {
      const delay = incoming.url === "/slow" ? SLOW_MS : 0;
      setTimeout(
        () => response.writeHead(200, { "content-type": "text/plain" }).end(`app ${incoming.url}`),
        delay,
      );
    });
    servers.push(app);
    await starting.handOver(
      app,
      () =>
        new Promise<void>((resolve) =>
          app.listen({ port: starting.port, host: "127.0.0.1", reusePort: true }, resolve),
        ),
    );

    // The same connection now reaches the app.
    const after = await request(`${origin}/after`, { dispatcher: client });
    expect(after.statusCode).toBe(200);
    expect(await after.body.text()).toBe("app /after");

    // A slow request on it, then shutdown: it is answered in full, not cut by the drain.
    const slow = request(`${origin}/slow`, { dispatcher: client });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = starting.close();
    app.close();
    const answer = await slow;
    expect(answer.statusCode).toBe(200);
    expect(await answer.body.text()).toBe("app /slow");
    await closed;
    await client.close();
  });
});
