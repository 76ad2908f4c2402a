import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

/**
 * Once `close()` has begun (SIGTERM), every response still being produced says
 * `Connection: close`, so the client's keep-alive socket ends with it. Otherwise that idle
 * socket would hold `server.close()` open until the keep-alive timeout (72 s), past the grace
 * period, and the process would be killed instead of exiting 0.
 */
async function gracefulClosePlugin(app: FastifyInstance): Promise<void> {
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });
}

export default fp(gracefulClosePlugin, { name: "graceful-close" });
