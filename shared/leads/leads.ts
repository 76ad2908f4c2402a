import { sql, type Transaction } from "kysely";
import {
  auditOfJson,
  contactEmailOf,
  currentAuditSql,
  currentContactEmailSql,
  readCurrentAudits,
} from "../audit/cache.ts";
import type { AuditSignals, SiteAudit } from "../audit/types.ts";
import type { Db } from "../db/database.ts";
import type { Database, OutreachStatus } from "../db/schema.ts";
import { PLACE_DATA_SELECTION, type PlaceData } from "../places/places-repository.ts";
import { type Opportunity, scoreOpportunity } from "../scoring/opportunity.ts";
import {
  loadSuppressionsFor,
  matchingSuppressionEntriesSql,
  maySuppressSql,
  type SuppressionEntryRows,
  type SuppressionList,
  suppressionListOf,
} from "../suppressions/suppressions.ts";
import { encodeCursor, type LeadCursor } from "./cursor.ts";
import type { LeadDetail, LeadSummary } from "./schemas.ts";

// The lead types are the wire schemas' `z.infer` (shared/leads/schemas.ts), with Date timestamps.
export type { LeadDetail, LeadSummary } from "./schemas.ts";

export interface LeadPage {
  leads: LeadSummary[];
  next_cursor: string | null;
}

const summaryColumns = [
  "leads.id",
  "leads.place_id",
  "places.name",
  "places.category",
  "places.address",
  "places.website",
  "places.phone",
  "leads.outreach_status",
  "leads.added_at",
] as const;

/**
 * One page of the workspace's leads, newest first; ties on added_at broken by id so that paging
 * never skips or repeats a lead. The page is walked down the leads_page index one lead at a time
 * (each step the next lead before the previous one, LIMIT 1), joined to its place as it is found.
 * A plain join, or even a LIMIT subquery on leads, leaves the planner free to read every lead of
 * the workspace and sort them when its statistics are stale (right after a bulk insert, or a new
 * workspace unknown to the last ANALYZE): it then estimates a few rows, and a bitmap scan plus a
 * sort looks cheaper than the ordered index scan. For LIMIT 1 the ordered index scan wins
 * whatever the estimate, so this plan does not depend on statistics.
 *
 * Everything the page needs comes in this one statement, because on a busy node each round trip
 * to the database costs more than the query itself (bench/leads-list.bench.ts): each lead's
 * contact address (the audit rule of shared/audit/cache.ts) and, on the first row only, the
 * do-not-contact entries that could match the page's leads (read once by the statement through
 * the list's index, never the whole list), matched in memory as every other reader of the list does.
 */
export function leadPageQuery(
  workspaceId: string,
  page: { limit: number; after: LeadCursor | null; status?: OutreachStatus | undefined },
) {
  const after = page.after
    ? sql`and (leads.added_at, leads.id) < (${page.after.addedAt}, ${page.after.leadId}::uuid)`
    : sql``;
  const mayRead = mayReadStatusSql(workspaceId, page.status);
  return sql<LeadSummary & { suppression_entries: SuppressionEntryRows | null }>`
    with recursive walk as (
      (select first.*, places.name, places.category, places.address, places.website, places.phone, 1 as n
       from (
         select leads.id, leads.place_id, leads.outreach_status, leads.added_at
         from leads
         where leads.workspace_id = ${workspaceId} ${after} ${mayRead}
         order by leads.added_at desc, leads.id desc
         limit 1
       ) as first
       join places on places.place_id = first.place_id)
      union all
      select next.*, places.name, places.category, places.address, places.website, places.phone, walk.n + 1
      from walk
      cross join lateral (
        select leads.id, leads.place_id, leads.outreach_status, leads.added_at
        from leads
        where leads.workspace_id = ${workspaceId} and (leads.added_at, leads.id) < (walk.added_at, walk.id) ${mayRead}
        order by leads.added_at desc, leads.id desc
        limit 1
      ) as next
      join places on places.place_id = next.place_id
      where walk.n < ${page.limit}
    )
    select id, place_id, name, category, address, website, phone, outreach_status, added_at,
      ${currentContactEmailSql(sql.ref("walk.place_id"), sql.ref("walk.website"))} as email,
      case when walk.n = 1 then ${matchingSuppressionEntriesSql(
        workspaceId,
        sql`select walk.place_id, walk.website,
          ${currentContactEmailSql(sql.ref("walk.place_id"), sql.ref("walk.website"))} as email from walk`,
      )} end as suppression_entries
    from walk
    order by walk.added_at desc, walk.id desc`;
}

/**
 * With a status, the walk steps only onto leads that may read it: those stored with it (a lead
 * reads what is stored unless the do-not-contact list covers it) and, for `skipped`, those the
 * list's pre-selection finds an entry for. What each lead reads is still decided by `statusOf`
 * with the list's rules (shared/suppressions), so a caller keeps the leads that read the status.
 */
function mayReadStatusSql(workspaceId: string, status: OutreachStatus | undefined) {
  if (status === undefined) return sql``;
  if (status !== "skipped") return sql`and leads.outreach_status = ${status}`;
  const subject = sql<{ place_id: string; website: string | null; email: string | null }>`
    select leads.place_id, candidate.website,
      ${currentContactEmailSql(sql.ref("leads.place_id"), sql.ref("candidate.website"))} as email
    from places as candidate where candidate.place_id = leads.place_id`;
  return sql`and (leads.outreach_status = 'skipped' or ${maySuppressSql(workspaceId, subject)})`;
}

/**
 * One page of leads, newest first, each with the status it reads. With a status, the page holds
 * only leads that may read it (see mayReadStatusSql): the caller keeps those that do, and walks on
 * from the last lead read when that leaves the page short.
 */
export async function listLeads(
  db: Db,
  workspaceId: string,
  page: { limit: number; after: LeadCursor | null; status?: OutreachStatus | undefined },
): Promise<LeadPage> {
  // One row more than the page tells whether a next page exists.
  const { rows } = await leadPageQuery(workspaceId, { ...page, limit: page.limit + 1 }).execute(db);
  const suppressions = suppressionListOf(rows[0]?.suppression_entries ?? []);
  const leads = rows.slice(0, page.limit).map(({ suppression_entries: _, ...row }) => ({
    ...row,
    outreach_status: statusOf(row, row.email, suppressions),
  }));
  const last = leads.at(-1);
  return {
    leads,
    next_cursor:
      rows.length > page.limit && last ? encodeCursor({ addedAt: last.added_at, leadId: last.id }) : null,
  };
}

/** The lead with its website flags from the cached audit of its current website; null if not this workspace's. */
export async function findLeadDetail(
  db: Db,
  workspaceId: string,
  leadId: string,
  now = new Date(),
): Promise<LeadDetail | null> {
  return (await findLeadAndAudit(db, workspaceId, leadId, now))?.lead ?? null;
}

/**
 * `findLeadDetail` with the audit its flags were read from (undefined: never audited), for a
 * reader that shows the audit's evidence too (the console's lead page) without reading it again.
 */
export async function findLeadAndAudit(
  db: Db,
  workspaceId: string,
  leadId: string,
  now = new Date(),
): Promise<{ lead: LeadDetail; audit: SiteAudit | undefined } | null> {
  const row = await db
    .selectFrom("leads")
    .innerJoin("places", "places.place_id", "leads.place_id")
    .select([...summaryColumns, "places.country", "places.user_rating_count"])
    .where("leads.workspace_id", "=", workspaceId)
    .where("leads.id", "=", leadId)
    .executeTakeFirst();
  if (!row) return null;
  const { country, user_rating_count, ...summary } = row;
  const audit = (await readCurrentAudits(db, [{ placeId: summary.place_id, website: summary.website }])).get(
    summary.place_id,
  );
  const email = contactEmailOf(audit);
  const lead: LeadDetail = {
    ...summary,
    email,
    outreach_status: statusOf(
      summary,
      email,
      await loadSuppressionsFor(db, workspaceId, [
        { placeId: summary.place_id, website: summary.website, email },
      ]),
    ),
    ...websiteFlags(summary.website, audit?.outcome === "ok" ? audit.signals : null),
    ...emailProvenance(audit),
    opportunity: opportunityOf({ website: summary.website, country, user_rating_count }, audit, now),
  };
  return { lead, audit };
}

/** What the opportunity score reads of a place: the provider's data beside the lead's. */
export interface ScoredPlace {
  website: string | null;
  country: string | null;
  user_rating_count: number;
}

/** The place's opportunity score, from its current audit (none: never checked), as of `now`. */
export function opportunityOf(place: ScoredPlace, audit: SiteAudit | undefined, now: Date): Opportunity {
  return scoreOpportunity({
    place: { website: place.website, country: place.country, userRatingCount: place.user_rating_count },
    audit: audit ?? null,
    now,
  });
}

/** The provider data the opportunity score reads, for these places, keyed by place id. */
export async function readScoredPlaces(
  db: Db,
  placeIds: readonly string[],
): Promise<Map<string, ScoredPlace>> {
  if (placeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("places")
    .select(["place_id", "website", "country", "user_rating_count"])
    .where("place_id", "in", [...placeIds])
    .execute();
  return new Map(rows.map(({ place_id, ...place }) => [place_id, place]));
}

/** Whether the lead's address can receive mail, and where and when it was found; nulls with no address. */
export function emailProvenance(
  audit: SiteAudit | undefined,
): Pick<LeadDetail, "email_status" | "email_source"> {
  if (audit === undefined || contactEmailOf(audit) === null)
    return { email_status: null, email_source: null };
  const { evidence, signals } = audit;
  const firstSeen = evidence.email_first_seen_at ? new Date(evidence.email_first_seen_at) : audit.audited_at;
  return {
    // Audits made before the mail check carry no status: not known.
    email_status: signals.email_status ?? "unknown",
    email_source: {
      url: evidence.email_page_url ?? audit.url,
      found_in: evidence.email_found_in?.[0] ?? "text",
      first_seen_at: firstSeen.toISOString(),
      last_seen_at: audit.audited_at.toISOString(),
      solicitation_refused: signals.solicitation_refused ?? null,
    },
  };
}

/** A lead of a suppressed place, address or domain reads `skipped`, whatever was stored; removal restores it. */
function statusOf(
  lead: { place_id: string; website: string | null; outreach_status: OutreachStatus },
  email: string | null,
  suppressions: SuppressionList,
): OutreachStatus {
  return suppressions.matches({ placeId: lead.place_id, website: lead.website, email })
    ? "skipped"
    : lead.outreach_status;
}

export function websiteFlags(website: string | null, signals: AuditSignals | null) {
  return {
    no_website_flag: website === null,
    not_mobile_friendly_flag: website === null ? null : (signals?.not_mobile_friendly ?? null),
    outdated_website_flag: website === null ? null : (signals?.outdated_website ?? null),
    last_media_year: website === null ? null : (signals?.last_media_year ?? null),
  };
}

/** A lead row as a search saved it; its `email` comes from the audit (`contactEmailOf`). */
export interface SavedLead {
  id: string;
  place_id: string;
  outreach_status: OutreachStatus;
  added_at: Date;
}

const savedLeadColumns = ["leads.id", "leads.place_id", "leads.outreach_status", "leads.added_at"] as const;

/** Saves these places as leads; a place already saved keeps its lead (same id, same added_at). */
export async function insertLeads(
  trx: Transaction<Database>,
  workspaceId: string,
  placeIds: readonly string[],
): Promise<void> {
  if (placeIds.length === 0) return;
  await trx
    .insertInto("leads")
    .values(placeIds.map((placeId) => ({ workspace_id: workspaceId, place_id: placeId })))
    .onConflict((oc) => oc.columns(["workspace_id", "place_id"]).doNothing())
    .execute();
}

/** The workspace's leads of these places, keyed by place id. */
export async function findLeadsOfPlaces(
  db: Db | Transaction<Database>,
  workspaceId: string,
  placeIds: readonly string[],
): Promise<Map<string, SavedLead>> {
  if (placeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("leads")
    .select(savedLeadColumns)
    .where("leads.workspace_id", "=", workspaceId)
    .where("leads.place_id", "in", [...placeIds])
    .execute();
  return new Map(rows.map((row) => [row.place_id, row]));
}

/**
 * Like `findLeadsOfPlaces`, with each lead's stored place data (to tell whether a search changed
 * it) and the audit of the website stored for the place (the current one while the search found
 * the same data), in one statement.
 */
export async function findLeadsWithPlaces(
  db: Db,
  workspaceId: string,
  placeIds: readonly string[],
): Promise<Map<string, { lead: SavedLead; place: PlaceData; audit: SiteAudit | undefined }>> {
  if (placeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("leads")
    .innerJoin("places", "places.place_id", "leads.place_id")
    .select([...savedLeadColumns, ...PLACE_DATA_SELECTION])
    .select(currentAuditSql(sql.ref("places.place_id"), sql.ref("places.website")).as("audit"))
    .where("leads.workspace_id", "=", workspaceId)
    .where("leads.place_id", "in", [...placeIds])
    .execute();
  return new Map(
    rows.map(({ id, place_id, outreach_status, added_at, audit, ...data }) => [
      place_id,
      {
        lead: { id, place_id, outreach_status, added_at },
        place: { place_id, ...data },
        audit: audit === null ? undefined : auditOfJson(audit),
      },
    ]),
  );
}

/** A produced draft moves a `new` lead to `drafted`; a lead already sent or skipped keeps its state. */
export async function markLeadDrafted(trx: Transaction<Database>, leadId: string): Promise<void> {
  await trx
    .updateTable("leads")
    .set({ outreach_status: "drafted" })
    .where("id", "=", leadId)
    .where("outreach_status", "=", "new")
    .execute();
}

/** A member's mark on a lead (sent or skipped); false when the workspace has no such lead. */
export async function markOutreachStatus(
  db: Db,
  workspaceId: string,
  leadId: string,
  status: Extract<OutreachStatus, "sent" | "skipped">,
): Promise<boolean> {
  const updated = await db
    .updateTable("leads")
    .set({ outreach_status: status })
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", leadId)
    .returning("id")
    .executeTakeFirst();
  return updated !== undefined;
}
