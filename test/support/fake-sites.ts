import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";

export interface FakeSite {
  html?: string;
  /** Answer after this many milliseconds; a list is taken in turn, like `status`. */
  delayMs?: number | number[];
  contentType?: string;
  /** HTTP status; default 200. A list is answered in turn, the last one for every later request. */
  status?: number | number[];
  /** A Location header (with a 3xx status). */
  location?: string;
}

/** One request a fake site received. */
interface FakeSiteRequest {
  path: string;
  /** The request came over TLS (a server started with `tls`). */
  secure: boolean;
}

/** Business homepages served on 127.0.0.1, one per path, with a hit count per path. */
export interface FakeSitesServer {
  readonly origin: string;
  readonly port: number;
  url(path: string): string;
  set(path: string, site: FakeSite): void;
  /** Requests of this path, over either protocol. */
  hits(path: string): number;
  readonly requests: readonly FakeSiteRequest[];
  /** TLS handshakes begun on a server without `tls` (each answered as a bad HTTP request). */
  readonly tlsAttempts: number;
  close(): Promise<void>;
}

export interface FakeSitesOptions {
  /**
   * Also speak TLS on the same port with this key and certificate (PEM): the first byte of each
   * connection decides, as a TLS handshake starts with 0x16. A site reached over http:// and
   * https:// at one host and port, which is what the https check of an audit asks for.
   */
  tls?: { key: string; cert: string };
  /** A different page over https (same path), e.g. a redirect back to http. Default: the same site. */
  httpsSites?: Map<string, FakeSite>;
}

export async function startFakeSites(options: FakeSitesOptions = {}): Promise<FakeSitesServer> {
  const sites = new Map<string, FakeSite>();
  const hits = new Map<string, number>();
  const requests: FakeSiteRequest[] = [];
  const handler = (secure: boolean) => (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    requests.push({ path, secure });
    const site = (secure ? options.httpsSites?.get(path) : undefined) ?? sites.get(path);
    if (!site) {
      response.writeHead(404).end("not found");
      return;
    }
    const count = hits.get(path) ?? 1;
    const statuses = Array.isArray(site.status) ? site.status : [site.status ?? 200];
    const status = statuses[Math.min(count, statuses.length) - 1] ?? 200;
    const delays = Array.isArray(site.delayMs) ? site.delayMs : [site.delayMs ?? 0];
    const delayMs = delays[Math.min(count, delays.length) - 1] ?? 0;
    const timer = setTimeout(() => {
      response
        .writeHead(status, {
          "content-type": site.contentType ?? "text/html; charset=utf-8",
          ...(site.location ? { location: site.location } : {}),
        })
        .end(site.html ?? "");
    }, delayMs);
    response.on("close", () => clearTimeout(timer));
  };
  const http: Server = createServer(handler(false));
  const https = options.tls ? createHttpsServer(options.tls, handler(true)) : undefined;
  const sockets = new Set<Socket>();
  let tlsAttempts = 0;
  const front = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.once("readable", () => {
      const first: Buffer | null = socket.read(1);
      if (first === null) return;
      socket.unshift(first);
      if (first[0] === 0x16 && !https) tlsAttempts += 1;
      (first[0] === 0x16 && https ? https : http).emit("connection", socket);
    });
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  const port = (front.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    url: (path) => `${origin}${path}`,
    set: (path, site) => sites.set(path, site),
    hits: (path) => hits.get(path) ?? 0,
    requests,
    get tlsAttempts() {
      return tlsAttempts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        http.closeAllConnections();
        https?.closeAllConnections();
        front.close(() => resolve());
      }),
  };
}

const year = new Date().getUTCFullYear();

/** A homepage that is clearly old: no viewport, jQuery 1.x, a copyright years out of date. */
export const OLD_HOMEPAGE = `<!DOCTYPE html><html><head><title>Old</title>
<script src="/js/jquery-1.8.2.min.js"></script></head>
<body><table width="900"><tr><td><font face="Arial">Welcome</font></td></tr></table>
<p>&copy; 2012 Old Business</p></body></html>`;

/** A homepage with nothing to flag: responsive viewport, modern markup, current copyright. */
export const MODERN_HOMEPAGE = `<!DOCTYPE html><html lang="en"><head><title>Modern</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Welcome</h1></main><footer>&copy; ${year} Modern Business</footer></body></html>`;
