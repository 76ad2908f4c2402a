import { createDnsResolver } from "../dns-resolver.ts";
import { type AnalysisPool, createAnalysisPool, defaultAnalysisThreads } from "./analysis-pool.ts";
import { loadDemoSites } from "./demo-sites.ts";
import { createEmailStatusCheck } from "./email-status.ts";
import { createCachingResolver, createHomepageAgent, type FetchHomepageOptions } from "./fetch-homepage.ts";
import { createFetchMemoryBudget, createFetchPoliteness, sharedAddressSlots } from "./fetch-politeness.ts";
import { createHttpsAnswers } from "./https-answers.ts";
import { type CheckSite, createSiteCheck } from "./run-audit.ts";

/**
 * What one event loop's site checks are built from: plain data, so that a fetch loop's thread
 * receives it as is (fetch-loops.ts).
 */
export interface SiteCheckSettings {
  allowPrivateNetworks: boolean;
  demoSitesDir: string | undefined;
  userAgent: string;
  extraCa: string | undefined;
  dnsServers: string[];
  fetchesPerHost: number;
  fetchesPerIp: number;
  /** Bytes of homepage bodies this event loop holds at once (its share of the process's budget). */
  memoryBudgetBytes: number;
  /** Analysis threads of this event loop's pool; 0: one less than the cores, at least 1. */
  analysisThreads: number;
}

/** What an event loop's fetching holds now, for the worker's metrics. */
export interface SiteCheckUsage {
  /** Requests to sites holding a politeness slot: sent, or being read. */
  fetchesInFlight: number;
  /** Requests waiting for a politeness slot. */
  fetchesWaiting: number;
  /** Bytes of bodies held (read, or waiting for and in their analysis), and the budget. */
  memoryBytes: number;
  memoryLimitBytes: number;
  /** Reservations waiting for room in the budget. */
  memoryWaiting: number;
}

export interface LocalSiteCheck {
  check: CheckSite;
  usage(): SiteCheckUsage;
  /** Threads of the analysis pool (started or not). */
  readonly analysisThreads: number;
  /** Waits for the analyses queued, stops the threads, closes pooled connections. */
  close(): Promise<void>;
}

/**
 * The site check of one event loop, built once: its analysis pool, politeness limits, memory
 * budget, DNS resolver with its cache, connection pool and https answers, all shared by every
 * fetch of that loop. `addressMemory` shares the per-IP counts with the other loops of the process.
 */
export function createLocalSiteCheck(
  settings: SiteCheckSettings,
  options: { lazyPool?: boolean; addressMemory?: SharedArrayBuffer } = {},
): LocalSiteCheck {
  const memoryBudget = createFetchMemoryBudget(settings.memoryBudgetBytes);
  const poolOptions = {
    memoryBudget,
    ...(settings.analysisThreads > 0 ? { threads: settings.analysisThreads } : {}),
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
    perHost: settings.fetchesPerHost,
    perAddress: settings.fetchesPerIp,
    ...(options.addressMemory
      ? { addressSlots: sharedAddressSlots(options.addressMemory, settings.fetchesPerIp) }
      : {}),
  });
  // One resolver (DNS_SERVERS, or the system's) for the homepage fetches and the mail checks.
  const resolver = createDnsResolver(settings.dnsServers, { timeoutMs: 2_500, tries: 2 });
  const fetchOptions: FetchHomepageOptions = {
    allowPrivateNetworks: settings.allowPrivateNetworks,
    demoSites: settings.demoSitesDir === undefined ? undefined : loadDemoSites(settings.demoSitesDir),
    userAgent: settings.userAgent,
    ...(settings.extraCa === undefined ? {} : { extraCa: settings.extraCa }),
    politeness,
    memoryBudget,
    resolve: createCachingResolver({ queries: resolver, maxTtlMs: 60_000, maxEntries: 1_000 }),
  };
  const agent = createHomepageAgent(fetchOptions);
  const check = createSiteCheck({
    pool,
    fetch: { ...fetchOptions, agent },
    emailStatus: createEmailStatusCheck({ queries: resolver }),
    httpsAnswers: createHttpsAnswers(),
  });
  return {
    check,
    get analysisThreads() {
      return started?.threads ?? (settings.analysisThreads || defaultAnalysisThreads());
    },
    usage: () => ({
      fetchesInFlight: politeness.held,
      fetchesWaiting: politeness.waiting,
      memoryBytes: memoryBudget.heldBytes,
      memoryLimitBytes: memoryBudget.limitBytes,
      memoryWaiting: memoryBudget.waiting,
    }),
    async close() {
      await pool.close();
      await agent.close();
    },
  };
}
