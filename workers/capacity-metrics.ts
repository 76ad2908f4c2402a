import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { Counter, Gauge, Registry } from "prom-client";
import type { SiteCheckUsage } from "../shared/audit/site-check.ts";
import { METRICS_PREFIX } from "../shared/metrics.ts";

/** Seconds over which `audits per second` is counted. */
const RATE_WINDOW_S = 10;

/**
 * The audit worker's own capacity figures (issue 32), on a registry of their own that the worker's
 * /metrics serves beside the shared ones: audits per second, main-thread CPU per audit, event-loop
 * delay and utilisation of the main thread, and what the fetch loops hold (fetches in flight and
 * waiting, memory budget in use). Read at each scrape; the per-audit and utilisation figures are
 * over the time since the previous scrape.
 */
export interface CapacityMetrics {
  /** An audit job finished on this worker. */
  auditFinished(): void;
  scrape(): Promise<string>;
  readonly contentType: string;
  close(): void;
}

export function createCapacityMetrics(readUsage: () => Promise<SiteCheckUsage>): CapacityMetrics {
  const registry = new Registry();
  const registers = [registry];
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const finishedAt: number[] = [];
  let audits = 0;
  let last = { audits: 0, cpu: threadCpuSeconds(), elu: performance.eventLoopUtilization() };

  new Gauge({
    name: `${METRICS_PREFIX}worker_audits_per_second`,
    help: `Audit jobs finished by this worker per second, over the last ${RATE_WINDOW_S} s`,
    registers,
    collect() {
      const since = performance.now() - RATE_WINDOW_S * 1000;
      while (finishedAt.length > 0 && (finishedAt[0] ?? 0) < since) finishedAt.shift();
      this.set(finishedAt.length / RATE_WINDOW_S);
    },
  });
  new Counter({
    name: `${METRICS_PREFIX}worker_main_thread_cpu_seconds_total`,
    help: "CPU time of the worker's main thread (its event loop: BullMQ, cache writes, logs), user and system",
    registers,
    collect() {
      this.reset();
      this.inc(threadCpuSeconds());
    },
  });
  const perAudit = new Gauge({
    name: `${METRICS_PREFIX}worker_main_thread_cpu_per_audit_seconds`,
    help: "Main-thread CPU per audit finished since the previous scrape (0 when none finished)",
    registers,
  });
  const utilisation = new Gauge({
    name: `${METRICS_PREFIX}worker_event_loop_utilization`,
    help: "Share of the time since the previous scrape the main event loop was busy (0 to 1)",
    registers,
  });
  const delayGauge = new Gauge({
    name: `${METRICS_PREFIX}worker_event_loop_delay_seconds`,
    help: "Event-loop delay of the main thread since the previous scrape, by quantile (0.5, 0.99, max)",
    labelNames: ["quantile"] as const,
    registers,
  });
  const usageGauge = new Gauge({
    name: `${METRICS_PREFIX}worker_fetches`,
    help: "Homepage requests of the fetch loops now: in_flight (holding a politeness slot), waiting (for one)",
    labelNames: ["state"] as const,
    registers,
  });
  const memoryGauge = new Gauge({
    name: `${METRICS_PREFIX}worker_fetch_memory_bytes`,
    help: "Homepage bodies held by the fetch loops (in_use) and their memory budget (limit), bytes",
    labelNames: ["kind"] as const,
    registers,
  });

  return {
    contentType: registry.contentType,
    auditFinished() {
      audits += 1;
      finishedAt.push(performance.now());
    },
    async scrape() {
      const cpu = threadCpuSeconds();
      const audited = audits - last.audits;
      perAudit.set(audited > 0 ? (cpu - last.cpu) / audited : 0);
      const elu = performance.eventLoopUtilization(last.elu);
      utilisation.set(elu.utilization);
      last = { audits, cpu, elu: performance.eventLoopUtilization() };
      delayGauge.set({ quantile: "0.5" }, delay.percentile(50) / 1e9);
      delayGauge.set({ quantile: "0.99" }, delay.percentile(99) / 1e9);
      delayGauge.set({ quantile: "max" }, delay.max / 1e9);
      delay.reset();
      const usage = await readUsage();
      usageGauge.set({ state: "in_flight" }, usage.fetchesInFlight);
      usageGauge.set({ state: "waiting" }, usage.fetchesWaiting);
      memoryGauge.set({ kind: "in_use" }, usage.memoryBytes);
      memoryGauge.set({ kind: "limit" }, usage.memoryLimitBytes);
      return registry.metrics();
    },
    close() {
      delay.disable();
    },
  };
}

function threadCpuSeconds(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1e6;
}
