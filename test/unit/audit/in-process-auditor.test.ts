import { describe, expect, it } from "vitest";
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
    const auditor = createInProcessAuditor(runner.run, { concurrency: 1 });
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
    const auditor = createInProcessAuditor(runner.run, { concurrency: 4 });
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
});
