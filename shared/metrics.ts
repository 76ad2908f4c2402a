/**
 * Prometheus metrics of the API and the audit worker (prom-client, text format).
 *
 * One registry per `createMetrics()` call and no global state, so a test can build several apps in
 * one process. Domain code never sees prom-client: it reports through the small `*Metrics`
 * interfaces below (optional in its deps). The wrappers that time the calls to the places
 * provider, the LLM and the audit runner sit beside what they wrap (`instrumented.ts` in
 * shared/places, shared/drafting and shared/audit).
 *
 * Every name starts with `leadapi_`; docs/grafana/lead-api-dashboard.json plots exactly these.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { RateLimitFallbackMetrics } from "./rate-limits.ts";

export const METRICS_PREFIX = "leadapi_";

// A search that answered is `ok`, as its log line says, truncated or not; why it was truncated is
// counted apart (leadapi_searches_truncated_total), once per reason that applied.
const SEARCH_OUTCOMES = ["ok", "insufficient_credits", "error"] as const;
// The scan's own reasons (shared/search/scan.ts TruncationReason), passed in by the search: a
// reason this list lacks does not compile where it is reported.
const TRUNCATION_REASONS = [
  "max_results_reached",
  "query_cap",
  "page_token_expired",
  "check_budget",
  "check_failed",
  "match_grace",
  "cost_limit",
] as const;
const DRAFT_OUTCOMES = [
  "ok",
  "insufficient_audit_data",
  "insufficient_credits",
  "generation_failed",
  "error",
] as const;
const DRAFT_GENERATORS = ["template", "llm"] as const;
const AUDIT_JOB_OUTCOMES = ["ok", "failed", "error"] as const;
const CALL_OUTCOMES = ["ok", "error"] as const;
const CREDIT_OPERATIONS = ["search", "draft"] as const;
// The payment labels are the payments' own values; the domain passes them in, so a value these
// lists lack does not compile where it is reported (metrics imports nothing from payments).
const PURCHASE_SOURCES = ["stripe", "operator"] as const;
const REVERSAL_KINDS = ["refund", "dispute"] as const;
const MISMATCH_REASONS = ["workspace", "pack", "amount", "currency"] as const;
// Account mail by kind (shared/mail/account-mail.ts's kinds), and whether the mail server took it.
const ACCOUNT_MAIL_KINDS = [
  "sign_up",
  "sign_up_account_exists",
  "invite",
  "password_reset",
  "password_failures",
] as const;
const ACCOUNT_MAIL_OUTCOMES = ["sent", "failed"] as const;
/**
 * A sign-up form answered (`requested`: a link mailed; `account_exists`: the mailbox has an account,
 * its owner is told; `disposable_address`: refused), or its link opened (`confirmed`: account and
 * workspace made; `link_invalid`: unknown, used or expired).
 */
const SIGN_UP_OUTCOMES = [
  "requested",
  "account_exists",
  "disposable_address",
  "confirmed",
  "link_invalid",
] as const;
/**
 * A console sign-in: `ok`; `wrong_password` (a known account); `unknown_account`; `limited` (too
 * many failures from this address: the password was not checked).
 */
const SIGN_IN_OUTCOMES = ["ok", "wrong_password", "unknown_account", "limited"] as const;
export type AuditStageLabel = "fetch" | "parse";

export type SearchOutcomeLabel = (typeof SEARCH_OUTCOMES)[number];
type TruncationReasonLabel = (typeof TRUNCATION_REASONS)[number];
type AccountMailKindLabel = (typeof ACCOUNT_MAIL_KINDS)[number];
type AccountMailOutcomeLabel = (typeof ACCOUNT_MAIL_OUTCOMES)[number];
type SignUpOutcomeLabel = (typeof SIGN_UP_OUTCOMES)[number];
type SignInOutcomeLabel = (typeof SIGN_IN_OUTCOMES)[number];
export type DraftOutcomeLabel = (typeof DRAFT_OUTCOMES)[number];
type DraftGeneratorLabel = (typeof DRAFT_GENERATORS)[number];
type AuditJobOutcomeLabel = (typeof AUDIT_JOB_OUTCOMES)[number];
type CallOutcomeLabel = (typeof CALL_OUTCOMES)[number];
type PurchaseSourceLabel = (typeof PURCHASE_SOURCES)[number];
type ReversalKindLabel = (typeof REVERSAL_KINDS)[number];
type MismatchReasonLabel = (typeof MISMATCH_REASONS)[number];

/** What a search reports (shared/search/search-leads.ts). */
export interface SearchMetrics {
  /** Once per search that ran; `creditsSpent` only for a search that charged. */
  searchFinished(outcome: SearchOutcomeLabel, creditsSpent: number): void;
  /** Live-filter cache lookups of the scan: sites answered from the cache, and sites not. */
  auditCacheLookups(hits: number, misses: number): void;
  /** A search answered truncated because some live checks did not finish within its budget. */
  searchTruncatedByBudget(): void;
  /** A search answered `truncated: true`, for these reasons (each counted once). */
  searchTruncated(reasons: readonly TruncationReasonLabel[]): void;
}

/** What account mail reports (shared/mail/instrumented.ts): each mail once, sent or given up. */
export interface AccountMailMetrics {
  accountMailFinished(kind: AccountMailKindLabel, outcome: AccountMailOutcomeLabel): void;
}

/** What sign-ups and console sign-ins report (the console's sign-up routes, shared/accounts signIn). */
export interface AccountMetrics {
  signUpFinished(outcome: SignUpOutcomeLabel): void;
  /** `slowed`: the account's failures had passed their budget, so the check waited first. */
  signInFinished(outcome: SignInOutcomeLabel, slowed: boolean): void;
}

/** What a draft reports (shared/drafting/draft-outreach.ts). */
export interface DraftMetrics {
  draftFinished(outcome: DraftOutcomeLabel, generator: DraftGeneratorLabel, creditsSpent: number): void;
}

/** What buying credits reports (shared/payments/payments.ts, the admin purchase route, the webhook). */
export interface PaymentMetrics {
  /** A purchase credited: `credits` added to a balance. */
  purchaseCredited(source: PurchaseSourceLabel, credits: number): void;
  /** A refund or dispute recorded: the credits it took back and those it could not (the shortfall). */
  reversalApplied(kind: ReversalKindLabel, credits: number, shortfall: number): void;
  /** A paid session that matches no pack on sale for its workspace: nothing credited. */
  paymentMismatch(reason: MismatchReasonLabel): void;
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
    AccountMailMetrics,
    AccountMetrics,
    RateLimitFallbackMetrics {
  readonly registry: Registry;
  /** The Content-Type of `scrape()`'s text. */
  readonly contentType: string;
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

type Registers = Registry[];

/**
 * The metrics are registered in this order (the scrape lists them so): requests and what they
 * charge, audits, the upstream calls, the rate limits' fallback, payments, accounts. Known label values start at 0,
 * so that rate() and ratios work from the first event.
 */
export function createMetrics(options: CreateMetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: METRICS_PREFIX });
  const queue = auditQueueSource(options);
  return {
    registry,
    contentType: registry.contentType,
    ...requestMetrics(registers),
    ...auditMetrics(registers, queue.read),
    ...upstreamCallMetrics(registers),
    ...rateLimitMetrics(registers),
    ...paymentMetrics(registers),
    ...accountMetrics(registers),
    observeAuditQueue: queue.observe,
    scrape: () => registry.metrics(),
  };
}

/** HTTP requests, searches and drafts, and the credits they charged. */
function requestMetrics(
  registers: Registers,
): Pick<Metrics, "httpRequestFinished" | "searchFinished" | "searchTruncated" | "draftFinished"> {
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
    help: "Searches run, by outcome (ok: answered, truncated or not; insufficient_credits; error)",
    labelNames: ["outcome"] as const,
    registers,
  });
  const searchesTruncated = new Counter({
    name: `${METRICS_PREFIX}searches_truncated_total`,
    help: "Searches answered truncated (more matches may exist), by reason; a search with two reasons counts under both",
    labelNames: ["reason"] as const,
    registers,
  });
  const drafts = new Counter({
    name: `${METRICS_PREFIX}drafts_total`,
    help: "Outreach drafts asked for, by outcome and generator (template, llm)",
    labelNames: ["outcome", "generator"] as const,
    registers,
  });
  for (const operation of CREDIT_OPERATIONS) creditsSpent.inc({ operation }, 0);
  for (const outcome of SEARCH_OUTCOMES) searches.inc({ outcome }, 0);
  for (const reason of TRUNCATION_REASONS) searchesTruncated.inc({ reason }, 0);
  for (const outcome of DRAFT_OUTCOMES) {
    for (const generator of DRAFT_GENERATORS) drafts.inc({ outcome, generator }, 0);
  }
  return {
    httpRequestFinished(method, route, statusCode, seconds) {
      httpRequestDuration.observe({ method, route, status_code: String(statusCode) }, seconds);
    },
    searchFinished(outcome, credits) {
      searches.inc({ outcome });
      if (credits > 0) creditsSpent.inc({ operation: "search" }, credits);
    },
    searchTruncated(reasons) {
      for (const reason of new Set(reasons)) searchesTruncated.inc({ reason });
    },
    draftFinished(outcome, generator, credits) {
      drafts.inc({ outcome, generator });
      if (credits > 0) creditsSpent.inc({ operation: "draft" }, credits);
    },
  };
}

/** Where the queue gauges read from: one read per scrape feeds both (the second reuses the first's). */
function auditQueueSource(options: CreateMetricsOptions) {
  let source: (() => Promise<AuditQueueCounts | undefined>) | undefined;
  let pendingRead: Promise<AuditQueueCounts | undefined> | undefined;
  const queueReadTimeoutMs = options.queueReadTimeoutMs ?? 1_000;
  const read = (): Promise<AuditQueueCounts | undefined> => {
    const current = source;
    if (!current) return Promise.resolve(undefined);
    pendingRead ??= withTimeout(current(), queueReadTimeoutMs, "the audit queue counts")
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
  const observe = (next: () => Promise<AuditQueueCounts | undefined>): void => {
    source = next;
  };
  return { read, observe };
}

/** Audits: jobs, their stages and waits, the queue, the cache lookups of the scan, searches cut by the check budget. */
function auditMetrics(
  registers: Registers,
  readQueue: () => Promise<AuditQueueCounts | undefined>,
): Pick<
  Metrics,
  | "auditJobFinished"
  | "auditCacheLookups"
  | "auditsInFlight"
  | "auditStage"
  | "auditQueueWait"
  | "searchTruncatedByBudget"
> {
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
  registerAuditQueueGauges(registers, readQueue);
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
  for (const outcome of AUDIT_JOB_OUTCOMES) auditJobs.inc({ outcome }, 0);
  for (const result of ["hit", "miss"]) auditCacheLookupsTotal.inc({ result }, 0);
  searchesTruncatedByBudget.inc(0);
  return {
    auditJobFinished(outcome, seconds) {
      auditJobs.inc({ outcome });
      auditJobDuration.observe({ outcome }, seconds);
    },
    auditCacheLookups(hits, misses) {
      if (hits > 0) auditCacheLookupsTotal.inc({ result: "hit" }, hits);
      if (misses > 0) auditCacheLookupsTotal.inc({ result: "miss" }, misses);
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
    searchTruncatedByBudget() {
      searchesTruncatedByBudget.inc();
    },
  };
}

/** The queue gauges, read from the queue source at each scrape. */
function registerAuditQueueGauges(
  registers: Registers,
  readQueue: () => Promise<AuditQueueCounts | undefined>,
): void {
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
}

/** The places provider's and the LLM's latency. */
function upstreamCallMetrics(registers: Registers): Pick<Metrics, "placesCallFinished" | "llmCallFinished"> {
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
  return {
    placesCallFinished(outcome, seconds) {
      placesRequestDuration.observe({ outcome }, seconds);
    },
    llmCallFinished(outcome, seconds) {
      llmRequestDuration.observe({ outcome }, seconds);
    },
  };
}

/** While Redis is away, rate and cost limits are counted in this node's memory. */
function rateLimitMetrics(registers: Registers): RateLimitFallbackMetrics {
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
  rateLimitChecksInMemory.inc(0);
  return {
    rateLimitFallbackActive(active) {
      rateLimitFallbackGauge.set(active ? 1 : 0);
    },
    rateLimitCheckInMemory() {
      rateLimitChecksInMemory.inc();
    },
  };
}

/** Credits bought (Stripe or the operator), taken back by refunds and disputes, and the webhook's answers. */
function paymentMetrics(registers: Registers): PaymentMetrics {
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
  return {
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
  };
}

/** Account mail by kind and outcome, sign-ups and console sign-ins by outcome. */
function accountMetrics(registers: Registers): AccountMailMetrics & AccountMetrics {
  const accountMails = new Counter({
    name: `${METRICS_PREFIX}account_mails_total`,
    help: "Account mails, by kind and outcome (sent: the mail server took it, or SMTP_URL=log: wrote it; failed: refused, a queued mail after its last try)",
    labelNames: ["kind", "outcome"] as const,
    registers,
  });
  const signUps = new Counter({
    name: `${METRICS_PREFIX}sign_ups_total`,
    help: "Sign-up forms and links, by outcome (requested, account_exists, disposable_address, confirmed, link_invalid)",
    labelNames: ["outcome"] as const,
    registers,
  });
  const signIns = new Counter({
    name: `${METRICS_PREFIX}sign_ins_total`,
    help: "Console sign-ins, by outcome (ok, wrong_password, unknown_account, limited: refused unchecked)",
    labelNames: ["outcome"] as const,
    registers,
  });
  const signInsSlowed = new Counter({
    name: `${METRICS_PREFIX}sign_ins_slowed_total`,
    help: "Console sign-ins checked only after a wait, the account's failures from every address having passed their budget",
    registers,
  });
  for (const kind of ACCOUNT_MAIL_KINDS) {
    for (const outcome of ACCOUNT_MAIL_OUTCOMES) accountMails.inc({ kind, outcome }, 0);
  }
  for (const outcome of SIGN_UP_OUTCOMES) signUps.inc({ outcome }, 0);
  for (const outcome of SIGN_IN_OUTCOMES) signIns.inc({ outcome }, 0);
  signInsSlowed.inc(0);
  return {
    accountMailFinished(kind, outcome) {
      accountMails.inc({ kind, outcome });
    },
    signUpFinished(outcome) {
      signUps.inc({ outcome });
    },
    signInFinished(outcome, slowed) {
      signIns.inc({ outcome });
      if (slowed) signInsSlowed.inc();
    },
  };
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not arrive within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Seconds since a `performance.now()` reading: what the call wrappers observe. */
export const secondsSince = (started: number): number => (performance.now() - started) / 1000;
