/**
 * The scan's rules (spec rule 6, DESIGN "How a live-check search runs") with a fake provider, a
 * fake auditor whose audits the test settles by hand, and a fake clock: no network, no sleeps.
 */
import { describe, expect, it } from "vitest";
import type { AuditRequestOptions, SiteAuditor } from "../../../shared/audit/auditor.ts";
import type { AuditSignals, SiteAudit } from "../../../shared/audit/types.ts";
import { UNKNOWN_SIGNALS } from "../../../shared/audit/types.ts";
import { ApiError } from "../../../shared/errors.ts";
import {
  PLACES_PAGE_SIZE,
  type PlaceCandidate,
  type PlacesProvider,
  PlacesProviderError,
} from "../../../shared/places/types.ts";
import {
  type ScanClock,
  type ScanDeps,
  type ScanResult,
  scanCandidates,
} from "../../../shared/search/scan.ts";
import type { SearchRequest } from "../../../shared/search/types.ts";

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

function candidate(id: string, website: string | null = `https://${id}.example/`): PlaceCandidate {
  return {
    placeId: id,
    name: `Business ${id}`,
    category: "Plumber",
    address: null,
    website,
    phone: null,
    permanentlyClosed: false,
    country: "US",
    rating: 4.5,
    userRatingCount: 10,
  };
}

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

/** Pages of 20 per query text, up to 60; records how many pages were asked for. */
function fakeProvider(byQuery: Record<string, PlaceCandidate[]>, options: { expireAfterPage?: number } = {}) {
  const pagesRead: string[] = [];
  const provider: PlacesProvider = {
    name: "fake",
    async *searchText(query) {
      const all = (byQuery[query.textQuery] ?? []).slice(0, 60);
      for (let start = 0, page = 0; start < all.length; start += PLACES_PAGE_SIZE, page++) {
        if (options.expireAfterPage !== undefined && page >= options.expireAfterPage) {
          throw new PlacesProviderError("page_token_expired", "expired");
        }
        pagesRead.push(`${query.textQuery}#${page}`);
        yield all.slice(start, start + PLACES_PAGE_SIZE);
      }
    },
  };
  return { provider, pagesRead };
}

function audit(placeId: string, signals: Partial<AuditSignals>, outcome: "ok" | "failed" = "ok"): SiteAudit {
  return {
    place_id: placeId,
    url: `https://${placeId}.example/`,
    outcome,
    failure: outcome === "ok" ? null : "timeout",
    signals: { ...UNKNOWN_SIGNALS, ...signals },
    evidence: {},
    audited_at: new Date(0),
  };
}
const OLD = { not_mobile_friendly: true, outdated_website: true };
const MODERN = { not_mobile_friendly: false, outdated_website: false };

/** Audits the test answers by hand; records each ask with its rank. */
function fakeAuditor() {
  const asks: { placeId: string; rank: number | undefined }[] = [];
  const waiting = new Map<string, { resolve(a: SiteAudit | null): void; reject(e: Error): void }>();
  const auditor: SiteAuditor = {
    audit(target, _deadline, options?: AuditRequestOptions) {
      asks.push({ placeId: target.placeId, rank: options?.rank });
      return new Promise((resolve, reject) => waiting.set(target.placeId, { resolve, reject }));
    },
    close: async () => {},
  };
  return {
    auditor,
    asks,
    answer(placeId: string, signals: Partial<AuditSignals> | null, outcome: "ok" | "failed" = "ok") {
      const pending = waiting.get(placeId);
      if (!pending) throw new Error(`no audit of ${placeId} is waiting`);
      waiting.delete(placeId);
      pending.resolve(signals === null ? null : audit(placeId, signals, outcome));
    },
    crash(placeId: string) {
      waiting.get(placeId)?.reject(new Error("database is down"));
      waiting.delete(placeId);
    },
  };
}

/** Time moves only when the test says so. */
function fakeClock(start = 1_000_000) {
  let now = start;
  const timers: { until: number; resolve(): void }[] = [];
  const clock: ScanClock = {
    now: () => now,
    waitUntil(until, progress) {
      return new Promise<void>((resolve) => {
        if (until <= now) return resolve();
        timers.push({ until, resolve });
        progress.then(
          () => resolve(),
          () => resolve(),
        );
      });
    },
  };
  return {
    clock,
    advance(ms: number) {
      now += ms;
      for (const timer of timers.filter((t) => t.until <= now)) timer.resolve();
    },
    get now() {
      return now;
    },
  };
}

const quietLogger = { warn() {}, error() {} };

function live(
  queries: string[],
  max: number,
  filters: SearchRequest["filters"] = { not_mobile_friendly: true },
) {
  return {
    queries: queries.map((q) => ({ location: "Springfield", category: q })),
    filters,
    max_results: max,
  } satisfies SearchRequest;
}
const text = (category: string) => `${category} in Springfield`;

function deps(
  provider: PlacesProvider,
  overrides: Partial<ScanDeps> & { clock: ScanClock },
  cached: Map<string, SiteAudit> = new Map(),
): ScanDeps {
  return {
    places: provider,
    readFreshAudits: async (sites) =>
      new Map(sites.flatMap((s) => (cached.has(s.placeId) ? [[s.placeId, cached.get(s.placeId)!]] : []))),
    auditor: undefined,
    checkDeadline: overrides.clock.now() + 30_000,
    logger: quietLogger,
    ...overrides,
  };
}

const matchIds = (result: ScanResult) => result.matches.map((m) => m.candidate.placeId);

describe("scan without live filters", () => {
  it("returns candidates in query then provider order, a place seen twice once, cheap filters applied", async () => {
    const { clock } = fakeClock();
    const lowRated = { ...candidate("low"), rating: 2 };
    const { provider } = fakeProvider({
      [text("plumber")]: [candidate("a"), lowRated, candidate("b")],
      [text("roofer")]: [candidate("b"), candidate("c")],
    });
    const result = await scanCandidates(
      { ...live(["plumber", "roofer"], 10, { min_rating: 4 }) },
      deps(provider, { clock }),
    );
    expect(matchIds(result)).toEqual(["a", "b", "c"]);
    expect(result).toMatchObject({ truncated: false, truncatedBy: [], liveChecked: 0 });
  });

  it("stops at max_results and says truncated only when more could follow", async () => {
    const { clock } = fakeClock();
    const { provider, pagesRead } = fakeProvider({
      [text("plumber")]: ids("p", 45).map((id) => candidate(id)),
      [text("exact")]: ids("e", 5).map((id) => candidate(id)),
    });
    const many = await scanCandidates(live(["plumber"], 25, {}), deps(provider, { clock }));
    expect(matchIds(many)).toEqual(ids("p", 25));
    expect(many.truncatedBy).toEqual(["max_results_reached"]);
    // Lazily: the third page was never asked for.
    expect(pagesRead).toEqual([`${text("plumber")}#0`, `${text("plumber")}#1`]);

    const exact = await scanCandidates(live(["exact"], 5, {}), deps(provider, { clock }));
    expect(exact).toMatchObject({ truncated: false });
  });

  it("says truncated when a query delivered its cap of 60, or lost a page to an expired token", async () => {
    const { clock } = fakeClock();
    const capped = fakeProvider({ [text("plumber")]: ids("p", 60).map((id) => candidate(id)) });
    const result = await scanCandidates(
      live(["plumber"], 25, { no_website: true }),
      deps(capped.provider, { clock }),
    );
    expect(result.matches).toHaveLength(0);
    expect(result.truncatedBy).toEqual(["query_cap"]);

    const expiring = fakeProvider(
      { [text("plumber")]: ids("p", 30).map((id) => candidate(id, null)) },
      { expireAfterPage: 1 },
    );
    const partial = await scanCandidates(
      live(["plumber"], 25, { no_website: true }),
      deps(expiring.provider, { clock }),
    );
    expect(matchIds(partial)).toEqual(ids("p", 20));
    expect(partial.truncatedBy).toEqual(["page_token_expired"]);
  });

  it("turns a provider failure into internal_error", async () => {
    const { clock } = fakeClock();
    const provider: PlacesProvider = {
      name: "down",
      // biome-ignore lint/correctness/useYield: a provider that fails before its first page
      async *searchText() {
        throw new PlacesProviderError("unavailable", "503");
      },
    };
    await expect(scanCandidates(live(["plumber"], 5, {}), deps(provider, { clock }))).rejects.toBeInstanceOf(
      ApiError,
    );
  });
});

describe("live-check scan", () => {
  it("answers from fresh cached audits at once; no website is no match; an unknown signal is left out, not truncated", async () => {
    const { clock } = fakeClock();
    const { provider } = fakeProvider({
      [text("plumber")]: [candidate("old"), candidate("none", null), candidate("modern"), candidate("down")],
    });
    const cached = new Map([
      ["old", audit("old", OLD)],
      ["modern", audit("modern", MODERN)],
      ["down", audit("down", {}, "failed")],
    ]);
    const result = await scanCandidates(live(["plumber"], 10), deps(provider, { clock }, cached));
    expect(matchIds(result)).toEqual(["old"]);
    expect(result.matches[0]?.audit).toBe(cached.get("old"));
    expect(result).toMatchObject({ truncated: false, liveChecked: 3, liveUnanswered: 0 });
  });

  it("checks uncached sites with their rank as priority and keeps provider order in the answer", async () => {
    const time = fakeClock();
    const audits = fakeAuditor();
    const { provider } = fakeProvider({ [text("plumber")]: ["a", "b", "c"].map((id) => candidate(id)) });
    const scan = scanCandidates(
      live(["plumber"], 10),
      deps(provider, { clock: time.clock, auditor: audits.auditor }),
    );
    await flush();
    expect(audits.asks).toEqual([
      { placeId: "a", rank: 0 },
      { placeId: "b", rank: 1 },
      { placeId: "c", rank: 2 },
    ]);
    audits.answer("c", OLD);
    audits.answer("b", MODERN);
    audits.answer("a", OLD);
    const result = await scan;
    expect(matchIds(result)).toEqual(["a", "c"]);
    expect(result.matches[1]?.audit?.place_id).toBe("c");
    expect(result).toMatchObject({ truncated: false, liveChecked: 3, liveUnanswered: 0 });
  });

  it("reads the next page only while the candidates in flight cannot fill max_results", async () => {
    const time = fakeClock();
    const audits = fakeAuditor();
    const { provider, pagesRead } = fakeProvider({
      [text("plumber")]: ids("p", 60).map((id) => candidate(id)),
    });
    const scan = scanCandidates(
      live(["plumber"], 5),
      deps(provider, { clock: time.clock, auditor: audits.auditor }),
    );
    await flush();
    // 20 in flight can fill 5: no second page yet.
    expect(pagesRead).toEqual([`${text("plumber")}#0`]);
    for (const id of ids("p", 16)) audits.answer(id, MODERN);
    await flush();
    // 4 in flight cannot fill 5 any more: the next page is read.
    expect(pagesRead).toHaveLength(2);
    for (const id of ids("p", 20).slice(16)) audits.answer(id, OLD);
    for (const id of ids("p", 40).slice(20)) audits.answer(id, id === "p20" ? OLD : MODERN);
    const result = await scan;
    expect(matchIds(result)).toEqual(["p16", "p17", "p18", "p19", "p20"]);
    // Page 2 held more candidates, unread: there may be more matches.
    expect(result.truncatedBy).toEqual(["max_results_reached"]);
  });

  it("leaves out what the budget did not answer and says truncated (check_budget)", async () => {
    const time = fakeClock();
    const audits = fakeAuditor();
    const { provider } = fakeProvider({ [text("plumber")]: ["a", "b"].map((id) => candidate(id)) });
    const scan = scanCandidates(
      live(["plumber"], 10),
      deps(provider, { clock: time.clock, auditor: audits.auditor, checkDeadline: time.now + 10_000 }),
    );
    await flush();
    audits.answer("a", OLD);
    await flush();
    time.advance(10_000);
    const result = await scan;
    expect(matchIds(result)).toEqual(["a"]);
    expect(result).toMatchObject({
      truncated: true,
      truncatedBy: ["check_budget"],
      liveUnanswered: 1,
      budgetRanOut: true,
    });
  });

  it("treats our own audit failure as unanswered (check_failed), not as no match", async () => {
    const time = fakeClock();
    const audits = fakeAuditor();
    const { provider } = fakeProvider({ [text("plumber")]: ["a", "b"].map((id) => candidate(id)) });
    const scan = scanCandidates(
      live(["plumber"], 10),
      deps(provider, { clock: time.clock, auditor: audits.auditor }),
    );
    await flush();
    audits.crash("a");
    audits.answer("b", OLD);
    const result = await scan;
    expect(matchIds(result)).toEqual(["b"]);
    expect(result).toMatchObject({ truncated: true, truncatedBy: ["check_failed"], budgetRanOut: false });
  });

  it("without an auditor, cannot check: every uncached site is unanswered", async () => {
    const { clock } = fakeClock();
    const { provider } = fakeProvider({ [text("plumber")]: [candidate("a")] });
    const result = await scanCandidates(live(["plumber"], 10), deps(provider, { clock }));
    expect(result).toMatchObject({ matches: [], truncated: true, liveUnanswered: 1 });
  });

  it("once max_results matches are in, gives better-ranked checks the grace, then answers without them", async () => {
    const time = fakeClock();
    const audits = fakeAuditor();
    const { provider } = fakeProvider({
      [text("plumber")]: ["hung", "m1", "m2", "later"].map((id) => candidate(id)),
    });
    let answered = false;
    const scan = scanCandidates(
      live(["plumber"], 2),
      deps(provider, { clock: time.clock, auditor: audits.auditor, matchGraceMs: 1_000 }),
    ).then((result) => {
      answered = true;
      return result;
    });
    await flush();
    time.advance(700);
    audits.answer("m1", OLD);
    audits.answer("m2", OLD);
    await flush();
    // Two matches in hand, "hung" ranked before them still running: the grace starts now.
    time.advance(999);
    await flush();
    expect(answered).toBe(false);
    time.advance(1);
    const result = await scan;
    expect(matchIds(result)).toEqual(["m1", "m2"]);
    expect(result.truncatedBy).toEqual(expect.arrayContaining(["match_grace"]));
    expect(result).toMatchObject({ truncated: true, budgetRanOut: false });
  });

  it("within the grace, a better-ranked match that answers takes its place in provider order", async () => {
    const time = fakeClock();
    const audits = fakeAuditor();
    const { provider } = fakeProvider({ [text("plumber")]: ["slow", "m1", "m2"].map((id) => candidate(id)) });
    const scan = scanCandidates(
      live(["plumber"], 2),
      deps(provider, { clock: time.clock, auditor: audits.auditor, matchGraceMs: 1_000 }),
    );
    await flush();
    audits.answer("m1", OLD);
    audits.answer("m2", OLD);
    await flush();
    time.advance(500);
    audits.answer("slow", OLD);
    const result = await scan;
    expect(matchIds(result)).toEqual(["slow", "m1"]);
    // m2 matched and was left over: there are more matches than returned.
    expect(result.truncatedBy).toEqual(["max_results_reached"]);
  });

  it("does not wait for checks ranked after the max_results-th match", async () => {
    const time = fakeClock();
    const audits = fakeAuditor();
    const { provider } = fakeProvider({
      [text("plumber")]: ["m1", "m2", "after"].map((id) => candidate(id)),
    });
    const scan = scanCandidates(
      live(["plumber"], 2),
      deps(provider, { clock: time.clock, auditor: audits.auditor }),
    );
    await flush();
    audits.answer("m1", OLD);
    audits.answer("m2", OLD);
    const result = await scan;
    expect(matchIds(result)).toEqual(["m1", "m2"]);
    // "after" may match too: say so.
    expect(result).toMatchObject({ truncated: true, truncatedBy: ["max_results_reached"] });
  });

  it("admits nothing for checking once the budget is spent", async () => {
    const time = fakeClock();
    const audits = fakeAuditor();
    const { provider } = fakeProvider({ [text("plumber")]: [candidate("a")] });
    const result = await scanCandidates(
      live(["plumber"], 5),
      deps(provider, { clock: time.clock, auditor: audits.auditor, checkDeadline: time.now - 1 }),
    );
    expect(audits.asks).toEqual([]);
    expect(result).toMatchObject({ matches: [], truncated: true, budgetRanOut: true });
  });
});

describe("the suppression list in the scan", () => {
  it("drops suppressed candidates before they count toward max_results, and a check that finds a suppressed address is no match", async () => {
    const time = fakeClock();
    const audits = fakeAuditor();
    const { provider } = fakeProvider({
      [text("plumber")]: ["a", "b", "c", "d", "e"].map((id) => candidate(id)),
    });
    const scan = scanCandidates(
      live(["plumber"], 2),
      deps(provider, {
        clock: time.clock,
        auditor: audits.auditor,
        suppression: {
          // "a" is suppressed by its place (known before any check).
          withoutSuppressed: async (candidates) => candidates.filter((c) => c.placeId !== "a"),
          coversAudit: async (checked) => checked.signals.email === "owner@b.example",
        },
      }),
    );
    await flush();
    // "a" is never checked (one page: the others are checked at once).
    expect(audits.asks.map((ask) => ask.placeId)).toEqual(["b", "c", "d", "e"]);
    // "b" turns out suppressed: no match, so the answer waits for "d" to fill max_results.
    audits.answer("b", { ...OLD, email: "owner@b.example" });
    audits.answer("c", OLD);
    audits.answer("d", OLD);
    const result = await scan;
    expect(matchIds(result)).toEqual(["c", "d"]);
  });

  it("without live filters, returns max_results unsuppressed places", async () => {
    const time = fakeClock();
    const { provider } = fakeProvider({ [text("plumber")]: ["a", "b", "c", "d"].map((id) => candidate(id)) });
    const result = await scanCandidates(
      { queries: [{ location: "Springfield", category: "plumber" }], max_results: 2 },
      deps(provider, {
        clock: time.clock,
        suppression: {
          withoutSuppressed: async (candidates) => candidates.filter((c) => c.placeId !== "b"),
          coversAudit: async () => false,
        },
      }),
    );
    expect(matchIds(result)).toEqual(["a", "c"]);
  });
});
