/**
 * The audit cache's batched writer (shared/audit/cache.ts) on PostgreSQL: audits that finish
 * together are stored in one statement, each as `saveAudit` would store it alone; a row the
 * database refuses fails alone.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditCacheWriter, readCurrentAudits, saveAudit } from "../../../shared/audit/cache.ts";
import { type SiteAudit, UNKNOWN_SIGNALS } from "../../../shared/audit/types.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

function audit(placeId: string, overrides: Partial<SiteAudit> = {}): SiteAudit {
  return {
    place_id: placeId,
    url: `https://${placeId}.example/`,
    outcome: "ok",
    failure: null,
    signals: { ...UNKNOWN_SIGNALS, no_mobile_viewport: true },
    evidence: { viewport: null },
    audited_at: new Date("2026-11-01T10:00:00.000Z"),
    ...overrides,
  };
}

const read = async (audits: SiteAudit[]) =>
  readCurrentAudits(
    database.db,
    audits.map((one) => ({ placeId: one.place_id, website: one.url })),
  );

describe("the audit cache writer", () => {
  it("stores audits that finish together in one statement, each as saved alone", async () => {
    const writer = createAuditCacheWriter(database.db);
    const audits = Array.from({ length: 60 }, (_, index) =>
      audit(`batch-${index}`, index % 3 === 0 ? { outcome: "failed", failure: "timeout" } : {}),
    );
    await Promise.all(audits.map((one) => writer.save(one)));
    expect(writer.rows).toBe(60);
    expect(writer.statements).toBe(1);
    const stored = await read(audits);
    for (const one of audits) expect(stored.get(one.place_id)).toEqual(one);
  });

  it("an idle writer stores one audit at once; audits arriving while it writes go in the next statement", async () => {
    const writer = createAuditCacheWriter(database.db);
    const first = writer.save(audit("alone"));
    await first;
    expect(writer.statements).toBe(1);
    const running = writer.save(audit("next-0"));
    await new Promise((resolve) => setImmediate(resolve)); // its statement is on its way
    const waiting = Array.from({ length: 10 }, (_, index) => writer.save(audit(`next-${index + 1}`)));
    await Promise.all([running, ...waiting]);
    expect(writer.statements).toBe(3);
    expect(writer.rows).toBe(12);
  });

  it("keeps the first-seen time of an address found again, in a batch as alone", async () => {
    const found = (at: string): SiteAudit =>
      audit("mail-place", {
        signals: { ...UNKNOWN_SIGNALS, email: "info@mail-place.example" },
        audited_at: new Date(at),
      });
    await saveAudit(database.db, found("2026-10-01T00:00:00.000Z"));
    const writer = createAuditCacheWriter(database.db);
    await Promise.all([writer.save(found("2026-11-01T00:00:00.000Z")), writer.save(audit("mail-neighbour"))]);
    const stored = (await read([found("2026-11-01T00:00:00.000Z")])).get("mail-place");
    expect(stored?.audited_at.toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(stored?.evidence.email_first_seen_at).toBe("2026-10-01T00:00:00.000Z");
  });

  it("of two audits of one place in one statement, the later is kept", async () => {
    const writer = createAuditCacheWriter(database.db);
    await Promise.all([
      writer.save(audit("twice", { outcome: "failed", failure: "http_503" })),
      writer.save(audit("twice", { audited_at: new Date("2026-11-01T10:00:05.000Z") })),
    ]);
    expect(writer.statements).toBe(1);
    const stored = (await read([audit("twice")])).get("twice");
    expect(stored).toMatchObject({ outcome: "ok", audited_at: new Date("2026-11-01T10:00:05.000Z") });
  });

  it("a row the database refuses fails alone; the others of its statement are stored", async () => {
    const writer = createAuditCacheWriter(database.db);
    // The table's check allows only 'ok' and 'failed'.
    const refused = audit("refused", { outcome: "unknown" as SiteAudit["outcome"] });
    const good = [audit("good-1"), audit("good-2")];
    const results = await Promise.allSettled([
      writer.save(good[0]!),
      writer.save(refused),
      writer.save(good[1]!),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect([...(await read(good)).keys()].sort()).toEqual(["good-1", "good-2"]);
    const { rows } = await sql<{ count: number }>`
      select count(*)::int as count from site_audits where place_id = 'refused'`.execute(database.db);
    expect(rows[0]?.count).toBe(0);
  });
});
