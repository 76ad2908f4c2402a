import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createSecureContext } from "node:tls";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  closeHomepageAgents,
  type FetchedPage,
  type FetchFailure,
  type FetchHomepageOptions,
  fetchHomepage,
} from "../../../shared/audit/fetch-homepage.ts";
import { systemResolve } from "../../support/system-resolve.ts";

const userAgent = "LeadDiscoveryAuditBot/1.0 (+https://example.com/bot)";
const page = "<!doctype html><html><head><title>Boulangerie</title></head><body>Bonjour</body></html>";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface LocalServer {
  host: string;
  port: number;
  origin: string;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

async function startServer(handler: Handler, host = "127.0.0.1", port = 0): Promise<LocalServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? "");
    handler(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    host,
    port: bound,
    origin: `http://${host}:${bound}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function html(response: ServerResponse, body = page): void {
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  response.end(body);
}

/** A resolver that answers from a fixed table and counts its calls. */
function tableResolver(table: Record<string, string[] | ((call: number) => string[])>) {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const answer = table[hostname];
    if (answer === undefined)
      throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return typeof answer === "function" ? answer(calls.filter((name) => name === hostname).length) : answer;
  };
  return { resolve, calls };
}

function expectFailure(result: FetchedPage | FetchFailure, failure: string): FetchFailure {
  expect(result, JSON.stringify(result)).toMatchObject({ ok: false, failure });
  return result as FetchFailure;
}

function expectPage(result: FetchedPage | FetchFailure): FetchedPage {
  expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
  return result as FetchedPage;
}

/** A self-signed certificate for public.test (EC P-256, valid for a century): not trusted by the fetcher. */
const selfSigned = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQglQVhl0pOQGk52Ndg
u89ftkcl5owiLrdcS5tHlNNSfiqhRANCAARcJCTIfUTqQO+Qofy07jS6CReFAMdb
t3Bj1R0nXWlCh+78prO+QH6O4OFyE1GKS1BF1BhuwweyZOAvhFKhIuHF
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBmjCCAUGgAwIBAgIUDpPfuWn1Q1KC679Zb/f8lU2aJYEwCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLcHVibGljLnRlc3QwIBcNMjYxMTIyMDEwNDI1WhgPMjEyNjEw
MjkwMTA0MjVaMBYxFDASBgNVBAMMC3B1YmxpYy50ZXN0MFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEXCQkyH1E6kDvkKH8tO40ugkXhQDHW7dwY9UdJ11pQofu/Kaz
vkB+juDhchNRiktQRdQYbsMHsmTgL4RSoSLhxaNrMGkwHQYDVR0OBBYEFE1AyU7Z
xKaiIwnOlRoZCxB9tHQGMB8GA1UdIwQYMBaAFE1AyU7ZxKaiIwnOlRoZCxB9tHQG
MA8GA1UdEwEB/wQFMAMBAf8wFgYDVR0RBA8wDYILcHVibGljLnRlc3QwCgYIKoZI
zj0EAwIDRwAwRAIgOsHItQhkJv5Fsh00ziSfjAZCN52A4/3WOaSQwihQp4YCIAO+
q2hOSwIZGYTOZh6zZxEgZ3jrsBLSwu5RLQ8J1kWi
-----END CERTIFICATE-----
`,
};

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

let normal: LocalServer;
const servers: LocalServer[] = [];

async function server(handler: Handler, host?: string, port?: number): Promise<LocalServer> {
  const started = await startServer(handler, host, port);
  servers.push(started);
  return started;
}

beforeAll(async () => {
  normal = await startServer((_request, response) => html(response));
});

afterAll(async () => {
  await normal.close();
  await closeHomepageAgents();
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((started) => started.close()));
  // The fetcher keeps serving after whatever the test did to it.
  const result = await fetchHomepage(`${normal.origin}/after`, {
    allowPrivateNetworks: true,
    userAgent,
    resolve: systemResolve,
  });
  expect(text(expectPage(result).body)).toBe(page);
});

describe("with private networks refused", () => {
  const refusing = (extra: Partial<FetchHomepageOptions> = {}): FetchHomepageOptions => ({
    allowPrivateNetworks: false,
    userAgent,
    resolve: systemResolve,
    ...extra,
  });

  it("refuses a URL to 127.0.0.1 without connecting", async () => {
    const result = await fetchHomepage(`${normal.origin}/`, refusing());
    expect(expectFailure(result, "blocked_address").detail).toContain("loopback");
    expect(normal.requests).not.toContain("/");
  });

  it("refuses loopback written in other forms", async () => {
    for (const url of [
      `http://2130706433:${normal.port}/`,
      `http://0x7f.1:${normal.port}/`,
      `http://[::1]:${normal.port}/`,
      `http://localhost:${normal.port}/`,
      `http://shop.localhost:${normal.port}/`,
    ]) {
      expectFailure(await fetchHomepage(url, refusing()), "blocked_address");
    }
  });

  it("refuses a public-looking hostname that resolves to 10.0.0.5", async () => {
    const { resolve } = tableResolver({ "bakery.example": ["10.0.0.5"] });
    const result = await fetchHomepage("http://bakery.example/", refusing({ resolve }));
    expect(expectFailure(result, "blocked_address").detail).toBe("bakery.example -> 10.0.0.5 (private)");
  });

  it("refuses a hostname that resolves to ::1", async () => {
    const { resolve } = tableResolver({ "bakery.example": ["::1"] });
    expectFailure(await fetchHomepage("http://bakery.example/", refusing({ resolve })), "blocked_address");
  });

  it("refuses a hostname with one private address among public ones", async () => {
    const { resolve } = tableResolver({
      "bakery.example": ["93.184.216.34", "2606:4700::1", "192.168.0.10"],
    });
    expectFailure(await fetchHomepage("http://bakery.example/", refusing({ resolve })), "blocked_address");
  });

  it("refuses the metadata address, literally or through DNS", async () => {
    const { resolve } = tableResolver({ "metadata.example": ["169.254.169.254"] });
    expectFailure(
      await fetchHomepage("http://169.254.169.254/latest/meta-data/", refusing()),
      "blocked_address",
    );
    expectFailure(await fetchHomepage("http://metadata.example/", refusing({ resolve })), "blocked_address");
    expectFailure(await fetchHomepage("http://[fd00:ec2::254]/", refusing()), "blocked_address");
  });

  it("refuses IPv4-mapped and NAT64 forms of loopback", async () => {
    for (const url of [
      `http://[::ffff:127.0.0.1]:${normal.port}/`,
      `http://[::ffff:7f00:1]:${normal.port}/`,
      `http://[64:ff9b::7f00:1]:${normal.port}/`,
    ]) {
      expectFailure(await fetchHomepage(url, refusing()), "blocked_address");
    }
    expect(normal.requests).not.toContain("/");
  });

  describe("redirects from an allowed origin", () => {
    // The origin server listens on 127.0.0.2 and is trusted as if it were public; the policy
    // stays in force for every other address, 127.0.0.1 included.
    let internal: LocalServer;
    let origin: LocalServer;
    const resolver = () =>
      tableResolver({ "public.test": ["127.0.0.2"], "internal.test": ["127.0.0.1"] }).resolve;
    const trusted = () => refusing({ resolve: resolver(), trustedAddresses: ["127.0.0.2"] });

    beforeAll(async () => {
      internal = await startServer((_request, response) => html(response, "secret"));
      origin = await startServer((request, response) => {
        const targets: Record<string, string> = {
          "/to-literal": `http://127.0.0.1:${internal.port}/admin`,
          "/to-name": `http://internal.test:${internal.port}/admin`,
          "/to-mapped": `http://[::ffff:127.0.0.1]:${internal.port}/admin`,
          "/to-self": "/home",
        };
        const location = targets[request.url ?? ""];
        if (location === undefined) return html(response);
        response.writeHead(302, { location });
        response.end();
      }, "127.0.0.2");
    });

    afterAll(async () => {
      await internal.close();
      await origin.close();
    });

    it("follows a redirect that stays on the allowed origin", async () => {
      const result = await fetchHomepage(`http://public.test:${origin.port}/to-self`, trusted());
      expect(expectPage(result).finalUrl).toBe(`http://public.test:${origin.port}/home`);
    });

    it("refuses a redirect to 127.0.0.1, by address, by name or IPv4-mapped", async () => {
      for (const path of ["/to-literal", "/to-name", "/to-mapped"]) {
        const result = await fetchHomepage(`http://public.test:${origin.port}${path}`, trusted());
        expectFailure(result, "blocked_address");
      }
      expect(origin.requests).toEqual(expect.arrayContaining(["/to-literal", "/to-name", "/to-mapped"]));
      expect(internal.requests).toEqual([]);
    });
  });

  it("connects to the address it validated, not to a second DNS answer", async () => {
    // Same port on two loopback addresses: the first DNS answer (trusted) and a later one (not).
    const later = await server((_request, response) => html(response, "rebound"), "127.0.0.1");
    const validated = await server(
      (_request, response) => html(response, "validated"),
      "127.0.0.2",
      later.port,
    );
    const { resolve, calls } = tableResolver({
      "rebind.test": (call) => (call === 1 ? ["127.0.0.2"] : ["127.0.0.1"]),
    });

    const options = refusing({ resolve, trustedAddresses: ["127.0.0.2"] });
    const first = await fetchHomepage(`http://rebind.test:${later.port}/`, options);
    expect(text(expectPage(first).body)).toBe("validated");
    expect(calls).toEqual(["rebind.test"]);
    expect(validated.requests).toEqual(["/"]);
    expect(later.requests).toEqual([]);

    // The next fetch resolves again and is refused by the new answer.
    expectFailure(await fetchHomepage(`http://rebind.test:${later.port}/`, options), "blocked_address");
    expect(later.requests).toEqual([]);
  });
});

describe("with private networks allowed", () => {
  const allowing = (extra: Partial<FetchHomepageOptions> = {}): FetchHomepageOptions => ({
    allowPrivateNetworks: true,
    userAgent,
    resolve: systemResolve,
    ...extra,
  });

  it("fetches a normal page after one relative redirect, with an honest User-Agent", async () => {
    let seenUserAgent: string | undefined;
    let seenHost: string | undefined;
    const site = await server((request, response) => {
      seenUserAgent = request.headers["user-agent"];
      seenHost = request.headers.host;
      if (request.url === "/") {
        response.writeHead(301, { location: "welcome?lang=fr" });
        return response.end();
      }
      html(response);
    });
    const { resolve } = tableResolver({ "bakery.test": ["127.0.0.1"] });

    const result = expectPage(await fetchHomepage(`http://bakery.test:${site.port}/`, allowing({ resolve })));
    expect(result.finalUrl).toBe(`http://bakery.test:${site.port}/welcome?lang=fr`);
    expect(result.status).toBe(200);
    expect(result.contentType).toBe("text/html; charset=utf-8");
    expect(text(result.body)).toBe(page);
    expect(site.requests).toEqual(["/", "/welcome?lang=fr"]);
    expect(seenUserAgent).toBe(userAgent);
    expect(seenHost).toBe(`bakery.test:${site.port}`);
  });

  it("stops an endless redirect loop after 5 redirects", async () => {
    let hops = 0;
    const site = await server((_request, response) => {
      hops += 1;
      response.writeHead(302, { location: `/loop/${hops}` });
      response.end();
    });
    const result = await fetchHomepage(`${site.origin}/`, allowing());
    expectFailure(result, "too_many_redirects");
    expect(site.requests).toHaveLength(6);
  });

  it("cuts a 50 MB body at 2 MB quickly, without reading it all", async () => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    const total = 50 * 1024 * 1024;
    let written = 0;
    let finished = false;
    let responseClosed: Promise<void> | undefined;
    const site = await server((_request, response) => {
      responseClosed = new Promise((resolve) => response.on("close", resolve));
      response.on("finish", () => {
        finished = true;
      });
      response.writeHead(200, { "content-type": "text/html" });
      const writeMore = () => {
        while (written < total) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once("drain", writeMore);
        }
        response.end();
      };
      writeMore();
    });

    const started = performance.now();
    const result = await fetchHomepage(`${site.origin}/big`, allowing());
    expectFailure(result, "too_large");
    expect(performance.now() - started).toBeLessThan(5_000);
    await responseClosed;
    expect(finished).toBe(false);
    // Only what the sockets' buffers took before the fetcher hung up.
    expect(written).toBeLessThan(12 * 1024 * 1024);
  });

  it("refuses a body whose Content-Length is over the cap before reading it", async () => {
    const site = await server((_request, response) => {
      response.writeHead(200, { "content-type": "text/html", "content-length": String(50 * 1024 * 1024) });
      response.write("<html>");
    });
    expectFailure(await fetchHomepage(`${site.origin}/`, allowing()), "too_large");
  });

  it("honours a smaller maxBytes", async () => {
    const site = await server((_request, response) => html(response, "x".repeat(1_001)));
    expectFailure(await fetchHomepage(`${site.origin}/`, allowing({ maxBytes: 1_000 })), "too_large");
    expectPage(await fetchHomepage(`${site.origin}/`, allowing({ maxBytes: 1_001 })));
  });

  it("decompresses gzip, deflate and brotli, and caps the decompressed size of a gzip bomb", async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
    const encoders: Record<string, (body: string) => Buffer> = {
      gzip: gzipSync,
      deflate: deflateSync,
      br: brotliCompressSync,
      compress: (body) => Buffer.from(body),
    };
    const site = await server((request, response) => {
      const encoding = request.url?.slice(1) ?? "";
      const body = encoding === "bomb" ? bomb : encoders[encoding]!(page);
      response.writeHead(200, {
        "content-type": "text/html",
        "content-encoding": encoding === "bomb" ? "gzip" : encoding,
      });
      response.end(body);
    });
    for (const encoding of ["gzip", "deflate", "br"]) {
      expect(
        text(expectPage(await fetchHomepage(`${site.origin}/${encoding}`, allowing())).body),
        encoding,
      ).toBe(page);
    }
    expectFailure(await fetchHomepage(`${site.origin}/compress`, allowing()), "unsupported_encoding");
    expectFailure(await fetchHomepage(`${site.origin}/bomb`, allowing()), "too_large");
  });

  it("stops a server that trickles one byte a second at the timeout", async () => {
    const site = await server((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      const timer = setInterval(() => response.write("a"), 1_000);
      response.on("close", () => clearInterval(timer));
    });
    const started = performance.now();
    expectFailure(await fetchHomepage(`${site.origin}/`, allowing({ timeoutMs: 1_500 })), "timeout");
    const elapsedMs = performance.now() - started;
    expect(elapsedMs).toBeGreaterThanOrEqual(1_400);
    expect(elapsedMs).toBeLessThan(4_000);
  });

  it("counts the timeout across all redirect hops", async () => {
    const site = await server((request, response) => {
      setTimeout(() => {
        response.writeHead(302, { location: `${request.url}x` });
        response.end();
      }, 400);
    });
    const started = performance.now();
    const result = await fetchHomepage(`${site.origin}/`, allowing({ timeoutMs: 1_500 }));
    expectFailure(result, "timeout");
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(site.requests.length).toBeLessThan(6);
  });

  it("times out a server that never answers", async () => {
    const site = await server(() => {});
    expectFailure(await fetchHomepage(`${site.origin}/`, allowing({ timeoutMs: 500 })), "timeout");
  });

  it("returns the bytes of a page with an unknown charset as they are", async () => {
    const bytes = Buffer.from([...Buffer.from("<p>"), 0xa9, ...Buffer.from(" 2012</p>")]);
    const site = await server((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=no-such-charset" });
      response.end(bytes);
    });
    const result = expectPage(await fetchHomepage(`${site.origin}/`, allowing()));
    expect(result.contentType).toBe("text/html; charset=no-such-charset");
    expect(Buffer.from(result.body).equals(bytes)).toBe(true);
  });

  it("accepts XHTML and a missing Content-Type, refuses a PDF", async () => {
    const site = await server((request, response) => {
      if (request.url === "/xhtml") response.setHeader("content-type", "application/xhtml+xml");
      if (request.url === "/pdf") response.setHeader("content-type", "application/pdf");
      response.end(page);
    });
    expectPage(await fetchHomepage(`${site.origin}/xhtml`, allowing()));
    expect(expectPage(await fetchHomepage(`${site.origin}/none`, allowing())).contentType).toBeNull();
    expect(expectFailure(await fetchHomepage(`${site.origin}/pdf`, allowing()), "not_html").detail).toBe(
      "application/pdf",
    );
  });

  it("turns HTTP error statuses into failures", async () => {
    const site = await server((request, response) => {
      response.writeHead(Number(request.url?.slice(1)), { "content-type": "text/html" });
      response.end(page);
    });
    expectFailure(await fetchHomepage(`${site.origin}/404`, allowing()), "http_404");
    expectFailure(await fetchHomepage(`${site.origin}/503`, allowing()), "http_503");
  });

  it("refuses a redirect without a Location", async () => {
    const site = await server((_request, response) => {
      response.writeHead(302);
      response.end();
    });
    expectFailure(await fetchHomepage(`${site.origin}/`, allowing()), "bad_redirect");
  });

  it("refuses other schemes, bad URLs and ports browsers refuse", async () => {
    expectFailure(await fetchHomepage("ftp://ftp.example.com/index.html", allowing()), "unsupported_scheme");
    expectFailure(await fetchHomepage("file:///etc/passwd", allowing()), "unsupported_scheme");
    expectFailure(await fetchHomepage("not a url", allowing()), "invalid_url");
    expectFailure(await fetchHomepage("http://127.0.0.1:25/", allowing()), "blocked_port");
    const site = await server((_request, response) => {
      response.writeHead(302, { location: "ftp://127.0.0.1/" });
      response.end();
    });
    expectFailure(await fetchHomepage(`${site.origin}/`, allowing()), "unsupported_scheme");
  });

  it("connects TLS to the validated address with the hostname as server name, and verifies the certificate", async () => {
    const serverNames: string[] = [];
    const context = createSecureContext(selfSigned);
    const tlsServer = createTlsServer(
      {
        ...selfSigned,
        SNICallback: (serverName, done) => {
          serverNames.push(serverName);
          done(null, context);
        },
      },
      (_request, response) => html(response),
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = tlsServer.address() as AddressInfo;
      const { resolve, calls } = tableResolver({ "public.test": ["127.0.0.1"] });
      const result = await fetchHomepage(`https://public.test:${port}/`, allowing({ resolve }));
      expectFailure(result, "tls_failed");
      expect(calls).toEqual(["public.test"]);
      expect(serverNames).toEqual(["public.test"]);
    } finally {
      tlsServer.closeAllConnections();
      await new Promise((resolve) => tlsServer.close(resolve));
    }
  });

  it("still refuses multicast and unspecified addresses", async () => {
    expectFailure(await fetchHomepage("http://0.0.0.0/", allowing()), "blocked_address");
    expectFailure(await fetchHomepage("http://224.0.0.1/", allowing()), "blocked_address");
  });

  it("reports DNS failures", async () => {
    const { resolve } = tableResolver({ "empty.test": [] });
    expectFailure(await fetchHomepage("http://missing.test/", allowing({ resolve })), "dns_failed");
    expectFailure(await fetchHomepage("http://empty.test/", allowing({ resolve })), "dns_failed");
  });

  it("reports a refused connection, and tries the next address first", async () => {
    const closed = await startServer(() => {});
    await closed.close();
    expectFailure(await fetchHomepage(`${closed.origin}/`, allowing()), "connection_failed");

    const { resolve } = tableResolver({ "two.test": ["127.0.0.3", "127.0.0.1"] });
    const result = await fetchHomepage(`http://two.test:${normal.port}/`, allowing({ resolve }));
    expect(text(expectPage(result).body)).toBe(page);
  });

  it("reports a connection closed mid-response", async () => {
    const site = await server((_request, response) => {
      response.writeHead(200, { "content-type": "text/html", "content-length": "1000" });
      response.write("<html>");
      setTimeout(() => response.socket?.destroy(), 50);
    });
    expectFailure(await fetchHomepage(`${site.origin}/`, allowing()), "connection_failed");
  });
});
