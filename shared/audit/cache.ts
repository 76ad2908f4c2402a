import type { Db } from "../db/database.ts";
import type { SiteAudit } from "./types.ts";

/**
 * The `site_audits` table: one row per place, its newest homepage audit. Every read of an audit on
 * behalf of a place goes through `readCurrentAudits`, where the rule "an audit counts only for the
 * website the place lists now" is written once.
 */

/** An audit is reused for 30 days; a failed one for a day, so a site that was down gets another try. */
export const AUDIT_FRESH_MS = 30 * 24 * 3600 * 1000;
export const FAILED_AUDIT_FRESH_MS = 24 * 3600 * 1000;

export function isFresh(audit: Pick<SiteAudit, "outcome" | "audited_at">, now: Date): boolean {
  const age = now.getTime() - audit.audited_at.getTime();
  return age < (audit.outcome === "ok" ? AUDIT_FRESH_MS : FAILED_AUDIT_FRESH_MS);
}

/** A place as the audit rule sees it: its id and the website it lists now (null: none). */
export interface PlaceWebsite {
  placeId: string;
  website: string | null;
}

/**
 * The cached audits of these places, whatever their age, keeping only those of the website each
 * place lists now: an audit of a website the place no longer lists says nothing about the business.
 */
export async function readCurrentAudits(
  db: Db,
  places: readonly PlaceWebsite[],
): Promise<Map<string, SiteAudit>> {
  const withWebsite = places.filter((place) => place.website !== null);
  if (withWebsite.length === 0) return new Map();
  const rows = await db
    .selectFrom("site_audits")
    .selectAll()
    .where("place_id", "in", [...new Set(withWebsite.map((place) => place.placeId))])
    .execute();
  const byPlace = new Map(rows.map((row) => [row.place_id, row]));
  const current = new Map<string, SiteAudit>();
  for (const place of withWebsite) {
    const audit = byPlace.get(place.placeId);
    if (audit && audit.url === place.website) current.set(place.placeId, audit);
  }
  return current;
}

/** Fresh audits of the given sites (the cache a search consults before checking live). */
export async function readFreshAudits(
  db: Db,
  sites: readonly { placeId: string; url: string }[],
  now: Date,
): Promise<Map<string, SiteAudit>> {
  const audits = await readCurrentAudits(
    db,
    sites.map((site) => ({ placeId: site.placeId, website: site.url })),
  );
  for (const [placeId, audit] of audits) if (!isFresh(audit, now)) audits.delete(placeId);
  return audits;
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
  const { place_id: _key, ...update } = values;
  await db
    .insertInto("site_audits")
    .values(values)
    .onConflict((oc) => oc.column("place_id").doUpdateSet(update))
    .execute();
}
