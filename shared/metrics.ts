/**
 * Prometheus metrics of the API and the audit worker (prom-client, text format).
 *
 * One registry per `createMetrics()` call and no global state, so a test can build several apps in
 * one process. Domain code never sees prom-client: it reports through the small `*Metrics`
 * interfaces below (optional in its deps), and the wrappers at the end time the calls to the
 * places provider, the LLM and the audit runner without touching those modules.
 *
 * Every name starts with `leadapi_`; docs/grafana/lead-api-dashboard.json plots exactly these.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { AuditTarget } from "./audit/audit-site.ts";
import type { SiteAudit } from "./audit/types.ts";
import type { ReversalKind } from "./credits/reversals.ts";
import type { PurchaseSource } from "./db/schema.ts";
import type { Draft, DraftGenerator, DraftRequest } from "./drafting/generator.ts";
import type { MismatchReason } from "./payments/settlement.ts";
import type { PlaceCandidate, PlacesProvider, SearchTextOptions, TextSearchQuery } from "./places/types.ts";
import type { RateLimitFallbackMetrics } from "./rate-limits.ts";

export const METRICS_PREFIX = "leadapi_";

export const SEARCH_OUTCOMES = ["ok", "truncated", "insufficient_credits", "error"] as const;
export const DRAFT_OUTCOMES = [
  "ok",
  "insufficient_audit_data",
  "insufficient_credits",
  "generation_failed",
  "error",
] as const;
export const DRAFT_GENERATORS = ["template", "llm"] as const;
export const AUDIT_JOB_OUTCOMES = ["ok", "failed", "error"] as const;
export const CALL_OUTCOMES = ["ok", "error"] as const;
export const CREDIT_OPERATIONS = ["search", "draft"] as const;
export const PURCHASE_SOURCES = ["stripe", "operator"] as const satisfies readonly PurchaseSource[];
export const REVERSAL_KINDS = ["refund", "dispute"] as const satisfies readonly ReversalKind[];
export const MISMATCH_REASONS = [
  "workspace",
  "pack",
  "amount",
  "currency",
] as const satisfies readonly MismatchReason[];
export type AuditStageLabel = "fetch" | "parse";

export type SearchOutcomeLabel = (typeof SEARCH_OUTCOMES)[number];
export type DraftOutcomeLabel = (typeof DRAFT_OUTCOMES)[number];
export type AuditJobOutcomeLabel = (typeof AUDIT_JOB_OUTCOMES)[number];
export type CallOutcomeLabel = (typeof CALL_OUTCOMES)[number];

/** What a search reports (shared/search/search-leads.ts). */
export interface SearchMetrics {
  /** Once per search that ran; `creditsSpent` only for a search that charged. */
  searchFinished(outcome: SearchOutcomeLabel, creditsSpent: number): void;
  /** Live-filter cache lookups of the scan: sites answered from the cache, and sites not. */
  auditCacheLookups(hits: number, misses: number): void;
  /** A search answered truncated because some live checks did not finish within its budget. */
  searchTruncatedByBudget(): void;
}

/** What a draft reports (shared/drafting/draft-outreach.ts). */
export interface DraftMetrics {
  draftFinished(outcome: DraftOutcomeLabel, generator: DraftGenerator["name"], creditsSpent: number): void;
}

/** What buying credits reports (shared/payments/payments.ts, the admin purchase route, the webhook). */
export interface PaymentMetrics {
  /** A purchase credited: `credits` added to a balance. */
  purchaseCredited(source: PurchaseSource, credits: number): void;
  /** A refund or dispute recorded: the credits it took back and those it could not (the shortfall). */
  reversalApplied(kind: ReversalKind, credits: number, shortfall: number): void;
  /** A paid session that matches no pack on sale for its workspace: nothing credited. */
  paymentMismatch(reason: MismatchReason): void;
  /** One answer of `POST /webhooks/stripe`, by HTTP status. */
  stripeWebhookAnswered(statusCode: number): void;
}

export interface AuditJobMetrics {
  auditJobFinished(outcome: AuditJobOutcomeLabel, seconds: number): void;
  /** An audit starts (+1) or ends (-1) in this process. */
  auditsInFlight(delta: 1 | -1): void;
  /** How long one stage of an audit took: the homepage fetch, or its parsing (thread wait included). */
  auditStage(stage: AuditStageLabel, seconds: number): void;
  /** How long a job waited between being queued and starting. */
  auditQueueWait(seconds: number): void;
}

export interface PlacesCallMetrics {
  placesCallFinished(outcome: CallOutcomeLabel, seconds: number): void;
}

export interface LlmCallMetrics {
  llmCallFinished(outcome: CallOutcomeLabel, seconds: number): void;
}

/** Audit queue state: BullMQ's counts in distributed mode, the in-process auditor's own otherwise. */
export interface AuditQueueCounts {
  waiting: number;
  delayed: number;
  active: number;
}

export interface Metrics
  extends SearchMetrics,
    DraftMetrics,
    AuditJobMetrics,
    PlacesCallMetrics,
    LlmCallMetrics,
    PaymentMetrics,
    RateLimitFallbackMetrics {
  readonly registry: Registry;
  /** The Content-Type of `scrape()`'s text. */
  readonly contentType: string;
  readonly httpRequestDuration: Histogram<"method" | "route" | "status_code">;
  readonly creditsSpent: Counter<"operation">;
  readonly searches: Counter<"outcome">;
  readonly drafts: Counter<"outcome" | "generator">;
  readonly auditJobs: Counter<"outcome">;
  readonly auditJobDuration: Histogram<"outcome">;
  readonly auditCacheLookupsTotal: Counter<"result">;
  readonly auditQueueDepth: Gauge<"state">;
  readonly auditActiveJobs: Gauge;
  readonly auditsInFlightGauge: Gauge;
  readonly auditStageDuration: Histogram<"stage">;
  readonly auditQueueWaitDuration: Histogram;
  readonly searchesTruncatedByBudget: Counter;
  readonly placesRequestDuration: Histogram<"outcome">;
  readonly llmRequestDuration: Histogram<"outcome">;
  readonly rateLimitFallbackGauge: Gauge;
  readonly rateLimitChecksInMemory: Counter;
  readonly creditPurchases: Counter<"source">;
  readonly creditsSold: Counter<"source">;
  readonly creditReversals: Counter<"kind">;
  readonly creditsReversed: Counter<"kind">;
  readonly creditShortfall: Counter;
  readonly paymentMismatches: Counter<"reason">;
  readonly stripeWebhookResponses: Counter<"status_code">;
  /** `route` is the route pattern (`/v1/leads/:id`), never the raw URL. */
  httpRequestFinished(method: string, route: string, statusCode: number, seconds: number): void;
  /**
   * Where the queue gauges read from at each scrape (the last call wins). A source that returns
   * undefined or fails leaves the gauges without samples for that scrape.
   */
  observeAuditQueue(read: () => Promise<AuditQueueCounts | undefined>): void;
  /** The whole registry in Prometheus text format. */
  scrape(): Promise<string>;
}

export interface CreateMetricsOptions {
  /** Node.js process metrics (CPU, memory, event loop, GC), also `leadapi_`-prefixed. Default true. */
  defaultMetrics?: boolean;
  /** Called when the audit queue source fails during a scrape. */
  onCollectError?: (error: unknown) => void;
  /** A queue source slower than this counts as failed, so a scrape never hangs on Redis. Default 1 000 ms. */
  queueReadTimeoutMs?: number;
}

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 45, 60];
const AUDIT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 12, 20, 30, 60];
const PLACES_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30];
const LLM_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

export function createMetrics(options: CreateMetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: METRICS_PREFIX });

  const httpRequestDuration = new Histogram({
    name: `${METRICS_PREFIX}http_request_duration_seconds`,
    help: "HTTP request duration by method, route pattern and status code",
    labelNames: ["method", "route", "status_code"] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const creditsSpent = new Counter({
    name: `${METRICS_PREFIX}credits_spent_total`,
    help: "Credits charged, by operation (search, draft)",
    labelNames: ["operation"] as const,
    registers,
  });
  const searches = new Counter({
    name: `${METRICS_PREFIX}searches_total`,
    help: "Searches run, by outcome (ok, truncated, insufficient_credits, error)",
    labelNames: ["outcome"] as const,
    registers,
  });
  const drafts = new Counter({
    name: `${METRICS_PREFIX}drafts_total`,
    help: "Outreach drafts asked for, by outcome and generator (template, llm)",
    labelNames: ["outcome", "generator"] as const,
    registers,
  });
  const auditJobs = new Counter({
    name: `${METRICS_PREFIX}audit_jobs_total`,
    help: "Homepage audits run by this process, by outcome (ok, failed: the site could not be read, error)",
    labelNames: ["outcome"] as const,
    registers,
  });
  const auditJobDuration = new Histogram({
    name: `${METRICS_PREFIX}audit_job_duration_seconds`,
    help: "Duration of one homepage audit (fetch, analysis, cache write), by outcome",
    labelNames: ["outcome"] as const,
    buckets: AUDIT_BUCKETS,
    registers,
  });
  const auditCacheLookupsTotal = new Counter({
    name: `${METRICS_PREFIX}audit_cache_lookups_total`,
    help: "Live-filter audit cache lookups in the search scan, by result (hit, miss)",
    labelNames: ["result"] as const,
    registers,
  });

  let queueSource: (() => Promise<AuditQueueCounts | undefined>) | undefined;
  // One read per scrape feeds both gauges; the second collect reuses the first one's promise.
  let pendingRead: Promise<AuditQueueCounts | undefined> | undefined;
  const queueReadTimeoutMs = options.queueReadTimeoutMs ?? 1_000;
  const readQueue = () => {
    const source = queueSource;
    if (!source) return Promise.resolve(undefined);
    pendingRead ??= withTimeout(source(), queueReadTimeoutMs, "the audit queue counts")
      .catch((error: unknown) => {
        options.onCollectError?.(error);
        return undefined;
      })
      .finally(() => {
        setImmediate(() => {
          pendingRead = undefined;
        });
      });
    return pendingRead;
  };
  const auditQueueDepth: Gauge<"state"> = new Gauge({
    name: `${METRICS_PREFIX}audit_queue_depth`,
    help: "Audit jobs waiting to run, by state (waiting, delayed)",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      const counts = await readQueue();
      auditQueueDepth.reset();
      if (!counts) return;
      auditQueueDepth.set({ state: "waiting" }, counts.waiting);
      auditQueueDepth.set({ state: "delayed" }, counts.delayed);
    },
  });
  const auditActiveJobs: Gauge = new Gauge({
    name: `${METRICS_PREFIX}audit_active_jobs`,
    help: "Audit jobs running now",
    registers,
    async collect() {
      const counts = await readQueue();
      auditActiveJobs.reset();
      if (counts) auditActiveJobs.set(counts.active);
    },
  });
  const auditsInFlightGauge = new Gauge({
    name: `${METRICS_PREFIX}audits_in_flight`,
    help: "Homepage audits running in this process now (fetching or parsing)",
    registers,
  });
  const auditStageDuration = new Histogram({
    name: `${METRICS_PREFIX}audit_stage_duration_seconds`,
    help: "Duration of one stage of a homepage audit: fetch (network), parse (analysis thread, wait included)",
    labelNames: ["stage"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 12],
    registers,
  });
  const auditQueueWaitDuration = new Histogram({
    name: `${METRICS_PREFIX}audit_queue_wait_seconds`,
    help: "Time an audit job waited between being queued and starting",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30],
    registers,
  });
  const searchesTruncatedByBudget = new Counter({
    name: `${METRICS_PREFIX}searches_truncated_by_budget_total`,
    help: "Live-check searches answered truncated because checks were still running when the budget ran out",
    registers,
  });
  const placesRequestDuration = new Histogram({
    name: `${METRICS_PREFIX}places_request_duration_seconds`,
    help: "Places provider latency of one result page (retries included), by outcome",
    labelNames: ["outcome"] as const,
    buckets: PLACES_BUCKETS,
    registers,
  });
  const llmRequestDuration = new Histogram({
    name: `${METRICS_PREFIX}llm_request_duration_seconds`,
    help: "LLM drafting latency of one draft (retry included), by outcome",
    labelNames: ["outcome"] as const,
    buckets: LLM_BUCKETS,
    registers,
  });

  const rateLimitFallbackGauge = new Gauge({
    name: `${METRICS_PREFIX}rate_limit_fallback_active`,
    help: "1 while Redis is unreachable and this node counts rate and cost limits in its own memory (limits per node)",
    registers,
  });
  const rateLimitChecksInMemory = new Counter({
    name: `${METRICS_PREFIX}rate_limit_checks_in_memory_total`,
    help: "Rate and cost limit checks answered from this node's memory because Redis was unreachable",
    registers,
  });

  const creditPurchases = new Counter({
    name: `${METRICS_PREFIX}credit_purchases_total`,
    help: "Purchases credited, by source (stripe: a paid Checkout Session; operator: the admin API)",
    labelNames: ["source"] as const,
    registers,
  });
  const creditsSold = new Counter({
    name: `${METRICS_PREFIX}credits_sold_total`,
    help: "Credits added by purchases, by source (stripe, operator)",
    labelNames: ["source"] as const,
    registers,
  });
  const creditReversals = new Counter({
    name: `${METRICS_PREFIX}credit_reversals_total`,
    help: "Refunds and disputes of Stripe payments recorded, by kind (refund, dispute)",
    labelNames: ["kind"] as const,
    registers,
  });
  const creditsReversed = new Counter({
    name: `${METRICS_PREFIX}credits_reversed_total`,
    help: "Credits taken back by refunds and disputes, by kind",
    labelNames: ["kind"] as const,
    registers,
  });
  const creditShortfall = new Counter({
    name: `${METRICS_PREFIX}credit_shortfall_total`,
    help: "Credits a refund or dispute could not take back (already spent: the balance stops at 0)",
    registers,
  });
  const paymentMismatches = new Counter({
    name: `${METRICS_PREFIX}payment_mismatches_total`,
    help: "Paid Checkout Sessions that credited nothing, by what did not match (workspace, pack, amount, currency)",
    labelNames: ["reason"] as const,
    registers,
  });
  const stripeWebhookResponses = new Counter({
    name: `${METRICS_PREFIX}stripe_webhook_responses_total`,
    help: "Answers of POST /webhooks/stripe, by HTTP status (400: bad signature; 500: Stripe retries)",
    labelNames: ["status_code"] as const,
    registers,
  });

  // Known label values start at 0, so that rate() and ratios work from the first event.
  for (const source of PURCHASE_SOURCES) {
    creditPurchases.inc({ source }, 0);
    creditsSold.inc({ source }, 0);
  }
  for (const kind of REVERSAL_KINDS) {
    creditReversals.inc({ kind }, 0);
    creditsReversed.inc({ kind }, 0);
  }
  creditShortfall.inc(0);
  for (const reason of MISMATCH_REASONS) paymentMismatches.inc({ reason }, 0);
  for (const operation of CREDIT_OPERATIONS) creditsSpent.inc({ operation }, 0);
  for (const outcome of SEARCH_OUTCOMES) searches.inc({ outcome }, 0);
  for (const outcome of DRAFT_OUTCOMES) {
    for (const generator of DRAFT_GENERATORS) drafts.inc({ outcome, generator }, 0);
  }
  for (const outcome of AUDIT_JOB_OUTCOMES) auditJobs.inc({ outcome }, 0);
  for (const result of ["hit", "miss"]) auditCacheLookupsTotal.inc({ result }, 0);
  searchesTruncatedByBudget.inc(0);
  rateLimitChecksInMemory.inc(0);

  return {
    registry,
    contentType: registry.contentType,
    httpRequestDuration,
    creditsSpent,
    searches,
    drafts,
    auditJobs,
    auditJobDuration,
    auditCacheLookupsTotal,
    auditQueueDepth,
    auditActiveJobs,
    auditsInFlightGauge,
    auditStageDuration,
    auditQueueWaitDuration,
    searchesTruncatedByBudget,
    placesRequestDuration,
    llmRequestDuration,
    rateLimitFallbackGauge,
    rateLimitChecksInMemory,
    creditPurchases,
    creditsSold,
    creditReversals,
    creditsReversed,
    creditShortfall,
    paymentMismatches,
    stripeWebhookResponses,
    purchaseCredited(source, credits) {
      creditPurchases.inc({ source });
      creditsSold.inc({ source }, credits);
    },
    reversalApplied(kind, credits, shortfall) {
      creditReversals.inc({ kind });
      if (credits > 0) creditsReversed.inc({ kind }, credits);
      if (shortfall > 0) creditShortfall.inc(shortfall);
    },
    paymentMismatch(reason) {
      paymentMismatches.inc({ reason });
    },
    stripeWebhookAnswered(statusCode) {
      stripeWebhookResponses.inc({ status_code: String(statusCode) });
    },
    rateLimitFallbackActive(active) {
      rateLimitFallbackGauge.set(active ? 1 : 0);
    },
    rateLimitCheckInMemory() {
      rateLimitChecksInMemory.inc();
    },
    httpRequestFinished(method, route, statusCode, seconds) {
      httpRequestDuration.observe({ method, route, status_code: String(statusCode) }, seconds);
    },
    searchFinished(outcome, credits) {
      searches.inc({ outcome });
      if (credits > 0) creditsSpent.inc({ operation: "search" }, credits);
    },
    auditCacheLookups(hits, misses) {
      if (hits > 0) auditCacheLookupsTotal.inc({ result: "hit" }, hits);
      if (misses > 0) auditCacheLookupsTotal.inc({ result: "miss" }, misses);
    },
    searchTruncatedByBudget() {
      searchesTruncatedByBudget.inc();
    },
    auditsInFlight(delta) {
      auditsInFlightGauge.inc(delta);
    },
    auditStage(stage, seconds) {
      auditStageDuration.observe({ stage }, seconds);
    },
    auditQueueWait(seconds) {
      auditQueueWaitDuration.observe(seconds);
    },
    draftFinished(outcome, generator, credits) {
      drafts.inc({ outcome, generator });
      if (credits > 0) creditsSpent.inc({ operation: "draft" }, credits);
    },
    auditJobFinished(outcome, seconds) {
      auditJobs.inc({ outcome });
      auditJobDuration.observe({ outcome }, seconds);
    },
    placesCallFinished(outcome, seconds) {
      placesRequestDuration.observe({ outcome }, seconds);
    },
    llmCallFinished(outcome, seconds) {
      llmRequestDuration.observe({ outcome }, seconds);
    },
    observeAuditQueue(read) {
      queueSource = read;
    },
    scrape: () => registry.metrics(),
  };
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not arrive within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const secondsSince = (started: number) => (performance.now() - started) / 1000;

/** Times each page the provider delivers (one provider call, its retries included). */
export function instrumentPlacesProvider(
  provider: PlacesProvider,
  metrics: PlacesCallMetrics,
): PlacesProvider {
  return {
    name: provider.name,
    async *searchText(query: TextSearchQuery, options?: SearchTextOptions) {
      const pages = provider.searchText(query, options)[Symbol.asyncIterator]();
      let finished = false;
      try {
        while (true) {
          const started = performance.now();
          let next: IteratorResult<PlaceCandidate[]>;
          try {
            next = await pages.next();
          } catch (error) {
            finished = true;
            metrics.placesCallFinished("error", secondsSince(started));
            throw error;
          }
          // The end of the pages is not a call: the provider stops without asking.
          if (next.done) {
            finished = true;
            return;
          }
          metrics.placesCallFinished("ok", secondsSince(started));
          yield next.value;
        }
      } finally {
        // The consumer stopped early: let the provider stop too.
        if (!finished) await pages.return?.();
      }
    },
  };
}

/** Times the LLM drafter's calls; the template drafter calls nothing and is returned as is. */
export function instrumentDraftGenerator(generator: DraftGenerator, metrics: LlmCallMetrics): DraftGenerator {
  if (generator.name !== "llm") return generator;
  return {
    name: generator.name,
    maxDurationMs: generator.maxDurationMs,
    async generate(request: DraftRequest): Promise<Draft> {
      const started = performance.now();
      try {
        const draft = await generator.generate(request);
        metrics.llmCallFinished("ok", secondsSince(started));
        return draft;
      } catch (error) {
        metrics.llmCallFinished("error", secondsSince(started));
        throw error;
      }
    },
  };
}

/** Counts and times audits: `failed` is a site that could not be read, `error` an audit that threw. */
export function instrumentAuditRunner(
  run: (target: AuditTarget) => Promise<SiteAudit>,
  metrics: AuditJobMetrics,
): (target: AuditTarget) => Promise<SiteAudit> {
  return async (target) => {
    const started = performance.now();
    metrics.auditsInFlight(1);
    try {
      const audit = await run(target);
      metrics.auditJobFinished(audit.outcome === "ok" ? "ok" : "failed", secondsSince(started));
      return audit;
    } catch (error) {
      metrics.auditJobFinished("error", secondsSince(started));
      throw error;
    } finally {
      metrics.auditsInFlight(-1);
    }
  };
}
