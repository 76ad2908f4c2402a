import {
  certificateProblemOf,
  type FetchedPage,
  type FetchFailure,
  type FetchHomepageOptions,
  fetchHomepage,
  unreachableResult,
} from "./fetch-homepage.ts";
import type { HttpsAnswers } from "./https-answers.ts";
import { socialProfileOf } from "./social-profiles.ts";
import type {
  AnalyzeInput,
  AnalyzeOutput,
  AuditEvidence,
  AuditSignals,
  FetchAttempt,
  SiteAudit,
} from "./types.ts";
import { UNKNOWN_SIGNALS } from "./types.ts";

export interface AuditTarget {
  placeId: string;
  /** The place's website as the provider lists it. */
  url: string;
  /** ISO 3166-1 alpha-2 country from the place's address, if known. */
  country: string | null;
  /**
   * Set on the second attempt of a site_unreachable check: how the first attempt of this audit
   * ended. Absent on a first attempt.
   */
  firstAttempt?: FetchAttempt;
}

export interface AuditDeps {
  fetch: FetchHomepageOptions;
  /** Runs the HTML analysis; in production the piscina pool's `analyze`. */
  analyze: (input: AnalyzeInput) => Promise<AnalyzeOutput>;
  now: () => Date;
  /** Told how long each stage took (metrics); optional. */
  onStage?: (stage: "fetch" | "parse", seconds: number) => void;
  /** The https answers known per host (one per process); unset: every check asks. */
  httpsAnswers?: HttpsAnswers;
}

/**
 * Audits one place's homepage: fetch, then analyze. A fetch or an analysis that fails gives a
 * "failed" audit whose page signals are all unknown: a site we could not read is never flagged.
 * What the fetch itself shows is kept as the pitch facts (DESIGN "Pitch facts"):
 * - a social profile or link page listed as the website is decided from the URL, never fetched;
 * - a first attempt that ends as a down site ends (no such domain, refused, 5xx/404/410) gives a
 *   failed audit with that one attempt in its evidence: `confirmationOf` tells the caller to run
 *   the second attempt a few seconds later (no search waits for it); when that one ends so too,
 *   the audit says `site_unreachable`;
 * - a homepage that ends on http:// is asked for over https:// (while its page is analysed; a host
 *   whose https port refused or did not speak TLS is not asked again for a while), and an invalid
 *   certificate at the homepage is `no_https` too.
 *
 * The audit keeps the place's own URL (not the final URL after redirects), so the cache can tell
 * when the provider starts listing a different website.
 */
export async function auditSite(target: AuditTarget, deps: AuditDeps): Promise<SiteAudit> {
  const social = socialProfileOf(target.url);
  if (social !== null) {
    return {
      ...audit(target, "ok", null, deps.now()),
      signals: { ...UNKNOWN_SIGNALS, social_profile_only: true },
      evidence: { social_profile_host: social.host, social_platform: social.platform },
    };
  }

  const fetchStarted = performance.now();
  const page = await fetchHomepage(target.url, deps.fetch);
  deps.onStage?.("fetch", (performance.now() - fetchStarted) / 1000);
  if (!page.ok) return failedFetchAudit(target, page, deps.now());

  const auditedAt = deps.now();
  const parseStarted = performance.now();
  const httpsCheck = checkHttps(page, deps.fetch, deps.httpsAnswers);
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
    await httpsCheck;
    return audit(target, "failed", "analysis_failed", auditedAt);
  } finally {
    // Queueing for a thread included: that is what a busy pool costs an audit.
    deps.onStage?.("parse", (performance.now() - parseStarted) / 1000);
  }
  const https = await httpsCheck;

  return {
    ...audit(target, "ok", null, auditedAt),
    signals: {
      ...analysis.signals,
      site_unreachable: false,
      social_profile_only: false,
      no_https: https.noHttps,
    },
    evidence: { ...analysis.evidence, ...https.evidence },
  };
}

/**
 * The second attempt an audit asks for, or null: a first attempt that ended as a down site ends
 * is tried once more (as `target` with `firstAttempt`) a few seconds later.
 */
export function confirmationOf(target: AuditTarget, result: SiteAudit): AuditTarget | null {
  if (target.firstAttempt !== undefined || result.outcome !== "failed") return null;
  const [first, ...more] = result.evidence.attempts ?? [];
  if (first === undefined || more.length > 0) return null;
  return { placeId: target.placeId, url: target.url, country: target.country, firstAttempt: first };
}

function failedFetchAudit(target: AuditTarget, page: FetchFailure, at: Date): SiteAudit {
  const failed = audit(target, "failed", page.failure, at);
  const down = unreachableResult(page);
  if (down !== null) {
    const attempt: FetchAttempt = { at: at.toISOString(), result: down };
    if (target.firstAttempt === undefined) return { ...failed, evidence: { attempts: [attempt] } };
    return {
      ...failed,
      failure: "site_unreachable",
      signals: { ...UNKNOWN_SIGNALS, site_unreachable: true },
      evidence: { attempts: [target.firstAttempt, attempt] },
    };
  }
  const certificateProblem = certificateProblemOf(page);
  if (certificateProblem !== null) {
    // The site answers, but no visitor's browser accepts its certificate: a fact, whatever its page says.
    return {
      ...failed,
      signals: { ...UNKNOWN_SIGNALS, no_https: true },
      evidence: {
        final_url: target.url,
        https_result: "tls_failed",
        certificate_problem: certificateProblem,
      },
    };
  }
  return failed;
}

const HTTPS_CHECK_TIMEOUT_MS = 5_000;

interface HttpsCheck {
  noHttps: boolean | null;
  evidence: Pick<AuditEvidence, "final_url" | "https_result" | "certificate_problem">;
}

/**
 * no_https of a page that was read: a page reached over https is fine; one that ends on http:// is
 * asked for over https:// (same host and port, same path): a refused connection, a TLS failure, an
 * HTTP error or a redirect back to http means no https. A timeout or a bot block says nothing.
 */
async function checkHttps(
  page: FetchedPage,
  options: FetchHomepageOptions,
  httpsAnswers: HttpsAnswers | undefined,
): Promise<HttpsCheck> {
  const finalUrl = new URL(page.finalUrl);
  if (finalUrl.protocol === "https:") {
    return {
      noHttps: false,
      evidence: { final_url: page.finalUrl, https_result: null, certificate_problem: null },
    };
  }
  const httpsUrl = new URL(page.finalUrl);
  httpsUrl.protocol = "https:";
  // Shorter than the homepage's own deadline: the audit (and a search waiting on it) waits for this too.
  const timeoutMs = Math.min(options.timeoutMs ?? HTTPS_CHECK_TIMEOUT_MS, HTTPS_CHECK_TIMEOUT_MS);
  const ask = () => fetchHomepage(httpsUrl.href, { ...options, timeoutMs });
  // A host whose https port refused or did not speak TLS answers so for every page (https-answers.ts).
  const answer = httpsAnswers ? await httpsAnswers.answer(httpsUrl.origin, ask) : await ask();
  const evidence = { final_url: page.finalUrl, certificate_problem: certificateProblemOf(answer) };
  if (answer.ok) {
    const backToHttp = new URL(answer.finalUrl).protocol === "http:";
    return {
      noHttps: backToHttp,
      evidence: { ...evidence, https_result: backToHttp ? `redirects to ${answer.finalUrl}` : "ok" },
    };
  }
  const fails =
    answer.failure === "tls_failed" ||
    answer.failure === "connection_failed" ||
    unreachableResult(answer) !== null;
  return {
    noHttps: fails ? true : null,
    evidence: {
      ...evidence,
      https_result: answer.errorCode ? `${answer.failure} (${answer.errorCode})` : answer.failure,
    },
  };
}

function audit(
  target: AuditTarget,
  outcome: SiteAudit["outcome"],
  failure: string | null,
  auditedAt: Date,
): SiteAudit {
  const signals: AuditSignals = { ...UNKNOWN_SIGNALS };
  return {
    place_id: target.placeId,
    url: target.url,
    outcome,
    failure,
    signals,
    evidence: {},
    audited_at: auditedAt,
  };
}
