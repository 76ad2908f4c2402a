import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import { createDnsResolver } from "../dns-resolver.ts";
import { type AuditJobMetrics, instrumentAuditRunner } from "../metrics.ts";
import { type AnalysisPool, createAnalysisPool } from "./analysis-pool.ts";
import { loadDemoSites } from "./demo-sites.ts";
import { createEmailStatusCheck } from "./email-status.ts";
import { createCachingResolver, createHomepageAgent, type FetchHomepageOptions } from "./fetch-homepage.ts";
import {
  createFetchMemoryBudget,
  createFetchPoliteness,
  type FetchMemoryBudget,
  type FetchPoliteness,
} from "./fetch-politeness.ts";
import { createHttpsAnswers } from "./https-answers.ts";
import { auditUserAgent, createAuditRunner, type RunAudit } from "./run-audit.ts";

/**
 * Everything that runs audits in one process, built once, the same for the API's embedded mode
 * and the audit worker: the analysis thread pool (sized by cores), the politeness limits shared by
 * every fetch, the runner (fetch, parse, cache write) instrumented for metrics, and `close`, which
 * also closes the fetcher's pooled connections.
 */
export interface AuditStack {
  run: RunAudit;
  /** The analysis pool; with `lazyPool` its threads start with the first analysis. */
  pool: AnalysisPool;
  politeness: FetchPoliteness;
  /** Bytes of homepage bodies in memory (AUDIT_FETCH_MEMORY_BUDGET_MB), shared by fetches and analyses. */
  memoryBudget: FetchMemoryBudget;
  close(): Promise<void>;
}

export interface AuditStackOptions {
  /** Start the threads at the first audit: most API processes never run one. Default false. */
  lazyPool?: boolean;
}

export function createAuditStack(
  config: Pick<Config, "audit" | "publicUrl" | "dnsServers">,
  deps: { db: Db; metrics: AuditJobMetrics },
  options: AuditStackOptions = {},
): AuditStack {
  const memoryBudget = createFetchMemoryBudget(config.audit.fetchMemoryBudgetBytes);
  const poolOptions = {
    memoryBudget,
    ...(config.audit.threads > 0 ? { threads: config.audit.threads } : {}),
  };
  let started: AnalysisPool | undefined = options.lazyPool ? undefined : createAnalysisPool(poolOptions);
  const startPool = () => {
    started ??= createAnalysisPool(poolOptions);
    return started;
  };
  const pool: AnalysisPool = {
    get threads() {
      return startPool().threads;
    },
    analyze: (input, analyzeOptions) => startPool().analyze(input, analyzeOptions),
    close: async () => started?.close(),
  };
  const politeness = createFetchPoliteness({
    perHost: config.audit.fetchesPerHost,
    perAddress: config.audit.fetchesPerIp,
  });
  // One resolver (DNS_SERVERS, or the system's) for the homepage fetches and the mail checks.
  const resolver = createDnsResolver(config.dnsServers, { timeoutMs: 2_500, tries: 2 });
  const fetchOptions: FetchHomepageOptions = {
    allowPrivateNetworks: config.audit.allowPrivateNetworks,
    demoSites: config.audit.demoSitesDir === undefined ? undefined : loadDemoSites(config.audit.demoSitesDir),
    userAgent: auditUserAgent(config.publicUrl),
    ...(config.audit.extraCa === undefined ? {} : { extraCa: config.audit.extraCa }),
    politeness,
    memoryBudget,
    resolve: createCachingResolver({ queries: resolver, maxTtlMs: 60_000, maxEntries: 1_000 }),
  };
  const agent = createHomepageAgent(fetchOptions);
  const run = instrumentAuditRunner(
    createAuditRunner({
      db: deps.db,
      pool,
      fetch: { ...fetchOptions, agent },
      onStage: (stage, seconds) => deps.metrics.auditStage(stage, seconds),
      emailStatus: createEmailStatusCheck({ queries: resolver }),
      httpsAnswers: createHttpsAnswers(),
    }),
    deps.metrics,
  );
  return {
    run,
    pool,
    politeness,
    memoryBudget,
    async close() {
      await pool.close();
      await agent.close();
    },
  };
}
