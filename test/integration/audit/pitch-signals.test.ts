/**
 * The pitch facts' audit signals (DESIGN "Pitch facts"), on synthetic sites the test serves on
 * loopback, through the audit stack as the service builds it from its configuration: the fetcher
 * (with `DNS_SERVERS` pointed at a DNS server on loopback and `AUDIT_CA_FILE` at a CA made for
 * this run), the analysis pool, and the cache write.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import analyzeTask from "../../../shared/audit/analyze-task.ts";
import { type AuditTarget, auditSite, confirmationOf } from "../../../shared/audit/audit-site.ts";
import { type AuditStack, createAuditStack } from "../../../shared/audit/audit-stack.ts";
import { readCurrentAudits } from "../../../shared/audit/cache.ts";
import { closeHomepageAgents } from "../../../shared/audit/fetch-homepage.ts";
import type { SiteAudit } from "../../../shared/audit/types.ts";
import { loadConfig } from "../../../shared/config.ts";
import { createMetrics } from "../../../shared/metrics.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { type FakeDnsServer, startFakeDns } from "../../support/fake-dns.ts";
import {
  type FakeSite,
  type FakeSitesServer,
  MODERN_HOMEPAGE,
  OLD_HOMEPAGE,
  startFakeSites,
} from "../../support/fake-sites.ts";
import { systemResolve } from "../../support/system-resolve.ts";
import { makeTestCertificates, type TestCertificates } from "../../support/test-certificates.ts";

let database: TestDatabase;
let certificates: TestCertificates;
let dns: FakeDnsServer;
let stack: AuditStack;
/** Plain http only: a TLS handshake on its port gets an HTTP 400. */
let plain: FakeSitesServer;
/** http and https on one port, the certificate signed by the test CA for localhost. */
let secure: FakeSitesServer;
/** https with a redirect back to http: its https pages. */
let downgrading: FakeSitesServer;
const downgradingHttpsPages = new Map<string, FakeSite>();
const invalid: Record<"expired" | "wrongHost" | "selfSigned", FakeSitesServer> = {} as never;
/** A port nothing listens on (a server bound it, then closed). */
let closedPort: number;

beforeAll(async () => {
  database = await createTestDatabase();
  certificates = makeTestCertificates();
  plain = await startFakeSites();
  secure = await startFakeSites({ tls: certificates.localhost });
  downgrading = await startFakeSites({ tls: certificates.localhost, httpsSites: downgradingHttpsPages });
  invalid.expired = await startFakeSites({ tls: certificates.expired });
  invalid.wrongHost = await startFakeSites({ tls: certificates.wrongHost });
  invalid.selfSigned = await startFakeSites({ tls: certificates.selfSigned });
  // Social hosts resolve here, so that a fetch would reach `plain` (none must happen).
  dns = await startFakeDns({ "www.facebook.com": { A: ["127.0.0.1"] }, "linktr.ee": { A: ["127.0.0.1"] } });
  const closed: Server = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));

  const config = loadConfig({
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    AUDIT_THREADS: "1",
    DNS_SERVERS: dns.address,
    AUDIT_CA_FILE: certificates.caFile,
    LOG_LEVEL: "silent",
  });
  stack = createAuditStack(config, { db: database.db, metrics: createMetrics({ defaultMetrics: false }) });
});
afterAll(async () => {
  await stack?.close();
  await closeHomepageAgents(); // the pool of the timeout case's own fetch
  for (const server of [plain, secure, downgrading, ...Object.values(invalid)]) await server?.close();
  await dns?.close();
  certificates?.remove();
  await database?.close();
});

let placeNumber = 0;
const target = (url: string): AuditTarget => ({ placeId: `pitch-${++placeNumber}`, url, country: "CA" });

/** Both attempts of an audit, as the auditors run them (the second one without the wait). */
async function twoAttempts(url: string): Promise<{ first: SiteAudit; second: SiteAudit | null }> {
  const place = target(url);
  const first = await stack.run(place);
  const again = confirmationOf(place, first);
  return { first, second: again === null ? null : await stack.run(again) };
}

describe("site_unreachable: two attempts, both down", () => {
  it.each([
    ["a refused connection", () => `http://127.0.0.1:${closedPort}/`, "connection_refused"],
    ["no such domain", () => "http://bakery.nxdomain.test/", "no_such_domain"],
    ["a repeated 503", () => plain.url("/down-503"), "http_503"],
    ["a 404 at the homepage", () => plain.url("/gone-404"), "http_404"],
    ["a 410 at the homepage", () => plain.url("/gone-410"), "http_410"],
  ])("%s", async (_case, url, result) => {
    plain.set("/down-503", { status: 503 });
    plain.set("/gone-410", { status: 410 });
    // /gone-404: no such path, the fake answers 404.
    const { first, second } = await twoAttempts(url());
    // The first attempt alone says nothing yet: a failed audit, its one attempt in the evidence.
    expect(first).toMatchObject({ outcome: "failed", signals: { site_unreachable: null } });
    expect(first.evidence.attempts).toEqual([{ at: expect.any(String), result }]);
    expect(second).toMatchObject({
      outcome: "failed",
      failure: "site_unreachable",
      signals: { site_unreachable: true },
      evidence: { attempts: [first.evidence.attempts?.[0], { at: expect.any(String), result }] },
    });
    // The cache holds the decided audit.
    const cached = await readCurrentAudits(database.db, [{ placeId: second!.place_id, website: url() }]);
    expect(cached.get(second!.place_id)?.signals.site_unreachable).toBe(true);
  });

  it("a site that answers at the second attempt is not unreachable, and its page is read", async () => {
    plain.set("/back", { status: [503, 200], html: OLD_HOMEPAGE });
    const { first, second } = await twoAttempts(plain.url("/back"));
    expect(first.evidence.attempts).toEqual([{ at: expect.any(String), result: "http_503" }]);
    expect(second).toMatchObject({
      outcome: "ok",
      signals: { site_unreachable: false, legacy_site_tech: true },
    });
  });

  it.each([
    [403, "a bot block"],
    [429, "a rate limit"],
    [401, "a login"],
  ])("%s (%s) is not unreachable: no second attempt", async (status) => {
    plain.set(`/blocked-${status}`, { status });
    const { first, second } = await twoAttempts(plain.url(`/blocked-${status}`));
    expect(first).toMatchObject({ outcome: "failed", failure: `http_${status}`, evidence: {} });
    expect(second).toBeNull();
    expect(plain.hits(`/blocked-${status}`)).toBe(1);
  });

  it("our own timeout is not unreachable: no second attempt", async () => {
    plain.set("/slow", { html: MODERN_HOMEPAGE, delayMs: 2_000 });
    const place = target(plain.url("/slow"));
    const audit = await auditSite(place, {
      fetch: { allowPrivateNetworks: true, userAgent: "test", timeoutMs: 200, resolve: systemResolve },
      analyze: async (input) => analyzeTask(input),
      now: () => new Date(),
    });
    expect(audit).toMatchObject({ outcome: "failed", failure: "timeout", evidence: {} });
    expect(audit.signals.site_unreachable).toBeNull();
    expect(confirmationOf(place, audit)).toBeNull();
  });
});

describe("parked_domain", () => {
  const parkedPages: [string, string][] = [
    [
      "an English for-sale page",
      `<!doctype html><html><head><title>bakery-lyon.com is for sale</title></head>
       <body><h1>This domain is for sale!</h1><p>Make an offer today.</p></body></html>`,
    ],
    [
      "a French for-sale page",
      `<!doctype html><html lang="fr"><head><title>Boulangerie</title></head>
       <body><h1>Ce nom de domaine est à vendre</h1><p>Contactez le propriétaire pour faire une offre.</p></body></html>`,
    ],
    [
      "a French registrar's parking notice (short page)",
      `<!doctype html><html lang="fr"><head><title>Bienvenue</title></head>
       <body><p>Ce nom de domaine a été réservé chez un bureau d'enregistrement.</p></body></html>`,
    ],
    [
      "a parking service's script",
      `<!doctype html><html><head><title>plomberie-ottawa.ca</title>
       <script src="https://www.sedoparking.com/frmpark/plomberie-ottawa.ca/IONOSParkingDE/park.js"></script>
       </head><body><div id="ads"></div></body></html>`,
    ],
  ];

  it.each(parkedPages)("%s", async (_case, html) => {
    const path = `/parked-${parkedPages.findIndex(([, page]) => page === html)}`;
    plain.set(path, { html });
    const audit = await stack.run(target(plain.url(path)));
    expect(audit).toMatchObject({ outcome: "ok", signals: { parked_domain: true } });
    expect(audit.evidence.parking_marker).toEqual(expect.any(String));
  });

  it("a business's page that merely mentions a domain sale in its text is not parked", async () => {
    const copy = Array.from(
      { length: 12 },
      (_, index) =>
        `<p>Section ${index}: fresh bread, pastries and cakes baked every morning in our shop on Rue Mercière, with flour from local mills.</p>`,
    ).join("");
    plain.set("/mentions-sale", {
      html: `<!doctype html><html><head><title>Boulangerie Mercière</title></head><body><h1>Our bakery</h1>${copy}
        <p>News: we moved to a new address online. Our old web address showed "this domain is for sale" for a while; if you bookmarked it, update your link.</p>
        <p>Nous avons changé d'adresse : l'ancienne affichait « ce nom de domaine est à vendre ».</p></body></html>`,
    });
    const audit = await stack.run(target(plain.url("/mentions-sale")));
    expect(audit).toMatchObject({ outcome: "ok", signals: { parked_domain: false } });
    expect(audit.evidence.parking_marker).toBeNull();
  });
});

describe("social_profile_only: decided from the URL, never fetched", () => {
  it.each([
    ["Facebook", () => `http://www.facebook.com:${plain.port}/boulangerie.merciere`, "www.facebook.com"],
    ["Linktree", () => `http://linktr.ee:${plain.port}/merciere`, "linktr.ee"],
  ])("%s", async (platform, url, host) => {
    const before = plain.requests.length;
    const audit = await stack.run(target(url()));
    expect(audit).toMatchObject({
      outcome: "ok",
      signals: {
        social_profile_only: true,
        site_unreachable: null,
        no_https: null,
        not_mobile_friendly: null,
      },
      evidence: { social_profile_host: host, social_platform: platform },
    });
    // No request reached the server the name resolves to, and the name was never even looked up.
    expect(plain.requests.length).toBe(before);
    expect(dns.count(host)).toBe(0);
  });
});

describe("no_https", () => {
  it("an http-only site: the https request to the same host fails", async () => {
    plain.set("/http-only", { html: MODERN_HOMEPAGE });
    const audit = await stack.run(target(plain.url("/http-only")));
    expect(audit).toMatchObject({
      outcome: "ok",
      signals: { no_https: true, site_unreachable: false, not_mobile_friendly: false },
      evidence: { final_url: plain.url("/http-only"), https_result: expect.stringMatching(/^tls_failed/) },
    });
  });

  it("an http-only host is asked over TLS once: its other pages, at once or later, get the same answer", async () => {
    const host = await startFakeSites();
    try {
      for (const path of ["/a", "/b", "/c", "/d", "/e", "/f"]) host.set(path, { html: MODERN_HOMEPAGE });
      const first = await stack.run(target(host.url("/a")));
      expect(host.tlsAttempts).toBe(1);
      // Four audits at once and one after them: no further TLS attempt, the same verdict and evidence.
      const together = await Promise.all(
        ["/b", "/c", "/d", "/e"].map((path) => stack.run(target(host.url(path)))),
      );
      const later = await stack.run(target(host.url("/f")));
      expect(host.tlsAttempts).toBe(1);
      for (const audit of [first, ...together, later]) {
        expect(audit).toMatchObject({
          outcome: "ok",
          signals: { no_https: true },
          evidence: { https_result: first.evidence.https_result, certificate_problem: null },
        });
        expect(audit.evidence.final_url).toBe(audit.url);
      }
      expect(first.evidence.https_result).toMatch(/^tls_failed \(/);
    } finally {
      await host.close();
    }
  });

  it("a host whose https works is asked at every audit (only a host-wide refusal is remembered)", async () => {
    secure.set("/again", { html: MODERN_HOMEPAGE });
    const url = `http://localhost:${secure.port}/again`;
    const before = secure.requests.filter((request) => request.secure).length;
    for (let audit = 0; audit < 2; audit++) {
      expect(await stack.run(target(url))).toMatchObject({ signals: { no_https: false } });
    }
    expect(secure.requests.filter((request) => request.secure).length - before).toBe(2);
  });

  it("a site whose https leads back to http", async () => {
    const httpUrl = `http://localhost:${downgrading.port}/`;
    downgrading.set("/", { html: MODERN_HOMEPAGE });
    downgradingHttpsPages.set("/", { status: 301, location: httpUrl });
    const audit = await stack.run(target(httpUrl));
    expect(audit.signals.no_https).toBe(true);
    expect(audit.evidence.https_result).toBe(`redirects to ${httpUrl}`);
  });

  it.each([
    ["expired", "expired"],
    ["wrongHost", "wrong_host"],
    ["selfSigned", "self_signed"],
  ] as const)("an invalid certificate (%s) at the homepage", async (which, problem) => {
    const server = invalid[which];
    server.set("/", { html: MODERN_HOMEPAGE });
    const url = `https://localhost:${server.port}/`;
    const audit = await stack.run(target(url));
    expect(audit).toMatchObject({
      outcome: "failed",
      failure: "tls_failed",
      signals: { no_https: true, site_unreachable: null },
      evidence: { final_url: url, certificate_problem: problem },
    });
  });

  it("a good https site (certificate from the CA of AUDIT_CA_FILE) is not flagged", async () => {
    secure.set("/", { html: MODERN_HOMEPAGE });
    const audit = await stack.run(target(`https://localhost:${secure.port}/`));
    expect(audit).toMatchObject({
      outcome: "ok",
      signals: { no_https: false, site_unreachable: false, parked_domain: false, social_profile_only: false },
    });
    expect(secure.requests.at(-1)).toEqual({ path: "/", secure: true });
  });

  it("an http:// homepage whose https works is not flagged either", async () => {
    secure.set("/shop", { html: MODERN_HOMEPAGE });
    const url = `http://localhost:${secure.port}/shop`;
    const audit = await stack.run(target(url));
    expect(audit).toMatchObject({
      outcome: "ok",
      signals: { no_https: false },
      evidence: { https_result: "ok" },
    });
    expect(secure.requests.filter((request) => request.path === "/shop")).toEqual([
      { path: "/shop", secure: false },
      { path: "/shop", secure: true },
    ]);
  });
});
