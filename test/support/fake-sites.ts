import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeSite {
  html: string;
  /** Answer after this many milliseconds. */
  delayMs?: number;
  contentType?: string;
}

/** Business homepages served on 127.0.0.1, one per path, with a hit count per path. */
export interface FakeSitesServer {
  readonly origin: string;
  url(path: string): string;
  set(path: string, site: FakeSite): void;
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startFakeSites(): Promise<FakeSitesServer> {
  const sites = new Map<string, FakeSite>();
  const hits = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const site = sites.get(path);
    if (!site) {
      response.writeHead(404).end("not found");
      return;
    }
    const timer = setTimeout(() => {
      response
        .writeHead(200, { "content-type": site.contentType ?? "text/html; charset=utf-8" })
        .end(site.html);
    }, site.delayMs ?? 0);
    response.on("close", () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    set: (path, site) => sites.set(path, site),
    hits: (path) => hits.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
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
