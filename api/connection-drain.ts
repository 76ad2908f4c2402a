import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { Server as NetServer, type Socket } from "node:net";

/**
 * Closing a keep-alive connection the moment it is idle races the client: a request it is sending
 * meets a closed socket (a reset). Node's `server.close()` does exactly that to every idle
 * connection at once. A drain instead stops accepting and lets each connection's next request be
 * answered (with `Connection: close`, so that the client closes it after the answer). A client
 * under load reuses its idle connections within moments and they all end that way; only those
 * still idle after a grace, from clients that went quiet, are ended by the server.
 */
export interface ConnectionDrain {
  /** Follows this server's connections from now on (call it before the server accepts any). */
  watch(server: Server): void;
  /**
   * Stops accepting on every watched server (their connections stay open); resolves once every
   * connection has ended: after an answer, or, for one without a request in progress once the
   * drain has lasted `idleGraceMs`, ended by the server.
   */
  drain(idleGraceMs?: number): Promise<void>;
}

/** How long a drain leaves idle connections to their clients before ending them itself. */
const DEFAULT_IDLE_GRACE_MS = 2_000;
/** How long an ended connection may stay half-open before it is cut. */
const END_TO_DESTROY_MS = 1_000;
const CHECK_EVERY_MS = 50;

interface ConnectionState {
  /** Requests on it not yet answered. */
  active: number;
  /** When the drain ended it (a client that never closes its side is cut a moment later). */
  endedAt?: number;
}

export function createConnectionDrain(): ConnectionDrain {
  const servers = new Set<Server>();
  const connections = new Map<Socket, ConnectionState>();

  const onConnection = (socket: Socket) => {
    connections.set(socket, { active: 0 });
    socket.once("close", () => connections.delete(socket));
  };
  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const state = connections.get(request.socket);
    if (!state) return;
    state.active += 1;
    response.once("close", () => {
      state.active -= 1;
    });
  };

  return {
    watch(server) {
      if (servers.has(server)) return;
      servers.add(server);
      server.on("connection", onConnection);
      server.on("request", onRequest);
    },
    async drain(idleGraceMs = DEFAULT_IDLE_GRACE_MS) {
      const started = Date.now();
      for (const server of servers) {
        // net's close, not http's: http's would also close every idle connection at once.
        if (server.listening) NetServer.prototype.close.call(server);
      }
      while (connections.size > 0) {
        const now = Date.now();
        if (now - started >= idleGraceMs) {
          for (const [socket, state] of connections) {
            if (state.active > 0) continue;
            if (state.endedAt === undefined) {
              state.endedAt = now;
              socket.end();
            } else if (now - state.endedAt >= END_TO_DESTROY_MS) socket.destroy();
          }
        }
        await new Promise((resolve) => setTimeout(resolve, CHECK_EVERY_MS));
      }
    },
  };
}
