import { describe, expect, it, vi } from "vitest";
import type { AuditTarget } from "../../../shared/audit/audit-site.ts";
import { createInProcessAuditor } from "../../../shared/audit/in-process-auditor.ts";
import type { SiteAudit } from "../../../shared/audit/types.ts";
import { UNKNOWN_SIGNALS } from "../../../shared/audit/types.ts";

/** A deadline no audit here reaches (setTimeout caps delays at 2^31 - 1 ms). */
const FAR = Date.now() + 3_600_000;
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function target(placeId: string): AuditTarget {
  return { placeId, url: `https://${placeId}.example/`, country: null };
}

function audit(t: AuditTarget): SiteAudit {
  return {
    place_id: t.placeId,
    url: t.url,
    outcome: "ok",
    failure: null,
    signals: { ...UNKNOWN_SIGNALS },
    evidence: {},
    audited_at: new Date(0),
  };
}

/** A runner whose audits finish when the test says so, recording the order they started in. */
function controlledRunner() {
  const started: string[] = [];
  const finishers = new Map<string, (outcome: "ok" | Error) => void>();
  const run = (t: AuditTarget) =>
    new Promise<SiteAudit>((resolve, reject) => {
      started.push(t.placeId);
      finishers.set(t.placeId, (outcome) => (outcome === "ok" ? resolve(audit(t)) : reject(outcome)));
    });
  const finish = (placeId: string, outcome: "ok" | Error = "ok") => finishers.get(placeId)?.(outcome);
  return { run, started, finish };
}

describe("the in-process auditor", () => {
  it("starts waiting audits by rank, so one search's later candidates do not hold up another's first", async () => {
    const runner = controlledRunner();
    const auditor = createInProcessAuditor(runner.run, { concurrency: 1, confirmAfterMs: 5_000 });
    const all = [
      auditor.audit(target("big-0"), FAR, { rank: 0 }),
      auditor.audit(target("big-1"), FAR, { rank: 1 }),
      auditor.audit(target("big-2"), FAR, { rank: 2 }),
      auditor.audit(target("small-0"), FAR, { rank: 0 }),
      auditor.audit(target("small-1"), FAR, { rank: 1 }),
    ];
    // One slot: finish whatever runs, and see which waiting audit goes next.
    for (let index = 0; index < all.length; index++) {
      await flush();
      runner.finish(runner.started.at(-1)!);
    }
    await Promise.all(all);
    expect(runner.started).toEqual(["big-0", "small-0", "big-1", "small-1", "big-2"]);
    expect(await auditor.queueCounts()).toEqual({ waiting: 0, delayed: 0, active: 0 });
  });

  it("runs one audit per place for concurrent asks, and runs it again after our own pipeline failed", async () => {
    const runner = controlledRunner();
    const auditor = createInProcessAuditor(runner.run, { concurrency: 4, confirmAfterMs: 5_000 });
    const first = auditor.audit(target("p"), FAR);
    const second = auditor.audit(target("p"), FAR, { rank: 3 });
    await flush();
    runner.finish("p", new Error("database is down"));
    await expect(first).rejects.toThrow("database is down");
    await expect(second).rejects.toThrow("database is down");
    expect(runner.started).toEqual(["p"]);

    // Nothing of the failure is kept: the next search's ask runs the audit again.
    const again = auditor.audit(target("p"), FAR);
    await flush();
    runner.finish("p");
    expect(await again).toMatchObject({ place_id: "p", outcome: "ok" });
    expect(runner.started).toEqual(["p", "p"]);
  });

  it("answers with a down site's first attempt at once, and runs its second attempt later, unwaited", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const targets: AuditTarget[] = [];
      const run = async (t: AuditTarget): Promise<SiteAudit> => {
        targets.push(t);
        const attempt = { at: new Date(targets.length * 1000).toISOString(), result: "http_503" };
        return t.firstAttempt === undefined
          ? { ...audit(t), outcome: "failed", failure: "http_503", evidence: { attempts: [attempt] } }
          : {
              ...audit(t),
              outcome: "failed",
              failure: "site_unreachable",
              signals: { ...UNKNOWN_SIGNALS, site_unreachable: true },
              evidence: { attempts: [t.firstAttempt, attempt] },
            };
      };
      const auditor = createInProcessAuditor(run, { concurrency: 2, confirmAfterMs: 4_000 });
      const first = await auditor.audit(target("down"), FAR);
      expect(first).toMatchObject({ outcome: "failed", failure: "http_503" });
      expect(targets).toHaveLength(1);

      await vi.advanceTimersByTimeAsync(3_999);
      expect(targets).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      await flush();
      expect(targets).toHaveLength(2);
      expect(targets[1]).toEqual({
        ...target("down"),
        firstAttempt: { at: new Date(1000).toISOString(), result: "http_503" },
      });
      // A second attempt's own failure asks for no third.
      await vi.advanceTimersByTimeAsync(10_000);
      expect(targets).toHaveLength(2);
      await auditor.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("drops second attempts not started yet when it closes", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let runs = 0;
      const run = async (t: AuditTarget): Promise<SiteAudit> => {
        runs += 1;
        return {
          ...audit(t),
          outcome: "failed",
          failure: "http_404",
          evidence: { attempts: [{ at: "x", result: "http_404" }] },
        };
      };
      const auditor = createInProcessAuditor(run, { concurrency: 1, confirmAfterMs: 1_000 });
      await auditor.audit(target("gone"), FAR);
      await auditor.close();
      await vi.advanceTimersByTimeAsync(5_000);
      expect(runs).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
