import { sql, type Transaction } from "kysely";
import { readCurrentAudits } from "../audit/cache.ts";
import type { AuditSignals } from "../audit/types.ts";
import type { Db } from "../db/database.ts";
import type { Database, OutreachStatus } from "../db/schema.ts";
import { PLACE_DATA_SELECTION, type PlaceData } from "../places/places-repository.ts";
import { encodeCursor, type LeadCursor } from "./cursor.ts";

export interface LeadSummary {
  id: string;
  place_id: string;
  name: string;
  category: string;
  address: string | null;
  website: string | null;
  email: string | null;
  outreach_status: OutreachStatus;
  added_at: Date;
}

export interface LeadDetail extends LeadSummary {
  no_website_flag: boolean | null;
  not_mobile_friendly_flag: boolean | null;
  outdated_website_flag: boolean | null;
  last_media_year: number | null;
}

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
  "leads.email",
  "leads.outreach_status",
  "leads.added_at",
] as const;

/** Newest first; ties on added_at broken by id so that paging never skips or repeats a lead. */
export async function listLeads(
  db: Db,
  workspaceId: string,
  page: { limit: number; after: LeadCursor | null },
): Promise<LeadPage> {
  let query = db
    .selectFrom("leads")
    .innerJoin("places", "places.place_id", "leads.place_id")
    .select(summaryColumns)
    .where("leads.workspace_id", "=", workspaceId);
  if (page.after) {
    const { addedAt, leadId } = page.after;
    query = query.where(sql<boolean>`(leads.added_at, leads.id) < (${addedAt}, ${leadId}::uuid)`);
  }
  const rows = await query
    .orderBy("leads.added_at", "desc")
    .orderBy("leads.id", "desc")
    .limit(page.limit + 1)
    .execute();
  const leads = rows.slice(0, page.limit);
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
): Promise<LeadDetail | null> {
  const summary = await db
    .selectFrom("leads")
    .innerJoin("places", "places.place_id", "leads.place_id")
    .select(summaryColumns)
    .where("leads.workspace_id", "=", workspaceId)
    .where("leads.id", "=", leadId)
    .executeTakeFirst();
  if (!summary) return null;
  const audit = (await readCurrentAudits(db, [{ placeId: summary.place_id, website: summary.website }])).get(
    summary.place_id,
  );
  return { ...summary, ...websiteFlags(summary.website, audit?.outcome === "ok" ? audit.signals : null) };
}

export function websiteFlags(website: string | null, signals: AuditSignals | null) {
  return {
    no_website_flag: website === null,
    not_mobile_friendly_flag: website === null ? null : (signals?.not_mobile_friendly ?? null),
    outdated_website_flag: website === null ? null : (signals?.outdated_website ?? null),
    last_media_year: website === null ? null : (signals?.last_media_year ?? null),
  };
}

export interface SavedLead {
  id: string;
  place_id: string;
  email: string | null;
  outreach_status: OutreachStatus;
  added_at: Date;
}

const savedLeadColumns = [
  "leads.id",
  "leads.place_id",
  "leads.email",
  "leads.outreach_status",
  "leads.added_at",
] as const;

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

/** Like `findLeadsOfPlaces`, with each lead's stored place data (to tell whether a search changed it). */
export async function findLeadsWithPlaces(
  db: Db,
  workspaceId: string,
  placeIds: readonly string[],
): Promise<Map<string, { lead: SavedLead; place: PlaceData }>> {
  if (placeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("leads")
    .innerJoin("places", "places.place_id", "leads.place_id")
    .select([...savedLeadColumns, ...PLACE_DATA_SELECTION])
    .where("leads.workspace_id", "=", workspaceId)
    .where("leads.place_id", "in", [...placeIds])
    .execute();
  return new Map(
    rows.map(({ id, place_id, email, outreach_status, added_at, ...data }) => [
      place_id,
      { lead: { id, place_id, email, outreach_status, added_at }, place: { place_id, ...data } },
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
