import type { Db } from "../db/database.ts";
import type { SiteAudit } from "./types.ts";

/** An audit is reused for 30 days; a failed one for a day, so a site that was down gets another try. */
export const AUDIT_FRESH_MS = 30 * 24 * 3600 * 1000;
export const FAILED_AUDIT_FRESH_MS = 24 * 3600 * 1000;

export function isFresh(audit: Pick<SiteAudit, "outcome" | "audited_at">, now: Date): boolean {
  const age = now.getTime() - audit.audited_at.getTime();
  return age < (audit.outcome === "ok" ? AUDIT_FRESH_MS : FAILED_AUDIT_FRESH_MS);
}

/** Cached audits of these places, whatever their age (callers decide what is fresh enough). */
export async function readAudits(db: Db, placeIds: readonly string[]): Promise<Map<string, SiteAudit>> {
  if (placeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("site_audits")
    .selectAll()
    .where("place_id", "in", [...new Set(placeIds)])
    .execute();
  return new Map(rows.map((row) => [row.place_id, row]));
}

/** Fresh audits of the given sites; an audit of a different URL than the place lists now is not reused. */
export async function readFreshAudits(
  db: Db,
  sites: readonly { placeId: string; url: string }[],
  now: Date,
): Promise<Map<string, SiteAudit>> {
  const audits = await readAudits(
    db,
    sites.map((site) => site.placeId),
  );
  const fresh = new Map<string, SiteAudit>();
  for (const site of sites) {
    const audit = audits.get(site.placeId);
    if (audit && audit.url === site.url && isFresh(audit, now)) fresh.set(site.placeId, audit);
  }
  return fresh;
}

/** Stores the newest audit of a place (one row per place). */
export async function saveAudit(db: Db, audit: SiteAudit): Promise<void> {
  const values = {
    place_id: audit.place_id,
    url: audit.url,
    outcome: audit.outcome,
    failure: audit.failure,
    signals: JSON.stringify(audit.signals),
    evidence: JSON.stringify(audit.evidence),
    audited_at: audit.audited_at,
  };
  await db
    .insertInto("site_audits")
    .values(values)
    .onConflict((oc) =>
      oc.column("place_id").doUpdateSet({
        url: values.url,
        outcome: values.outcome,
        failure: values.failure,
        signals: values.signals,
        evidence: values.evidence,
        audited_at: values.audited_at,
      }),
    )
    .execute();
}
