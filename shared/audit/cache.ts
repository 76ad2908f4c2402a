import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { SiteAudit } from "./types.ts";

/**
 * The `site_audits` table: one row per place, its newest homepage audit. Every read of an audit on
 * behalf of a place goes through `readCurrent` (via `readCurrentAudits` or
 * `readCurrentContactEmails`), where the rule "an audit counts only for the website the place
 * lists now" is written once.
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
 * The rule, written once: of the rows `read` returns for these places, only those of the website
 * each place lists now count (an audit of a website the place no longer lists says nothing about
 * the business).
 */
async function readCurrent<Row extends { place_id: string; url: string }>(
  places: readonly PlaceWebsite[],
  read: (placeIds: string[]) => Promise<Row[]>,
): Promise<Map<string, Row>> {
  const withWebsite = places.filter((place) => place.website !== null);
  if (withWebsite.length === 0) return new Map();
  const rows = await read([...new Set(withWebsite.map((place) => place.placeId))]);
  const byPlace = new Map(rows.map((row) => [row.place_id, row]));
  const current = new Map<string, Row>();
  for (const place of withWebsite) {
    const row = byPlace.get(place.placeId);
    if (row && row.url === place.website) current.set(place.placeId, row);
  }
  return current;
}

/** The cached audits of these places' current websites, whatever their age. */
export async function readCurrentAudits(
  db: Db,
  places: readonly PlaceWebsite[],
): Promise<Map<string, SiteAudit>> {
  return readCurrent(places, (placeIds) =>
    db.selectFrom("site_audits").selectAll().where("place_id", "in", placeIds).execute(),
  );
}

/**
 * A lead's `email`: the contact address the audit of its current website found (pass the audit
 * `readCurrentAudits` returned). Derived at read time rather than stored on the lead, so a later
 * audit updates it and a website change clears it (the old URL's audit no longer counts) with no
 * second copy to keep in step; `leads.email` is not read. Null for a failed audit, an audit made
 * before addresses were resolved, or a page that shows none.
 */
export function contactEmailOf(audit: Pick<SiteAudit, "outcome" | "signals"> | undefined): string | null {
  return audit?.outcome === "ok" ? (audit.signals.email ?? null) : null;
}

/**
 * `contactEmailOf` for a page of leads, reading only the address out of each audit (not its
 * evidence): the lead list's lighter twin of `readCurrentAudits`. Places without one are absent.
 */
export async function readCurrentContactEmails(
  db: Db,
  places: readonly PlaceWebsite[],
): Promise<Map<string, string>> {
  const rows = await readCurrent(places, (placeIds) =>
    db
      .selectFrom("site_audits")
      .select(["place_id", "url", sql<string | null>`signals->>'email'`.as("email")])
      .where("place_id", "in", placeIds)
      .where("outcome", "=", "ok")
      .execute(),
  );
  const emails = new Map<string, string>();
  for (const [placeId, row] of rows) if (row.email !== null) emails.set(placeId, row.email);
  return emails;
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

/**
 * Stores the newest audit of a place (one row per place). An address found again on the same
 * website keeps the time it was first seen (`email_first_seen_at`) from the row it replaces, in
 * the same statement; a new address, or a new website, starts over.
 */
export async function saveAudit(db: Db, audit: SiteAudit): Promise<void> {
  const found = audit.outcome === "ok" && (audit.signals.email ?? null) !== null;
  const evidence = found
    ? { ...audit.evidence, email_first_seen_at: audit.audited_at.toISOString() }
    : audit.evidence;
  const values = {
    place_id: audit.place_id,
    url: audit.url,
    outcome: audit.outcome,
    failure: audit.failure,
    signals: JSON.stringify(audit.signals),
    evidence: JSON.stringify(evidence),
    audited_at: audit.audited_at,
  };
  const { place_id: _key, ...update } = values;
  await db
    .insertInto("site_audits")
    .values(values)
    .onConflict((oc) =>
      oc.column("place_id").doUpdateSet({
        ...update,
        evidence: sql<string>`case
          when site_audits.url = excluded.url and site_audits.outcome = 'ok'
            and site_audits.signals->>'email' = excluded.signals->>'email'
          then jsonb_set(
            excluded.evidence,
            '{email_first_seen_at}',
            coalesce(site_audits.evidence->'email_first_seen_at', to_jsonb(site_audits.audited_at))
          )
          else excluded.evidence
        end`,
      }),
    )
    .execute();
}
