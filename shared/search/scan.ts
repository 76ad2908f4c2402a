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

/**
 * Why an answer may hold fewer matches than exist (spec rule 6 and DESIGN's live-search rules):
 * - `max_results_reached`: max_results matches were found before every query or page was read;
 * - `query_cap`: a query delivered the provider's cap of 60 places;
 * - `page_token_expired`: the provider refused a later page of a query;
 * - `check_budget`: live checks were still running when the check budget ran out;
 * - `check_failed`: our audit pipeline failed for a candidate (not the site: that is a failed audit);
 * - `match_grace`: max_results matches were confirmed and better-ranked checks outlasted the grace;
 * - `cost_limit`: the workspace's hourly limit of provider pages or live checks was reached.
 */
export type TruncationReason =
  | "max_results_reached"
  | "query_cap"
  | "page_token_expired"
  | "check_budget"
  | "check_failed"
  | "match_grace"
  | "cost_limit";

export interface ScanResult {
  matches: ScannedPlace[];
  truncated: boolean;
  /** Every reason that applied; empty when `truncated` is false. */
  truncatedBy: TruncationReason[];
  /** How many candidates went through the live check, and how many of those got no answer. */
  liveChecked: number;
  liveUnanswered: number;
  /** Some checks were left unanswered because the check budget ran out (not the match grace). */
  budgetRanOut: boolean;
}

/** Time as the scan sees it; injected so that every rule can be tested without waiting. */
export interface ScanClock {
  now(): number;
  /** Resolves once `progress` settles or `until` (epoch ms) comes, whichever is first. */
  waitUntil(until: number, progress: Promise<unknown>): Promise<void>;
}

const systemClock: ScanClock = {
  now: () => Date.now(),
  async waitUntil(until, progress) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      progress.then(
        () => {},
        () => {},
      ),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, until - Date.now()));
      }),
    ]);
    clearTimeout(timer);
  },
};

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
  /** Default: the system clock. */
  clock?: ScanClock;
  logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  signal?: AbortSignal;
  /**
   * The workspace's hourly cost guard: asked before each provider page and each uncached live
   * check; false stops that work and marks the answer truncated (`cost_limit`). Absent: no limit.
   */
  allowPage?: () => Promise<boolean>;
  allowLiveCheck?: () => Promise<boolean>;
  /**
   * The workspace's suppression list: a page's suppressed candidates are dropped before anything
   * counts them (never returned, charged or counted toward max_results), and a live check that
   * finds a suppressed address makes its candidate no match. Absent: nothing is suppressed.
   */
  suppression?: {
    withoutSuppressed(candidates: PlaceCandidate[]): Promise<PlaceCandidate[]>;
    coversAudit(audit: SiteAudit): Promise<boolean>;
  };
}

/** The cheap filters: answered from the provider's data alone. */
function passesCheapFilters(candidate: PlaceCandidate, filters: SearchFilters | undefined): boolean {
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
function matchesLiveFilters(audit: SiteAudit, filters: readonly LiveFilter[]): boolean | null {
  if (audit.outcome !== "ok") return null;
  let verdict: boolean | null = true;
  for (const filter of filters) {
    const signal = audit.signals[filter];
    if (signal === false) return false;
    if (signal === null) verdict = null;
  }
  return verdict;
}

/**
 * A candidate's verdict: a match, not one, or unknown. Unknown because the site could not say
 * (a failed audit, a signal with no answer) is simply left out; unknown because no answer came
 * (`unanswered`: budget, grace or our own failure) may hide a match, so it truncates.
 */
type Verdict =
  | { state: "match" }
  | { state: "no_match" }
  | { state: "unknown" }
  | { state: "unanswered"; why: "check_budget" | "check_failed" | "cost_limit" };

interface Entry {
  place: ScannedPlace;
  /** undefined while its check runs. */
  verdict: Verdict | undefined;
}

/** A candidate whose homepage needs a live check: its index among the entries and its rank. */
interface PendingCheck {
  index: number;
  /** Its rank among this search's live-checked candidates (0 = first): the audit's priority. */
  rank: number;
}

/**
 * The state of one scan, without I/O: candidates in provider order with their verdicts, and the
 * one place that decides whether the answer is settled and whether it is truncated, and why.
 */
class ScanState {
  readonly #max: number;
  readonly #liveFilters: readonly LiveFilter[];
  readonly #deadline: number;
  readonly #graceMs: number;
  readonly #entries: Entry[] = [];
  readonly #reasons = new Set<TruncationReason>();
  #liveChecked = 0;
  #graceEnds = Number.POSITIVE_INFINITY;
  #endedByGrace = false;

  constructor(options: {
    maxResults: number;
    liveFilters: readonly LiveFilter[];
    checkDeadline: number;
    matchGraceMs: number;
  }) {
    this.#max = options.maxResults;
    this.#liveFilters = options.liveFilters;
    this.#deadline = options.checkDeadline;
    this.#graceMs = options.matchGraceMs;
  }

  get isLive(): boolean {
    return this.#liveFilters.length > 0;
  }

  confirmedMatches(): number {
    return this.#entries.filter((entry) => entry.verdict?.state === "match").length;
  }

  pendingChecks(): number {
    return this.#entries.filter((entry) => entry.verdict === undefined).length;
  }

  hasEnoughMatches(): boolean {
    return this.confirmedMatches() >= this.#max;
  }

  /** Enough candidates in flight that max_results could be met if they all matched. */
  enoughInFlight(): boolean {
    return this.confirmedMatches() + this.pendingChecks() >= this.#max;
  }

  /**
   * Adds a candidate in provider order. Returns the live check it needs, or null when its verdict
   * is known now: no live filter (a match), no website (nothing to check), a fresh cached audit,
   * or no way to check it (no auditor, or the budget is spent).
   */
  admit(
    place: ScannedPlace,
    context: { cached: SiteAudit | undefined; canCheck: boolean; now: number; costAllowed?: boolean },
  ): PendingCheck | null {
    const entry: Entry = { place, verdict: undefined };
    this.#entries.push(entry);
    if (!this.isLive) {
      entry.verdict = { state: "match" };
      return null;
    }
    // A business without a website has no site to be unfriendly or outdated.
    if (place.candidate.website === null) {
      entry.verdict = { state: "no_match" };
      return null;
    }
    const rank = this.#liveChecked;
    this.#liveChecked += 1;
    if (context.cached) {
      this.#decide(entry, context.cached);
      return null;
    }
    if (!context.canCheck || context.now >= this.#deadline) {
      entry.verdict = { state: "unanswered", why: "check_budget" };
      return null;
    }
    if (context.costAllowed === false) {
      entry.verdict = { state: "unanswered", why: "cost_limit" };
      return null;
    }
    return { index: this.#entries.length - 1, rank };
  }

  /** A check's answer: the audit, or null when it did not come within the budget. */
  settle(check: PendingCheck, audit: SiteAudit | null): void {
    const entry = this.#entries[check.index];
    if (!entry || entry.verdict !== undefined) return;
    if (audit === null) entry.verdict = { state: "unanswered", why: "check_budget" };
    else this.#decide(entry, audit);
  }

  /** The check found the business on the suppression list: never a match. */
  exclude(check: PendingCheck): void {
    const entry = this.#entries[check.index];
    if (entry && entry.verdict === undefined) entry.verdict = { state: "no_match" };
  }

  /** Our own audit pipeline failed for this candidate: the place may well match. */
  fail(check: PendingCheck): void {
    const entry = this.#entries[check.index];
    if (entry && entry.verdict === undefined) entry.verdict = { state: "unanswered", why: "check_failed" };
  }

  /** A reason found while reading the provider's pages. */
  truncatedBy(
    reason: "max_results_reached" | "query_cap" | "page_token_expired" | "check_budget" | "cost_limit",
  ): void {
    this.#reasons.add(reason);
  }

  /**
   * True once waiting cannot change the answer: every candidate ranked before the max_results-th
   * match has its verdict; or the budget is spent; or max_results matches are in hand and the
   * better-ranked checks outlasted the grace.
   */
  isSettled(now: number): boolean {
    if (this.#graceEnds === Number.POSITIVE_INFINITY && this.hasEnoughMatches()) {
      this.#graceEnds = now + this.#graceMs;
    }
    let found = 0;
    let waitingOnEarlier = false;
    for (const entry of this.#entries) {
      if (entry.verdict === undefined) {
        waitingOnEarlier = true;
        break;
      }
      if (entry.verdict.state === "match" && ++found >= this.#max) break;
    }
    if (!waitingOnEarlier) return true;
    if (now >= this.#deadline) return true;
    if (now >= this.#graceEnds) {
      this.#endedByGrace = true;
      return true;
    }
    return false;
  }

  /** When to look again at the latest if no check settles first. */
  wakeAt(): number {
    return Math.min(this.#deadline, this.#graceEnds);
  }

  /** The answer: the first max_results matches in provider order, and whether it is truncated. */
  result(): ScanResult {
    const reasons = new Set(this.#reasons);
    const matches: ScannedPlace[] = [];
    let liveUnanswered = 0;
    for (const entry of this.#entries) {
      // A check still running when the scan ends got no answer in time (budget, or grace).
      const stillRunning = entry.verdict === undefined;
      const verdict: Verdict = entry.verdict ?? { state: "unanswered", why: "check_budget" };
      const mayMatch = verdict.state === "match" || verdict.state === "unanswered";
      if (matches.length >= this.#max) {
        // A candidate left over that matches, or might, means there may be more than returned.
        if (mayMatch) reasons.add("max_results_reached");
        continue;
      }
      if (verdict.state === "unanswered") {
        liveUnanswered += 1;
        reasons.add(stillRunning && this.#endedByGrace ? "match_grace" : verdict.why);
      }
      if (verdict.state === "match") matches.push(entry.place);
    }
    const truncatedBy = [...reasons];
    return {
      matches,
      truncated: truncatedBy.length > 0,
      truncatedBy,
      liveChecked: this.#liveChecked,
      liveUnanswered,
      budgetRanOut: reasons.has("check_budget"),
    };
  }

  #decide(entry: Entry, audit: SiteAudit): void {
    entry.place.audit = audit;
    const match = matchesLiveFilters(audit, this.#liveFilters);
    entry.verdict = match === null ? { state: "unknown" } : { state: match ? "match" : "no_match" };
  }
}

/** One scan's running parts: the request, its dependencies, its state and its checks in flight. */
interface ScanRun {
  request: SearchRequest;
  deps: ScanDeps;
  clock: ScanClock;
  state: ScanState;
  /** Places already read (a place seen twice is counted once). */
  seen: Set<string>;
  inFlight: Set<Promise<void>>;
}

type SearchQuery = SearchRequest["queries"][number];

/** Whether the scan reads on, or its answer is decided. */
type ReadOn = "read_on" | "stop";

/**
 * Queries in order, provider order within a query, a place seen twice counted once; cheap filters
 * first, then, only where a live filter is asked for, an audit with a deadline. Pages are fetched
 * lazily: the scan stops reading as soon as `max_results` matches are known, and while the
 * candidates in flight could still fill it.
 */
export async function scanCandidates(request: SearchRequest, deps: ScanDeps): Promise<ScanResult> {
  const run: ScanRun = {
    request,
    deps,
    clock: deps.clock ?? systemClock,
    state: new ScanState({
      maxResults: request.max_results,
      liveFilters: requestedLiveFilters(request.filters),
      checkDeadline: deps.checkDeadline,
      matchGraceMs: deps.matchGraceMs ?? 0,
    }),
    seen: new Set(),
    inFlight: new Set(),
  };
  for (const [queryIndex, query] of request.queries.entries()) {
    if (run.state.hasEnoughMatches()) {
      run.state.truncatedBy("max_results_reached");
      break;
    }
    if ((await scanQuery(run, query, queryIndex)) === "stop") break;
  }

  // Wait for the checks that can still change the answer (those ranked before the max_results-th
  // match), within the budget; once max_results matches are in hand, only for the grace: one hung
  // site ranked before the last match must not hold the answer to its fetch timeout.
  while (!run.state.isSettled(run.clock.now())) await waitForProgress(run, run.state.wakeAt());
  return run.state.result();
}

/** One query's pages, read while the answer is not decided; a provider failure ends the search. */
async function scanQuery(run: ScanRun, query: SearchQuery, queryIndex: number): Promise<ReadOn> {
  const { deps, state } = run;
  const lastQuery = queryIndex === run.request.queries.length - 1;
  let delivered = 0;
  try {
    const pages = deps.places.searchText(
      { textQuery: toTextQuery(query), minRating: run.request.filters?.min_rating },
      { signal: deps.signal },
    );
    const pageIterator = pages[Symbol.asyncIterator]();
    while (true) {
      if (deps.allowPage && !(await deps.allowPage())) {
        state.truncatedBy("cost_limit"); // the hour's provider pages are spent
        await pageIterator.return?.();
        return "stop";
      }
      const next = await pageIterator.next();
      if (next.done) break;
      delivered += next.value.length;
      if ((await readPage(run, next.value, query, lastQuery)) === "stop") return "stop";
    }
  } catch (error) {
    if (isPlacesProviderError(error) && error.kind === "page_token_expired") {
      // The pages already read stay valid; the rest of this query is lost, so say there may be more.
      deps.logger.warn({ err: error, query_index: queryIndex }, "places page token expired: partial scan");
      state.truncatedBy("page_token_expired");
      return "read_on";
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
  if (delivered >= MAX_PLACES_PER_QUERY) state.truncatedBy("query_cap");
  return "read_on";
}

/** One provider page: its new places admitted in order, their live checks started. */
async function readPage(
  run: ScanRun,
  page: PlaceCandidate[],
  query: SearchQuery,
  lastQuery: boolean,
): Promise<ReadOn> {
  const { deps, state } = run;
  const unsuppressed = page.filter((candidate) => {
    if (run.seen.has(candidate.placeId)) return false;
    run.seen.add(candidate.placeId);
    // A business closed for good is no lead: never returned, never charged, never counted.
    if (candidate.permanentlyClosed) return false;
    return passesCheapFilters(candidate, run.request.filters);
  });
  const fresh = deps.suppression ? await deps.suppression.withoutSuppressed(unsuppressed) : unsuppressed;
  const cached = state.isLive
    ? await deps.readFreshAudits(
        fresh.flatMap((c) => (c.website ? [{ placeId: c.placeId, url: c.website }] : [])),
      )
    : new Map<string, SiteAudit>();
  const morePages = page.length === PLACES_PAGE_SIZE;
  // The cost guard is asked once per uncached check, before it starts. The asks go out together,
  // in this order (the limiter's store answers them in the order sent), so the page's checks wait
  // one round trip to Redis rather than one per candidate.
  const costAllowed = await Promise.all(
    fresh.map(async (candidate) => {
      const needsCheck = state.isLive && candidate.website !== null && !cached.has(candidate.placeId);
      return !needsCheck || !deps.allowLiveCheck || deps.allowLiveCheck();
    }),
  );
  for (const [index, candidate] of fresh.entries()) {
    const place = { candidate, category: candidate.category ?? query.category.trim(), audit: null };
    const check = state.admit(place, {
      cached: cached.get(candidate.placeId),
      canCheck: deps.auditor !== undefined,
      now: run.clock.now(),
      costAllowed: costAllowed[index] ?? false,
    });
    if (check && deps.auditor && candidate.website !== null) {
      startCheck(run, deps.auditor, check, { ...candidate, website: candidate.website });
    }
    if (!state.isLive && state.hasEnoughMatches()) {
      if (index < fresh.length - 1 || morePages || !lastQuery) state.truncatedBy("max_results_reached");
      return "stop";
    }
  }
  return awaitLiveChecks(run, morePages, lastQuery);
}

/** Live checks: a further page is read only while the candidates in flight cannot fill max_results. */
async function awaitLiveChecks(run: ScanRun, morePages: boolean, lastQuery: boolean): Promise<ReadOn> {
  const { state, clock, deps } = run;
  while (
    state.isLive &&
    state.enoughInFlight() &&
    !state.hasEnoughMatches() &&
    run.inFlight.size > 0 &&
    clock.now() < deps.checkDeadline
  ) {
    await waitForProgress(run, deps.checkDeadline);
  }
  if (state.isLive && state.hasEnoughMatches()) {
    if (morePages || !lastQuery) state.truncatedBy("max_results_reached");
    return "stop";
  }
  if (state.isLive && clock.now() >= deps.checkDeadline) {
    state.truncatedBy("check_budget");
    return "stop";
  }
  return "read_on";
}

function startCheck(
  run: ScanRun,
  auditor: SiteAuditor,
  check: PendingCheck,
  candidate: PlaceCandidate & { website: string },
): void {
  const { deps, state, inFlight } = run;
  const settled = auditor
    .audit(
      { placeId: candidate.placeId, url: candidate.website, country: candidate.country },
      deps.checkDeadline,
      { rank: check.rank },
    )
    .then(async (audit) =>
      audit !== null && (await deps.suppression?.coversAudit(audit))
        ? state.exclude(check)
        : state.settle(check, audit),
    )
    .catch((error: unknown) => {
      // The audit, or the suppression lookup of the address it found: the place may well match.
      deps.logger.error({ err: error, place_id: candidate.placeId }, "site audit failed");
      state.fail(check);
    })
    .finally(() => inFlight.delete(settled));
  inFlight.add(settled);
}

/** Waits until one check settles or `until` comes. */
function waitForProgress({ inFlight, clock }: ScanRun, until: number): Promise<void> {
  return inFlight.size === 0 ? Promise.resolve() : clock.waitUntil(until, Promise.race(inFlight));
}
