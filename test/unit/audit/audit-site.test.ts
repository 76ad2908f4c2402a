import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type AuditDeps, auditSite } from "../../../shared/audit/audit-site.ts";
import { closeHomepageAgents, type FetchHomepageOptions } from "../../../shared/audit/fetch-homepage.ts";
import type { AnalyzeInput, AnalyzeOutput, AuditSignals } from "../../../shared/audit/types.ts";
import { UNKNOWN_SIGNALS } from "../../../shared/audit/types.ts";
import { systemResolve } from "../../support/system-resolve.ts";

const page = "<html><head></head><body>&copy; 2012 Boulangerie</body></html>";
const clock = new Date("2026-03-01T12:00:00Z");
const userAgent = "LeadDiscoveryAuditBot/1.0 (+https://example.com/bot)";

const flaggedSignals: AuditSignals = {
  no_mobile_viewport: true,
  legacy_site_tech: false,
  stale_copyright: true,
  last_media_year: null,
  stale_content: false,
  no_french_version: true,
  not_mobile_friendly: true,
  outdated_website: true,
};

const analysis: AnalyzeOutput = {
  signals: flaggedSignals,
  evidence: { viewport: null, copyright_text: "© 2012", copyright_year: 2012 },
};

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/") {
      response.writeHead(302, { location: "/accueil" });
      return response.end();
    }
    response.writeHead(200, { "content-type": "text/html; charset=windows-1252" });
    response.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await closeHomepageAgents();
});

function deps(analyze: AuditDeps["analyze"], fetch: Partial<FetchHomepageOptions> = {}): AuditDeps {
  return {
    fetch: { allowPrivateNetworks: true, userAgent, resolve: systemResolve, ...fetch },
    analyze,
    now: () => clock,
  };
}

describe("auditSite", () => {
  it("analyzes the fetched page and keeps the signals and evidence", async () => {
    const analyze = vi.fn(async (_input: AnalyzeInput) => analysis);
    const audit = await auditSite({ placeId: "place-1", url: `${origin}/`, country: "CA" }, deps(analyze));

    expect(analyze).toHaveBeenCalledTimes(1);
    const input = analyze.mock.calls[0]![0];
    expect(new TextDecoder().decode(input.body)).toBe(page);
    expect(input).toMatchObject({
      contentType: "text/html; charset=windows-1252",
      url: `${origin}/accueil`,
      country: "CA",
      now: clock.getTime(),
    });
    expect(audit).toEqual({
      place_id: "place-1",
      url: `${origin}/`,
      outcome: "ok",
      failure: null,
      // The fetch's own signals: the page was read, over plain http, and https on its port fails.
      signals: { ...flaggedSignals, site_unreachable: false, social_profile_only: false, no_https: true },
      evidence: {
        ...analysis.evidence,
        final_url: `${origin}/accueil`,
        https_result: expect.stringMatching(/^tls_failed/),
        certificate_problem: null,
      },
      audited_at: clock,
    });
  });

  it("gives a failed audit with unknown signals when the fetch is refused, without analyzing", async () => {
    const analyze = vi.fn(async (_input: AnalyzeInput) => analysis);
    const audit = await auditSite(
      { placeId: "place-2", url: `${origin}/`, country: null },
      deps(analyze, { allowPrivateNetworks: false }),
    );
    expect(audit).toEqual({
      place_id: "place-2",
      url: `${origin}/`,
      outcome: "failed",
      failure: "blocked_address",
      signals: UNKNOWN_SIGNALS,
      evidence: {},
      audited_at: clock,
    });
    expect(analyze).not.toHaveBeenCalled();
  });

  it("never flags a site it could not fetch", async () => {
    const analyze = vi.fn(async (_input: AnalyzeInput) => analysis);
    for (const [url, failure] of [
      ["ftp://bakery.example/", "unsupported_scheme"],
      ["not a url", "invalid_url"],
      ["http://127.0.0.1:25/", "blocked_port"],
    ] as const) {
      const audit = await auditSite({ placeId: "place-3", url, country: "CA" }, deps(analyze));
      expect(audit.outcome).toBe("failed");
      expect(audit.failure).toBe(failure);
      expect(Object.values(audit.signals).every((value) => value === null)).toBe(true);
      expect(audit.evidence).toEqual({});
    }
    expect(analyze).not.toHaveBeenCalled();
  });

  it("gives a failed audit with unknown signals when the analysis throws", async () => {
    const analyze = vi.fn(async (_input: AnalyzeInput): Promise<AnalyzeOutput> => {
      throw new Error("worker crashed");
    });
    const audit = await auditSite({ placeId: "place-4", url: `${origin}/`, country: null }, deps(analyze));
    expect(analyze).toHaveBeenCalledTimes(1);
    expect(audit).toMatchObject({
      outcome: "failed",
      failure: "analysis_failed",
      evidence: {},
      audited_at: clock,
    });
    expect(audit.signals).toEqual(UNKNOWN_SIGNALS);
  });
});
