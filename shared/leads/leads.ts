import { sql } from "kysely";
import type { AuditSignals } from "../audit/types.ts";
import type { Db } from "../db/database.ts";
import type { OutreachStatus } from "../db/schema.ts";
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

/** The lead with its website flags from the newest cached audit of its place; null if not this workspace's. */
export async function findLeadDetail(
  db: Db,
  workspaceId: string,
  leadId: string,
): Promise<LeadDetail | null> {
  const row = await db
    .selectFrom("leads")
    .innerJoin("places", "places.place_id", "leads.place_id")
    .leftJoin("site_audits", (join) =>
      join.onRef("site_audits.place_id", "=", "leads.place_id").on("site_audits.outcome", "=", "ok"),
    )
    .select([...summaryColumns, "site_audits.signals"])
    .where("leads.workspace_id", "=", workspaceId)
    .where("leads.id", "=", leadId)
    .executeTakeFirst();
  if (!row) return null;
  const { signals, ...summary } = row;
  return { ...summary, ...websiteFlags(summary.website, signals ?? null) };
}

export function websiteFlags(website: string | null, signals: AuditSignals | null) {
  return {
    no_website_flag: website === null,
    not_mobile_friendly_flag: website === null ? null : (signals?.not_mobile_friendly ?? null),
    outdated_website_flag: website === null ? null : (signals?.outdated_website ?? null),
    last_media_year: website === null ? null : (signals?.last_media_year ?? null),
  };
}
