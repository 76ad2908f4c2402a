/**
 * A small round-robin reverse proxy on 127.0.0.1, standing in for the compose file's Caddy (no
 * Caddy or nginx binary on this machine): each request goes to the next upstream in turn; an
 * upstream that refuses the connection is skipped for the next one (as Caddy's `lb_try_duration`
 * does), and it records which upstream answered each request.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

interface ProxiedRequest {
  method: string;
  path: string;
  /** The upstream base URL that answered, or null when none could be reached (502). */
  upstream: string | null;
  status: number;
}

export interface ReverseProxy {
  /** e.g. http://127.0.0.1:41234 */
  readonly baseUrl: string;
  readonly requests: readonly ProxiedRequest[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
]);

export async function startReverseProxy(upstreams: readonly string[]): Promise<ReverseProxy> {
  if (upstreams.length === 0) throw new Error("the proxy needs at least one upstream");
  const requests: ProxiedRequest[] = [];
  let next = 0;

  const forward = (incoming: IncomingMessage, body: Buffer, upstream: string) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const target = new URL(incoming.url ?? "/", upstream);
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      }
      headers["x-forwarded-for"] = incoming.socket.remoteAddress ?? "";
      headers["x-forwarded-proto"] = "http";
      headers["x-forwarded-host"] = incoming.headers.host ?? "";
      headers["content-length"] = String(body.length);
      const outgoing = httpRequest(target, { method: incoming.method, headers }, resolve);
      outgoing.once("error", reject);
      outgoing.end(body);
    });

  const server: Server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const record: ProxiedRequest = {
      method: incoming.method ?? "GET",
      path: incoming.url ?? "/",
      upstream: null,
      status: 502,
    };
    requests.push(record);
    // Round robin; a refused connection moves on to the next upstream, once around at most.
    for (let attempt = 0; attempt < upstreams.length; attempt += 1) {
      const upstream = upstreams[next % upstreams.length] as string;
      next += 1;
      let answer: IncomingMessage;
      try {
        answer = await forward(incoming, body, upstream);
      } catch {
        continue;
      }
      record.upstream = upstream;
      record.status = answer.statusCode ?? 502;
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      }
      response.writeHead(record.status, headers);
      answer.pipe(response);
      return;
    }
    response.writeHead(502, { "content-type": "text/plain" }).end("no upstream answered");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
