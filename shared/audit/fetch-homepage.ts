import { createHash } from "node:crypto";
import { isIP } from "node:net";
import { pipeline, type Readable } from "node:stream";
import { createSecureContext, rootCertificates } from "node:tls";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { LRUCache } from "lru-cache";
import { Agent, type Dispatcher } from "undici";
import { classifyAddress, isAllowedAddress } from "./address-policy.ts";
import type { DemoSites } from "./demo-sites.ts";
import type { FetchMemoryBudget, FetchPoliteness } from "./fetch-politeness.ts";

/**
 * Fetches one business homepage for the audit, safely: the URL comes from a places provider
 * and so from whoever edited the business listing.
 *
 * - http and https only; redirects are followed here, each hop checked like the first.
 * - Every hostname is resolved here and each of its addresses checked against the address
 *   policy; the socket then connects to one of those very addresses (the request goes to the IP,
 *   with the Host header and TLS server name of the hostname), so a second DNS answer can never
 *   redirect the connection (no DNS rebinding).
 * - One deadline for the whole fetch, every hop included; the body is read up to `maxBytes`
 *   and dropped beyond; only HTML is accepted.
 *
 * Problems with the site or the network come back as a `FetchFailure`, never as an exception.
 */

export interface FetchHomepageOptions {
  /** Lets loopback, private, link-local and CGNAT addresses through: tests and demos only. */
  allowPrivateNetworks: boolean;
  /** Sent on every request: names the bot and where to read about it. */
  userAgent: string;
  /** Deadline of the whole fetch, all hops. Default 10 000. */
  timeoutMs?: number;
  /** Largest body accepted, after decompression. Default 2 MiB. */
  maxBytes?: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects?: number;
  /**
   * Resolves a hostname to its addresses: the audit stack's c-ares resolver (not libuv's thread
   * pool) on the DNS_SERVERS, with a small cache (`createCachingResolver`).
   */
  resolve: (hostname: string) => Promise<string[]>;
  /**
   * Exact addresses allowed in spite of the policy. For tests, where a local server stands in
   * for a public site while the policy stays in force for every other address.
   */
  trustedAddresses?: readonly string[];
  /**
   * Requests at once per hostname and per IP address, shared by every fetch of the process (one
   * per audit stack). Unset: no limit but the connection pool's 16 per IP and port.
   */
  politeness?: FetchPoliteness;
  /**
   * Bytes of bodies in memory, shared by every fetch of the process: a body is read only once its
   * declared size (or `maxBytes` when compressed or undeclared) fits. Unset: no limit but the count.
   */
  memoryBudget?: FetchMemoryBudget;
  /**
   * Certificate authorities trusted besides the system's (PEM), e.g. a test CA (`AUDIT_CA_FILE`).
   */
  extraCa?: string;
  /**
   * The connection pool to use, from `createHomepageAgent` with these same options (its owner
   * closes it). Unset: one pool per set of limits shared by the process.
   */
  agent?: Agent;
  /** Offline demo only: homepages of `.example` hosts answered without the network. */
  demoSites?: DemoSites | undefined;
}

export interface FetchedPage {
  ok: true;
  /** URL of the page after redirects. */
  finalUrl: string;
  status: number;
  /** The Content-Type header as sent (charset included), null when absent. */
  contentType: string | null;
  /** The body, decompressed but not decoded; a standalone buffer (safe to transfer to a worker). */
  body: Uint8Array;
}

type FetchFailureCode =
  | "invalid_url"
  | "unsupported_scheme"
  | "blocked_address"
  | "blocked_port"
  | "dns_failed"
  | "too_many_redirects"
  | "bad_redirect"
  | "timeout"
  | "too_large"
  | "not_html"
  | "unsupported_encoding"
  | "invalid_response"
  | "tls_failed"
  | "connection_failed"
  | `http_${number}`;

export interface FetchFailure {
  ok: false;
  failure: FetchFailureCode;
  detail?: string;
  /** The system's or TLS's error code behind a dns, connection or tls failure (`ENOTFOUND`, `ECONNREFUSED`, `CERT_HAS_EXPIRED`). */
  errorCode?: string;
}

/**
 * How a fetch ended, when it is one of the ends that say a site is down (DESIGN "Pitch facts",
 * site_unreachable): no such domain, a refused connection, an HTTP 5xx, 404 or 410 at the
 * homepage. Null for every other end: 401/403/429 are bot blocks, and our own timeout says nothing.
 */
export function unreachableResult(result: FetchedPage | FetchFailure): string | null {
  if (result.ok) return null;
  if (result.failure === "dns_failed" && result.errorCode === "ENOTFOUND") return "no_such_domain";
  if (result.failure === "connection_failed" && result.errorCode === "ECONNREFUSED")
    return "connection_refused";
  const status = /^http_(\d{3})$/.exec(result.failure)?.[1];
  if (status !== undefined && (status.startsWith("5") || status === "404" || status === "410")) {
    return result.failure;
  }
  return null;
}

/** The certificate problem behind a TLS failure, or null when the failure is not about the certificate. */
export function certificateProblemOf(
  result: FetchedPage | FetchFailure,
): "expired" | "wrong_host" | "self_signed" | "untrusted" | null {
  if (result.ok || result.failure !== "tls_failed" || result.errorCode === undefined) return null;
  const code = result.errorCode;
  if (code === "CERT_HAS_EXPIRED" || code === "CERT_NOT_YET_VALID") return "expired";
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID" || code === "HOSTNAME_MISMATCH") return "wrong_host";
  if (code === "DEPTH_ZERO_SELF_SIGNED_CERT" || code === "SELF_SIGNED_CERT_IN_CHAIN") return "self_signed";
  if (/CERT|UNABLE_TO_(?:GET|VERIFY)/.test(code)) return "untrusted";
  return null;
}

const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 5;

type Limits = {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  connectionsPerOrigin: number;
  extraCa: string | undefined;
};

export async function fetchHomepage(
  url: string,
  options: FetchHomepageOptions,
): Promise<FetchedPage | FetchFailure> {
  const limits = limitsOf(options);
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    return failure("invalid_url", url);
  }

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), limits.timeoutMs);
  const leftovers: Leftovers = { draining: false };
  try {
    for (let redirectsFollowed = 0; ; redirectsFollowed++) {
      const hop = await fetchOnce(current, options, limits, deadline.signal, leftovers);
      if (hop.kind === "failure") return hop.failure;
      if (hop.kind === "page") return hop.page;

      if (redirectsFollowed >= limits.maxRedirects) {
        return failure("too_many_redirects", `more than ${limits.maxRedirects} redirects`);
      }
      try {
        current = new URL(hop.location, current);
      } catch {
        return failure("bad_redirect", `unparsable Location: ${hop.location}`);
      }
    }
  } finally {
    clearTimeout(timer);
    // Stops whatever this fetch left running: bodies of redirects and error pages still being
    // drained. Only then: an abort builds an exception object, which most fetches need not pay.
    if (leftovers.draining && !deadline.signal.aborted) deadline.abort(FETCH_ENDED);
  }
}

/** What a fetch left running after it returned: bodies being drained (see `discard`). */
interface Leftovers {
  draining: boolean;
}

/** The reason given to the drains a fetch left behind when it ends: made once, not per fetch. */
const FETCH_ENDED = Object.freeze(new Error("the homepage fetch ended"));

/** Closes the pooled connections (on shutdown). Later fetches open new ones. */
export async function closeHomepageAgents(): Promise<void> {
  const agents = [...agentsByLimits.values()];
  agentsByLimits.clear();
  await Promise.all(agents.map((agent) => agent.close()));
}

type HopResult =
  | { kind: "page"; page: FetchedPage }
  | { kind: "redirect"; location: string }
  | { kind: "failure"; failure: FetchFailure };

const redirectStatuses: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

async function fetchOnce(
  url: URL,
  options: FetchHomepageOptions,
  limits: Limits,
  signal: AbortSignal,
  leftovers: Leftovers,
): Promise<HopResult> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { kind: "failure", failure: failure("unsupported_scheme", url.protocol) };
  }
  const demoPage = options.demoSites?.homepage(url);
  if (demoPage) return { kind: "page", page: demoPage };
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  if (blockedPorts.has(port)) return { kind: "failure", failure: failure("blocked_port", String(port)) };

  const addresses = await resolveAndCheck(url.hostname, options, signal);
  if ("failure" in addresses) return { kind: "failure", failure: addresses.failure };

  let held: { response: Dispatcher.ResponseData; release: () => void };
  try {
    held = await requestFromFirstReachable(url, port, addresses.list, options, limits, signal);
  } catch (error) {
    return { kind: "failure", failure: failureFromError(error, signal) };
  }
  try {
    return await readResponse(url, held.response, limits, signal, options.memoryBudget, leftovers);
  } finally {
    // The politeness slot is held until the body is read (or dropped).
    held.release();
  }
}

async function readResponse(
  url: URL,
  response: Dispatcher.ResponseData,
  limits: Limits,
  signal: AbortSignal,
  memoryBudget: FetchMemoryBudget | undefined,
  leftovers: Leftovers,
): Promise<HopResult> {
  const { statusCode, headers, body } = response;

  if (redirectStatuses.has(statusCode)) {
    discard(body, signal, leftovers);
    const location = headerValue(headers.location);
    if (location === null) {
      return { kind: "failure", failure: failure("bad_redirect", "redirect without Location") };
    }
    return { kind: "redirect", location };
  }
  if (statusCode < 200 || statusCode >= 300) {
    discard(body, signal, leftovers);
    return { kind: "failure", failure: failure(`http_${statusCode}`) };
  }

  const contentType = headerValue(headers["content-type"]);
  if (!isHtml(contentType)) {
    drop(body);
    return { kind: "failure", failure: failure("not_html", contentType ?? undefined) };
  }

  // undici's maxResponseSize only counts bytes as they arrive: refuse a declared oversize at once.
  const declaredLength = Number(headerValue(headers["content-length"]) ?? Number.NaN);
  if (declaredLength > limits.maxBytes) {
    drop(body);
    return { kind: "failure", failure: failure("too_large", `Content-Length ${declaredLength}`) };
  }

  const decoded = decompressed(body, headerValue(headers["content-encoding"]));
  if (decoded === null) {
    drop(body);
    return {
      kind: "failure",
      failure: failure("unsupported_encoding", headerValue(headers["content-encoding"]) ?? ""),
    };
  }

  // Admission by memory, once the site answers: room for the whole body is reserved before a byte
  // of it is read, and released once it is in one buffer (its analysis then counts it).
  const identity = (headerValue(headers["content-encoding"]) ?? "identity").toLowerCase() === "identity";
  const expectedBytes = identity && Number.isFinite(declaredLength) ? declaredLength : limits.maxBytes;
  let releaseMemory = () => {};
  if (memoryBudget) {
    try {
      releaseMemory = await memoryBudget.reserve(expectedBytes, signal);
    } catch {
      decoded.destroy();
      drop(body);
      return { kind: "failure", failure: failure("timeout", "waiting for memory to read the body") };
    }
  }
  try {
    const bytes = await readAtMost(decoded, limits.maxBytes);
    if (bytes === null) {
      return { kind: "failure", failure: failure("too_large", `over ${limits.maxBytes} bytes`) };
    }
    return {
      kind: "page",
      page: { ok: true, finalUrl: url.href, status: statusCode, contentType, body: bytes },
    };
  } catch (error) {
    return { kind: "failure", failure: failureFromError(error, signal) };
  } finally {
    releaseMemory();
    decoded.destroy();
    drop(body);
  }
}

type CheckedAddresses = { list: string[] } | { failure: FetchFailure };

/**
 * Resolves the URL's host and checks every address: a hostname with any refused address is
 * refused as a whole (one private answer among public ones is a rebinding attempt, not a site).
 */
async function resolveAndCheck(
  urlHostname: string,
  options: FetchHomepageOptions,
  signal: AbortSignal,
): Promise<CheckedAddresses> {
  const hostname = urlHostname.startsWith("[") ? urlHostname.slice(1, -1) : urlHostname;

  let addresses: string[];
  if (isIP(hostname) !== 0) {
    addresses = [hostname];
  } else if (hostname === "localhost" || hostname.endsWith(".localhost")) {
    // RFC 6761: always the loopback interface, whatever a DNS server says.
    addresses = ["127.0.0.1", "::1"];
  } else {
    try {
      addresses = await untilAborted(options.resolve(hostname), signal);
    } catch (error) {
      if (signal.aborted) return { failure: failure("timeout", `resolving ${hostname}`) };
      const code = errorCode(error);
      return { failure: failure("dns_failed", `${hostname}: ${code ?? describe(error)}`, code) };
    }
    if (addresses.length === 0) return { failure: failure("dns_failed", `${hostname}: no address`) };
  }

  for (const address of addresses) {
    const trusted = options.trustedAddresses?.includes(address) ?? false;
    if (!trusted && !isAllowedAddress(address, options)) {
      return {
        failure: failure("blocked_address", `${hostname} -> ${address} (${classifyAddress(address)})`),
      };
    }
  }
  return { list: addresses };
}

/** Codes of errors raised while connecting, before any byte of the request was sent. */
const connectErrorCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "EAFNOSUPPORT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * Sends the request to the checked addresses in turn (a site whose IPv6 address is unreachable
 * from here still answers on IPv4), moving on only when the connection itself failed.
 */
async function requestFromFirstReachable(
  url: URL,
  port: number,
  addresses: string[],
  options: FetchHomepageOptions,
  limits: Limits,
  signal: AbortSignal,
): Promise<{ response: Dispatcher.ResponseData; release: () => void }> {
  const agent = options.agent ?? agentFor(limits);
  // An IP literal in the URL has no hostname of its own to be polite to: its address is.
  const politeHost = isIP(url.hostname.replace(/^\[|\]$/g, "")) === 0 ? url.hostname : null;
  let lastError: unknown;
  for (const address of addresses) {
    const host = isIP(address) === 6 ? `[${address}]` : address;
    const release = options.politeness
      ? await options.politeness.acquire(politeHost, address, signal)
      : () => {};
    try {
      const response = await agent.request({
        origin: `${url.protocol}//${host}:${port}`,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: {
          // Also makes undici use the hostname for TLS SNI and certificate checks.
          host: url.host,
          "user-agent": options.userAgent,
          accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1",
          "accept-encoding": "gzip, deflate, br",
        },
        signal,
      });
      return { response, release };
    } catch (error) {
      release();
      lastError = error;
      const code = errorCode(error);
      if (signal.aborted || code === undefined || !connectErrorCodes.has(code)) throw error;
    }
  }
  throw lastError;
}

/**
 * One agent per set of limits, kept for the life of the process: in practice one, since a
 * process audits with one configuration. Connections are pooled per IP and port.
 */
const agentsByLimits = new Map<string, Agent>();

function agentFor(limits: Limits): Agent {
  const caKey = limits.extraCa === undefined ? "" : createHash("sha256").update(limits.extraCa).digest("hex");
  const key = `${limits.timeoutMs}:${limits.maxBytes}:${limits.connectionsPerOrigin}:${caKey}`;
  let agent = agentsByLimits.get(key);
  if (agent === undefined) {
    agent = newAgent(limits);
    agentsByLimits.set(key, agent);
  }
  return agent;
}

/** A connection pool for fetches made with `options` (pass it back as `options.agent`). */
export function createHomepageAgent(options: Omit<FetchHomepageOptions, "agent">): Agent {
  return newAgent(limitsOf(options));
}

function newAgent(limits: Limits): Agent {
  return new Agent({
    // Per origin, that is per IP and port: hosting platforms serve many businesses from one IP,
    // so several audits may be fetching from the same origin at once (as many as politeness allows).
    connections: limits.connectionsPerOrigin,
    pipelining: 1,
    // How many sites are fetched at once is bounded by the audit queue's concurrency, not here:
    // a cap on origins would fail audits under load instead of slowing them.
    maxOrigins: Number.POSITIVE_INFINITY,
    connect: {
      timeout: Math.min(limits.timeoutMs, 5_000),
      // One TLS context for every connection of the pool: built per connection, it costs about a
      // quarter of a millisecond of CPU each (hundreds of fetches at once). Extra authorities are
      // trusted besides the system's, never instead of them.
      secureContext: createSecureContext(
        limits.extraCa === undefined ? {} : { ca: [...rootCertificates, limits.extraCa] },
      ),
    },
    headersTimeout: limits.timeoutMs,
    bodyTimeout: limits.timeoutMs,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 10_000,
    maxHeaderSize: 64 * 1024,
    // A backstop on raw bytes; the decompressed size is capped while reading.
    maxResponseSize: limits.maxBytes,
    maxRequestsPerClient: 100,
    allowH2: false,
    // Requests go to IP literals already chosen and checked.
    autoSelectFamily: false,
  });
}

function decompressed(body: Readable, contentEncoding: string | null): Readable | null {
  const encoding = (contentEncoding ?? "identity").trim().toLowerCase();
  const decoder =
    encoding === "identity" || encoding === ""
      ? null
      : encoding === "gzip" || encoding === "x-gzip"
        ? createGunzip()
        : encoding === "deflate"
          ? createInflate()
          : encoding === "br"
            ? createBrotliDecompress()
            : undefined;
  if (decoder === undefined) return null;
  if (decoder === null) return body;
  // Errors of either stream reach the reader through the decoder, which pipeline destroys.
  pipeline(body, decoder, () => {});
  return decoder;
}

/** Reads the stream into one standalone buffer; null as soon as it exceeds maxBytes. */
async function readAtMost(stream: Readable, maxBytes: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) return null;
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Stops reading a body. One not read to its end is destroyed with an abort error (undici's), which
 * nobody else listens for once the fetch no longer aborts its signal at every end: ignored here.
 */
function drop(body: Dispatcher.ResponseData["body"]): void {
  if (!body.readableEnded) body.on("error", () => {});
  body.destroy();
}

/**
 * Drains a small body in the background so the connection can be reused; a body over the limit
 * is dropped, and a slow one is cut when the fetch ends (its signal is aborted then).
 */
function discard(body: Dispatcher.ResponseData["body"], signal: AbortSignal, leftovers: Leftovers): void {
  leftovers.draining = true;
  body.dump({ limit: 64 * 1024, signal }).catch(() => {});
}

function isHtml(contentType: string | null): boolean {
  if (contentType === null) return true;
  const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return mediaType === "" || mediaType === "text/html" || mediaType === "application/xhtml+xml";
}

function headerValue(value: string | string[] | undefined): string | null {
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

function failureFromError(error: unknown, signal: AbortSignal): FetchFailure {
  if (signal.aborted) return failure("timeout");
  const code = errorCode(error);
  const detail = code ?? describe(error);
  if (code === undefined) return failure("connection_failed", detail);
  const withCode = (kind: "connection_failed" | "tls_failed") => failure(kind, detail, code);
  if (
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT"
  ) {
    return failure("timeout", detail);
  }
  if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE") return failure("too_large", detail);
  if (code === "UND_ERR_HEADERS_OVERFLOW" || code.startsWith("HPE_") || code.startsWith("Z_")) {
    return failure("invalid_response", detail);
  }
  if (code.startsWith("ERR__ERROR_")) return failure("invalid_response", detail);
  if (
    code.startsWith("ERR_TLS_") ||
    code.startsWith("ERR_SSL_") ||
    code === "EPROTO" ||
    /CERT|SELF_SIGNED|UNABLE_TO_/.test(code)
  ) {
    return withCode("tls_failed");
  }
  return withCode("connection_failed");
}

function failure(code: FetchFailureCode, detail?: string, systemCode?: string): FetchFailure {
  const failed: FetchFailure = { ok: false, failure: code };
  if (detail !== undefined) failed.detail = detail;
  if (systemCode !== undefined) failed.errorCode = systemCode;
  return failed;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function limitsOf(options: FetchHomepageOptions): Limits {
  const nonNegativeInteger = (value: number | undefined, fallback: number, name: string) => {
    const chosen = value ?? fallback;
    if (!Number.isInteger(chosen) || chosen < 0)
      throw new RangeError(`${name} must be a non-negative integer`);
    return chosen;
  };
  return {
    timeoutMs: nonNegativeInteger(options.timeoutMs, DEFAULT_TIMEOUT_MS, "timeoutMs"),
    maxBytes: nonNegativeInteger(options.maxBytes, DEFAULT_MAX_BYTES, "maxBytes"),
    maxRedirects: nonNegativeInteger(options.maxRedirects, DEFAULT_MAX_REDIRECTS, "maxRedirects"),
    connectionsPerOrigin: Math.max(16, options.politeness?.perAddress ?? 16),
    extraCa: options.extraCa,
  };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Ports browsers refuse to fetch from (the Fetch standard's "bad ports"): talking HTTP to a mail
 * or database server is a way to attack it.
 */
const blockedPorts: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

// --- DNS -------------------------------------------------------------------------------------

/** The part of a c-ares `dns.promises.Resolver` the cache uses. */
export interface AddressQueries {
  resolve4(hostname: string, options: { ttl: true }): Promise<Array<{ address: string; ttl: number }>>;
  resolve6(hostname: string, options: { ttl: true }): Promise<Array<{ address: string; ttl: number }>>;
}

export interface CachingResolverOptions {
  queries: AddressQueries;
  /** Upper bound of how long an answer is kept, whatever its TTL. */
  maxTtlMs: number;
  maxEntries: number;
  now?: () => number;
}

/**
 * Resolves A and AAAA records through the given queries, keeps answers for their TTL (at most
 * maxTtlMs; when full, the least recently used goes) and shares one lookup between concurrent callers. A hostname with an answer for
 * either family resolves; it fails only when both fail.
 */
export function createCachingResolver(
  options: CachingResolverOptions,
): (hostname: string) => Promise<string[]> {
  const cache = new LRUCache<string, string[]>({
    max: options.maxEntries,
    ttl: options.maxTtlMs,
    // The clock read at every look (no 1 ms reading kept, so an injected clock is seen at once).
    ttlResolution: 0,
    perf: { now: options.now ?? Date.now },
  });
  const inFlight = new Map<string, Promise<string[]>>();

  async function lookup(hostname: string): Promise<string[]> {
    const [v4, v6] = await Promise.allSettled([
      options.queries.resolve4(hostname, { ttl: true }),
      options.queries.resolve6(hostname, { ttl: true }),
    ]);
    const records = [
      ...(v4.status === "fulfilled" ? v4.value : []),
      ...(v6.status === "fulfilled" ? v6.value : []),
    ];
    if (records.length === 0) {
      const rejected = [v4, v6].find(
        (result) => result.status === "rejected" && errorCode(result.reason) !== "ENODATA",
      );
      if (rejected?.status === "rejected") throw rejected.reason;
      return [];
    }
    const ttlMs = Math.min(options.maxTtlMs, ...records.map((record) => record.ttl * 1000));
    const addresses = records.map((record) => record.address);
    // A zero TTL means "do not keep" in DNS, but "keep forever" in lru-cache.
    if (ttlMs > 0) cache.set(hostname, addresses, { ttl: ttlMs });
    return addresses;
  }

  return (hostname: string) => {
    const key = hostname.toLowerCase();
    const cached = cache.get(key);
    if (cached !== undefined) return Promise.resolve([...cached]);
    const pending = inFlight.get(key);
    if (pending !== undefined) return pending.then((addresses) => [...addresses]);
    const started = lookup(key).finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started.then((addresses) => [...addresses]);
  };
}
