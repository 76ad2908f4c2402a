import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { AuditJobMetrics } from "../metrics.ts";
import { defaultAnalysisThreads } from "./analysis-pool.ts";
import { startFetchLoops } from "./fetch-loops.ts";
import { instrumentAuditRunner } from "./instrumented.ts";
import { auditUserAgent, type CheckSite, type RunAudit, storingAudits } from "./run-audit.ts";
import { createLocalSiteCheck, type SiteCheckSettings, type SiteCheckUsage } from "./site-check.ts";

/**
 * Everything that runs audits in one process, built once, the same for the API's embedded mode
 * and the audit worker: the site checks (fetch, https check, analysis on a thread pool, mail DNS)
 * on `AUDIT_FETCH_LOOPS` fetch loops (threads of their own, fetch-loops.ts) or on this event loop
 * when it is 0; the cache writes (batched) on this one; the runner instrumented for metrics; and
 * `close`, which also closes the pools.
 */
export interface AuditStack {
  run: RunAudit;
  /** Analysis threads of the whole stack (every loop's pool), started or not. */
  readonly analysisThreads: number;
  /** Fetch loops (threads); 0 when the fetches run on this event loop. */
  readonly fetchLoops: number;
  /** Settles once the fetch loops have loaded their code (at once without loops). */
  ready(): Promise<void>;
  /** What the fetching holds now, every loop added up (the worker's metrics). */
  usage(): Promise<SiteCheckUsage>;
  close(): Promise<void>;
}

export interface AuditStackOptions {
  /** Start the analysis threads at the first audit: most API processes never run one. Default false. */
  lazyPool?: boolean;
  /** Fetch loops, instead of AUDIT_FETCH_LOOPS (0 for a fallback that seldom runs). */
  fetchLoops?: number;
}

export function createAuditStack(
  config: Pick<Config, "audit" | "publicUrl" | "dnsServers">,
  deps: { db: Db; metrics: AuditJobMetrics },
  options: AuditStackOptions = {},
): AuditStack {
  const loops = options.fetchLoops ?? config.audit.fetchLoops;
  const settings: SiteCheckSettings = {
    allowPrivateNetworks: config.audit.allowPrivateNetworks,
    demoSitesDir: config.audit.demoSitesDir,
    userAgent: auditUserAgent(config.publicUrl),
    extraCa: config.audit.extraCa,
    dnsServers: config.dnsServers,
    fetchesPerHost: config.audit.fetchesPerHost,
    fetchesPerIp: config.audit.fetchesPerIp,
    memoryBudgetBytes: config.audit.fetchMemoryBudgetBytes,
    // AUDIT_THREADS (default: one less than the cores) is the stack's whole analysis pool: each
    // loop has its share, at least one.
    analysisThreads: Math.max(
      1,
      Math.floor((config.audit.threads || defaultAnalysisThreads()) / Math.max(1, loops)),
    ),
  };
  const lazy = options.lazyPool ? { lazyPool: true } : {};
  const onStage = (stage: "fetch" | "parse", seconds: number) => deps.metrics.auditStage(stage, seconds);

  let check: CheckSite;
  let usage: () => Promise<SiteCheckUsage>;
  let analysisThreads: () => number;
  let close: () => Promise<void>;
  let ready = Promise.resolve();
  if (loops === 0) {
    const local = createLocalSiteCheck(settings, lazy);
    check = local.check;
    usage = async () => local.usage();
    analysisThreads = () => local.analysisThreads;
    close = () => local.close();
  } else {
    // The loops' analysis threads start with the loops (whose start `ready` waits for): a loop
    // whose first site answers late would otherwise make that audit wait for its pool to start.
    const fetchLoops = startFetchLoops(settings, loops);
    check = fetchLoops.check;
    usage = () => fetchLoops.usage();
    analysisThreads = () => loops * settings.analysisThreads;
    close = () => fetchLoops.close();
    ready = fetchLoops.ready;
  }
  return {
    run: instrumentAuditRunner(
      storingAudits(deps.db, (target) => check(target, onStage)),
      deps.metrics,
    ),
    fetchLoops: loops,
    get analysisThreads() {
      return analysisThreads();
    },
    usage,
    ready: () => ready,
    close,
  };
}
