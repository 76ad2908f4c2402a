import { type RawBuilder, sql } from "kysely";
import { type Db, withoutDatabaseDeadline } from "../db/database.ts";
import type { SiteAudit } from "./types.ts";

/**
 * The `site_audits` table: one row per place, its newest homepage audit. Every read of an audit on
 * behalf of a place goes through `readCurrent` (via `readCurrentAudits` or
 * `readCurrentContactEmails`), where the rule "an audit counts only for the website the place
 * lists now" is written once; `currentContactEmailSql` and `currentAuditSql` are the same rule
 * inside another statement (the lead list's page, a repeated search's leads: one round trip).
 */

/** An audit is reused for 30 days; a failed one for a day, so a site that was down gets another try. */
const AUDIT_FRESH_MS = 30 * 24 * 3600 * 1000;
const FAILED_AUDIT_FRESH_MS = 24 * 3600 * 1000;

function isFresh(audit: Pick<SiteAudit, "outcome" | "audited_at">, now: Date): boolean {
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

/**
 * `readCurrentContactEmails` for one place inside another statement: the address of the ok audit
 * of the website the place lists now, null otherwise (a scalar subquery on the primary key).
 */
export function currentContactEmailSql(placeId: RawBuilder<string>, website: RawBuilder<string | null>) {
  return sql<string | null>`(
    select site_audits.signals->>'email' from site_audits
    where site_audits.place_id = ${placeId} and site_audits.url = ${website} and site_audits.outcome = 'ok')`;
}

/**
 * `readCurrentAudits` for one place inside another statement: the audit of the website the place
 * lists now as JSON (null otherwise); `auditOfJson` reads it back.
 */
export function currentAuditSql(placeId: RawBuilder<string>, website: RawBuilder<string | null>) {
  return sql<AuditJson | null>`(
    select to_jsonb(site_audits) from site_audits
    where site_audits.place_id = ${placeId} and site_audits.url = ${website})`;
}

/** A `site_audits` row as `to_jsonb` writes it: the timestamp as text. */
type AuditJson = Omit<SiteAudit, "audited_at"> & { audited_at: string };

export function auditOfJson(json: AuditJson): SiteAudit {
  return { ...json, audited_at: new Date(json.audited_at) };
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
  await saveAudits(db, [audit]);
}

/**
 * `saveAudit` for several places in one statement. Of two audits of one place, the later in the
 * list is kept (one statement may not update a row twice).
 */
async function saveAudits(db: Db, audits: readonly SiteAudit[]): Promise<void> {
  const byPlace = new Map<string, SiteAudit>();
  for (const audit of audits) {
    byPlace.delete(audit.place_id);
    byPlace.set(audit.place_id, audit);
  }
  if (byPlace.size === 0) return;
  const rows = [...byPlace.values()].map((audit) => {
    const found = audit.outcome === "ok" && (audit.signals.email ?? null) !== null;
    const evidence = found
      ? { ...audit.evidence, email_first_seen_at: audit.audited_at.toISOString() }
      : audit.evidence;
    return {
      place_id: audit.place_id,
      url: audit.url,
      outcome: audit.outcome,
      failure: audit.failure,
      signals: JSON.stringify(audit.signals),
      evidence: JSON.stringify(evidence),
      audited_at: audit.audited_at,
    };
  });
  await db
    .insertInto("site_audits")
    .values(rows)
    .onConflict((oc) =>
      oc.column("place_id").doUpdateSet({
        url: sql<string>`excluded.url`,
        outcome: sql<SiteAudit["outcome"]>`excluded.outcome`,
        failure: sql<string | null>`excluded.failure`,
        signals: sql<string>`excluded.signals`,
        audited_at: sql<Date>`excluded.audited_at`,
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

/** Rows of one cache write at most (7 parameters a row, far below PostgreSQL's 65,535). */
const MAX_BATCH = 500;

/**
 * Stores audits as they finish, several in one statement: a write waits while the previous one
 * runs, and every audit that finished meanwhile goes in the next statement. An idle process writes
 * an audit at once (after the current turn of the event loop); a busy one makes one round trip
 * for many audits instead of one each. `save` settles when its audit is stored (or not).
 *
 * A statement that fails is tried again row by row, so one audit the database refuses fails alone.
 * Writes run outside the caller's request deadline (an audit outlives the search that asked).
 */
export interface AuditCacheWriter {
  save(audit: SiteAudit): Promise<void>;
  /** Statements run and rows written so far (metrics, the bench). */
  readonly statements: number;
  readonly rows: number;
}

export function createAuditCacheWriter(db: Db): AuditCacheWriter {
  type Pending = { audit: SiteAudit; resolve: () => void; reject: (error: unknown) => void };
  let pending: Pending[] = [];
  let writing = false;
  let statements = 0;
  let rows = 0;

  const write = async (batch: Pending[]) => {
    statements += 1;
    await saveAudits(
      db,
      batch.map((entry) => entry.audit),
    );
    rows += batch.length;
  };

  const drain = async () => {
    while (pending.length > 0) {
      const batch = pending.length <= MAX_BATCH ? pending : pending.slice(0, MAX_BATCH);
      pending = pending.length <= MAX_BATCH ? [] : pending.slice(MAX_BATCH);
      try {
        await write(batch);
        for (const entry of batch) entry.resolve();
      } catch (error) {
        if (batch.length === 1) batch[0]?.reject(error);
        else await Promise.all(batch.map((entry) => write([entry]).then(entry.resolve, entry.reject)));
      }
    }
    writing = false;
  };

  return {
    get statements() {
      return statements;
    },
    get rows() {
      return rows;
    },
    save(audit) {
      return new Promise<void>((resolve, reject) => {
        pending.push({ audit, resolve, reject });
        if (writing) return;
        writing = true;
        // After this turn of the event loop: the audits finishing in it share the statement.
        setImmediate(() => void withoutDatabaseDeadline(drain));
      });
    },
  };
}
