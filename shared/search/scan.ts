import type { SiteAuditor } from "../audit/auditor.ts";
import type { SiteAudit } from "../audit/types.ts";
import { ApiError } from "../errors.ts";
import {
  isPlacesProviderError,
  MAX_PLACES_PER_QUERY,
  PLACES_PAGE_SIZE,
  type PlaceCandidate,
  type PlacesProvider,
  toTextQuery,
} from "../places/types.ts";
import { type LiveFilter, requestedLiveFilters, type SearchFilters, type SearchRequest } from "./types.ts";

export interface ScannedPlace {
  candidate: PlaceCandidate;
  /** The trade the lead is filed under: the provider's category, else the query's. */
  category: string;
  /** The audit the live check decided on (cached or run now); null without a live check. */
  audit: SiteAudit | null;
}

export interface ScanResult {
  matches: ScannedPlace[];
  truncated: boolean;
  /** How many candidates went through the live check, and how many of those ran out of budget. */
  liveChecked: number;
  liveUnanswered: number;
  /** Some checks were left unanswered because the check budget ran out (not the match grace). */
  budgetRanOut: boolean;
}

export interface ScanDeps {
  places: PlacesProvider;
  /** Fresh cached audits of these sites (live filters answer from them at once). */
  readFreshAudits(sites: { placeId: string; url: string }[]): Promise<Map<string, SiteAudit>>;
  auditor: SiteAuditor | undefined;
  /** Epoch ms after which the live check stops waiting. */
  checkDeadline: number;
  /**
   * Once max_results matches are confirmed, how long better-ranked candidates still being checked
   * may take before the answer goes out without them (truncated). Default 0.
   */
  matchGraceMs?: number;
  logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  signal?: AbortSignal;
}

/** The cheap filters: answered from the provider's data alone. */
export function passesCheapFilters(candidate: PlaceCandidate, filters: SearchFilters | undefined): boolean {
  if (
    filters?.min_rating !== undefined &&
    (candidate.rating === null || candidate.rating < filters.min_rating)
  ) {
    return false;
  }
  if (filters?.no_website === true && candidate.website !== null) return false;
  return true;
}

/** True, false, or null when the audit could not say (failed fetch, or a signal with no answer). */
export function matchesLiveFilters(audit: SiteAudit, filters: readonly LiveFilter[]): boolean | null {
  if (audit.outcome !== "ok") return null;
  let verdict: boolean | null = true;
  for (const filter of filters) {
    const signal = audit.signals[filter];
    if (signal === false) return false;
    if (signal === null) verdict = null;
  }
  return verdict;
}

type Verdict = { state: "match" } | { state: "no_match" } | { state: "unknown"; outOfBudget: boolean };

interface Entry {
  place: ScannedPlace;
  verdict: Verdict | undefined;
  settled: Promise<void>;
}

/**
 * Queries in order, provider order within a query, a place seen twice counted once; cheap filters
 * first, then, only where a live filter is asked for, an audit with a deadline. Pages are fetched
 * lazily: the scan stops as soon as `max_results` matches are known.
 */
export async function scanCandidates(request: SearchRequest, deps: ScanDeps): Promise<ScanResult> {
  const liveFilters = requestedLiveFilters(request.filters);
  const max = request.max_results;
  const entries: Entry[] = [];
  const seen = new Set<string>();
  let truncated = false;
  let liveChecked = 0;

  const confirmedMatches = () => entries.filter((entry) => entry.verdict?.state === "match").length;
  const pending = () => entries.filter((entry) => entry.verdict === undefined);
  // Enough candidates in flight that max_results can be met if most of them match.
  const enoughInFlight = () => confirmedMatches() + pending().length >= max;

  const admit = (place: ScannedPlace, audits: Map<string, SiteAudit>) => {
    if (liveFilters.length === 0) {
      entries.push({ place, verdict: { state: "match" }, settled: Promise.resolve() });
      return;
    }
    const { candidate } = place;
    // A business without a website has no site to be unfriendly or outdated.
    if (candidate.website === null) {
      entries.push({ place, verdict: { state: "no_match" }, settled: Promise.resolve() });
      return;
    }
    const rank = liveChecked;
    liveChecked += 1;
    const cached = audits.get(candidate.placeId);
    const entry: Entry = { place, verdict: undefined, settled: Promise.resolve() };
    const decide = (audit: SiteAudit | null): Verdict => {
      if (!audit) return { state: "unknown", outOfBudget: true };
      place.audit = audit;
      const match = matchesLiveFilters(audit, liveFilters);
      return match === null
        ? { state: "unknown", outOfBudget: false }
        : { state: match ? "match" : "no_match" };
    };
    if (cached) {
      entry.verdict = decide(cached);
    } else if (!deps.auditor || Date.now() >= deps.checkDeadline) {
      entry.verdict = { state: "unknown", outOfBudget: true };
    } else {
      entry.settled = deps.auditor
        .audit(
          { placeId: candidate.placeId, url: candidate.website, country: candidate.country },
          deps.checkDeadline,
          { rank },
        )
        .then(decide, (error: unknown) => {
          // The audit pipeline itself failed (not the site): the place may well match, so the
          // answer is incomplete, exactly as if the budget had run out.
          deps.logger.error({ err: error, place_id: candidate.placeId }, "site audit failed");
          return { state: "unknown", outOfBudget: true } satisfies Verdict;
        })
        .then((verdict) => {
          entry.verdict = verdict;
        });
    }
    entries.push(entry);
  };

  /** Waits until one pending check settles or `until` (default: the deadline) passes. */
  const waitForProgress = async (until = deps.checkDeadline) => {
    const open = pending();
    if (open.length === 0) return;
    const remaining = until - Date.now();
    if (remaining <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.race(open.map((entry) => entry.settled)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, remaining);
      }),
    ]);
    clearTimeout(timer);
  };

  queries: for (const [queryIndex, query] of request.queries.entries()) {
    if (confirmedMatches() >= max) {
      truncated = true; // max_results reached before every query ran
      break;
    }
    let delivered = 0;
    try {
      const pages = deps.places.searchText(
        { textQuery: toTextQuery(query), minRating: request.filters?.min_rating },
        { signal: deps.signal },
      );
      for await (const page of pages) {
        delivered += page.length;
        const fresh = page.filter((candidate) => {
          if (seen.has(candidate.placeId)) return false;
          seen.add(candidate.placeId);
          return passesCheapFilters(candidate, request.filters);
        });
        const audits =
          liveFilters.length > 0
            ? await deps.readFreshAudits(
                fresh.flatMap((c) => (c.website ? [{ placeId: c.placeId, url: c.website }] : [])),
              )
            : new Map<string, SiteAudit>();
        for (const [index, candidate] of fresh.entries()) {
          admit({ candidate, category: candidate.category ?? query.category.trim(), audit: null }, audits);
          if (liveFilters.length === 0 && confirmedMatches() >= max) {
            const queryMayHaveMore =
              index < fresh.length - 1 ||
              page.length === PLACES_PAGE_SIZE ||
              queryIndex < request.queries.length - 1;
            if (queryMayHaveMore) truncated = true;
            break queries;
          }
        }
        // Live checks: fetch further pages only while the candidates in flight cannot fill max_results.
        while (
          liveFilters.length > 0 &&
          enoughInFlight() &&
          confirmedMatches() < max &&
          pending().length > 0
        ) {
          if (Date.now() >= deps.checkDeadline) break;
          await waitForProgress();
        }
        if (liveFilters.length > 0 && confirmedMatches() >= max) {
          if (page.length === PLACES_PAGE_SIZE || queryIndex < request.queries.length - 1) truncated = true;
          break queries;
        }
        if (liveFilters.length > 0 && Date.now() >= deps.checkDeadline) {
          truncated = true;
          break queries;
        }
      }
    } catch (error) {
      if (isPlacesProviderError(error) && error.kind === "page_token_expired") {
        // The pages already read stay valid; the rest of this query is lost, so say there may be more.
        deps.logger.warn({ err: error, query_index: queryIndex }, "places page token expired: partial scan");
        truncated = true;
        continue;
      }
      if (isPlacesProviderError(error)) {
        deps.logger.error(
          { err: error, kind: error.kind, status: error.status },
          "places provider failed: search aborted",
        );
        throw new ApiError(
          "internal_error",
          "The places provider is unavailable. Nothing was charged; retry later.",
          {
            cause: error,
          },
        );
      }
      throw error;
    }
    if (delivered >= MAX_PLACES_PER_QUERY) truncated = true;
  }

  // Wait for the checks that can still change the answer: those ahead of the max_results-th match.
  const answerIsSettled = () => {
    let found = 0;
    for (const entry of entries) {
      if (entry.verdict === undefined) return false;
      if (entry.verdict.state === "match" && ++found >= max) return true;
    }
    return true;
  };
  // Once max_results matches are in hand, better-ranked checks get a short grace, not the whole
  // budget: one hung site ranked before the last match must not hold the answer to its timeout.
  let graceEnds = Number.POSITIVE_INFINITY;
  let endedByGrace = false;
  while (!answerIsSettled()) {
    const now = Date.now();
    if (graceEnds === Number.POSITIVE_INFINITY && confirmedMatches() >= max) {
      graceEnds = now + (deps.matchGraceMs ?? 0);
    }
    if (now >= deps.checkDeadline) break;
    if (now >= graceEnds) {
      endedByGrace = true;
      break;
    }
    await waitForProgress(Math.min(deps.checkDeadline, graceEnds));
  }

  const matches: ScannedPlace[] = [];
  let liveUnanswered = 0;
  for (const entry of entries) {
    const verdict = entry.verdict ?? { state: "unknown", outOfBudget: true };
    const mayMatch = verdict.state === "match" || (verdict.state === "unknown" && verdict.outOfBudget);
    if (matches.length >= max) {
      // A candidate left over that matches, or might, means there may be more than returned.
      if (mayMatch) truncated = true;
      continue;
    }
    if (verdict.state === "unknown" && verdict.outOfBudget) liveUnanswered += 1;
    if (verdict.state === "match") matches.push(entry.place);
  }
  if (liveUnanswered > 0) truncated = true;
  return {
    matches,
    truncated,
    liveChecked,
    liveUnanswered,
    budgetRanOut: liveUnanswered > 0 && !endedByGrace,
  };
}
