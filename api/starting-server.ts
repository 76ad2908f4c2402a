import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Logger } from "pino";
import { createConnectionDrain } from "./connection-drain.ts";
import { requestIdFor } from "./request-id.ts";

/**
 * What the port answers while the node waits for PostgreSQL and Redis: `/healthz` 200 (the process
 * is alive, so a supervisor does not restart it for waiting), `/readyz` and every other route 503
 * `service_unavailable` naming what is awaited, in the error object.
 *
 * The handover resets no connection. The port is bound with SO_REUSEPORT, so the app listens on
 * it beside this server; from then on this server passes every request and connection it still
 * gets to the app (its keep-alive connections, and those waiting in its own accept queue, which
 * closing its socket would reset), and it is closed with the app at shutdown: nothing it accepted
 * is ever dropped. Where the platform has no SO_REUSEPORT, this server closes first (idle
 * connections closed, requests in flight answered) and the app listens after it.
 */
export interface StartingServer {
  readonly port: number;
  /** What /readyz names as awaited ("PostgreSQL at db:5432/leadapi"). */
  waitingFor(what: string): void;
  /** Whether the app may listen on the port beside this server (`reusePort`). */
  readonly sharesPort: boolean;
  /**
   * The app's server takes over: `listen` makes it listen (beside this server when the port is
   * shared, after this server closed otherwise), then this server serves its own connections with
   * the app's handlers.
   */
  handOver(app: Server, listen: () => Promise<unknown>): Promise<void>;
  /** Stops accepting; each connection ends after its answer, or once quiet (see connection-drain.ts). */
  close(): Promise<void>;
}

const NOT_SUPPORTED = new Set(["ENOTSUP", "ENOPROTOOPT", "EINVAL", "ERR_INVALID_ARG_VALUE"]);

export async function listenWhileStarting(
  options: { port: number; host: string },
  logger: Logger,
): Promise<StartingServer> {
  let awaited = "its dependencies";
  const answerWhileStarting = (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/healthz") {
      response.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      response.end(JSON.stringify({ status: "ok" }));
      return;
    }
    // The headers the app's own answers carry (and the document declares for a 503).
    response.writeHead(503, {
      "content-type": "application/json; charset=utf-8",
      "retry-after": "5",
      "x-request-id": requestIdFor(request),
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      connection: "close",
    });
    response.end(
      JSON.stringify({
        error: { code: "service_unavailable", message: `Not ready: starting, waiting for ${awaited}.` },
      }),
    );
  };
  const server: Server = createServer(answerWhileStarting);
  const drain = createConnectionDrain();
  drain.watch(server);

  const listen = (reusePort: boolean) =>
    new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      server.once("error", onError);
      server.listen({ port: options.port, host: options.host, reusePort }, () => {
        server.off("error", onError);
        resolve();
      });
    });
  let sharesPort = true;
  try {
    await listen(true);
  } catch (error) {
    if (!NOT_SUPPORTED.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
    sharesPort = false;
    await listen(false);
  }
  const { port } = server.address() as AddressInfo;
  logger.info({ port }, "starting: /healthz answers 200 and /readyz 503 until the dependencies answer");

  // Stops accepting; each connection ends after its answer, or, left idle, shortly after (none is reset).
  const close = () => drain.drain();

  return {
    port,
    sharesPort,
    waitingFor(what) {
      awaited = what;
    },
    async handOver(app, listenApp) {
      if (!sharesPort) {
        await close();
        await listenApp();
        return;
      }
      await listenApp();
      // From now on a request on a connection this server accepted is the app's request.
      server.off("request", answerWhileStarting); // not the drain's own listener
      server.on("request", (request: IncomingMessage, response: ServerResponse) =>
        app.emit("request", request, response),
      );
      server.removeAllListeners("clientError");
      server.on("clientError", (error: Error, socket: Socket) => app.emit("clientError", error, socket));
      server.keepAliveTimeout = app.keepAliveTimeout;
      server.requestTimeout = app.requestTimeout;
      server.headersTimeout = app.headersTimeout;
      logger.info({ port }, "started: the app serves the port; the start-up server hands it every request");
    },
    close,
  };
}
