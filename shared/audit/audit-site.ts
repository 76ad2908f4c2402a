import { type FetchHomepageOptions, fetchHomepage } from "./fetch-homepage.ts";
import type { AnalyzeInput, AnalyzeOutput, SiteAudit } from "./types.ts";
import { UNKNOWN_SIGNALS } from "./types.ts";

export interface AuditTarget {
  placeId: string;
  /** The place's website as the provider lists it. */
  url: string;
  /** ISO 3166-1 alpha-2 country from the place's address, if known. */
  country: string | null;
}

export interface AuditDeps {
  fetch: FetchHomepageOptions;
  /** Runs the HTML analysis; in production the piscina pool's `analyze`. */
  analyze: (input: AnalyzeInput) => Promise<AnalyzeOutput>;
  now: () => Date;
  /** Told how long each stage took (metrics); optional. */
  onStage?: (stage: "fetch" | "parse", seconds: number) => void;
}

/**
 * Audits one place's homepage: fetch, then analyze. A fetch or an analysis that fails gives a
 * "failed" audit whose signals are all unknown: a site we could not read is never flagged.
 *
 * The audit keeps the place's own URL (not the final URL after redirects), so the cache can tell
 * when the provider starts listing a different website.
 */
export async function auditSite(target: AuditTarget, deps: AuditDeps): Promise<SiteAudit> {
  const fetchStarted = performance.now();
  const page = await fetchHomepage(target.url, deps.fetch);
  deps.onStage?.("fetch", (performance.now() - fetchStarted) / 1000);
  if (!page.ok) return failedAudit(target, page.failure, deps.now());

  const auditedAt = deps.now();
  const parseStarted = performance.now();
  let analysis: AnalyzeOutput;
  try {
    analysis = await deps.analyze({
      body: page.body,
      contentType: page.contentType,
      url: page.finalUrl,
      country: target.country,
      now: auditedAt.getTime(),
    });
  } catch {
    return failedAudit(target, "analysis_failed", auditedAt);
  } finally {
    // Queueing for a thread included: that is what a busy pool costs an audit.
    deps.onStage?.("parse", (performance.now() - parseStarted) / 1000);
  }

  return {
    place_id: target.placeId,
    url: target.url,
    outcome: "ok",
    failure: null,
    signals: analysis.signals,
    evidence: analysis.evidence,
    audited_at: auditedAt,
  };
}

function failedAudit(target: AuditTarget, failure: string, auditedAt: Date): SiteAudit {
  return {
    place_id: target.placeId,
    url: target.url,
    outcome: "failed",
    failure,
    signals: { ...UNKNOWN_SIGNALS },
    evidence: {},
    audited_at: auditedAt,
  };
}
