import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { type ConnectionDrain, createConnectionDrain } from "../connection-drain.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** The drain of the app's connections at close; other servers passing requests to the app join it. */
    connectionDrain: ConnectionDrain;
  }
}

/**
 * Once `close()` has begun (SIGTERM), every response says `Connection: close`, so
 * that each client's keep-alive connection ends with its next answer; requests still arriving on
 * open connections are served, not refused. Before Fastify closes the server, the drain stops
 * accepting and waits for every connection to end after its answer, or, for one left idle, 2 s after the drain began:
 * closing an idle keep-alive connection at once would reset a request the client is sending on it.
 */
async function gracefulClosePlugin(app: FastifyInstance): Promise<void> {
  const drain = createConnectionDrain();
  drain.watch(app.server);
  app.decorate("connectionDrain", drain);
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
    await drain.drain();
  });
  // Fastify says `Connection: close` on requests that arrive while it closes; this also covers
  // those that were already running (a search waiting on its checks).
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });
}

export default fp(gracefulClosePlugin, { name: "graceful-close" });
