import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";

/**
 * What the port answers while the node waits for PostgreSQL and Redis: `/healthz` 200 (the process
 * is alive, so a supervisor does not restart it for waiting), `/readyz` and every other route 503
 * `service_unavailable` naming what is awaited, in the error object. The app takes the same port
 * over once it is ready.
 */
export interface StartingServer {
  readonly port: number;
  /** What /readyz names as awaited ("PostgreSQL at db:5432/leadapi"). */
  waitingFor(what: string): void;
  close(): Promise<void>;
}

export async function listenWhileStarting(
  options: { port: number; host: string },
  logger: Logger,
): Promise<StartingServer> {
  let awaited = "its dependencies";
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/healthz") {
      response.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      response.end(JSON.stringify({ status: "ok" }));
      return;
    }
    response.writeHead(503, {
      "content-type": "application/json; charset=utf-8",
      "retry-after": "5",
      connection: "close",
    });
    response.end(
      JSON.stringify({
        error: { code: "service_unavailable", message: `Not ready: starting, waiting for ${awaited}.` },
      }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ port }, "starting: /healthz answers 200 and /readyz 503 until the dependencies answer");
  return {
    port,
    waitingFor(what) {
      awaited = what;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
