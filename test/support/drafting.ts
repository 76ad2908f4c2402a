/**
 * Leads to draft for: a saved lead of a workspace, its place and (by default) a cached audit of
 * its site with five verified facts. Shared by the draft route's tests.
 */
import { randomUUID } from "node:crypto";
import { saveAudit } from "../../shared/audit/cache.ts";
import type { AuditEvidence, AuditSignals, SiteAudit } from "../../shared/audit/types.ts";
import type { Db } from "../../shared/db/database.ts";
import type { TestWorkspace } from "./app.ts";
import { seedLeads } from "./seed.ts";

/**
 * Five verified facts (no_mobile_viewport, stale_copyright, legacy_site_tech, no_french_version,
 * low_review_count with few reviews): a draft may use only the first two in DESIGN.md's order.
 */
export const RICH_SIGNALS: AuditSignals = {
  no_mobile_viewport: true,
  legacy_site_tech: true,
  stale_copyright: true,
  last_media_year: null,
  stale_content: false,
  no_french_version: true,
  not_mobile_friendly: true,
  outdated_website: true,
};
export const RICH_EVIDENCE: AuditEvidence = {
  viewport: null,
  jquery_version: "1.8.2",
  copyright_text: "© 2016",
  copyright_year: 2016,
  canadian_by: "address",
};
export const RICH_FACTS = ["no_mobile_viewport", "stale_copyright"];

interface AuditSetup {
  outcome?: "ok" | "failed";
  failure?: string | null;
  signals?: AuditSignals;
  evidence?: AuditEvidence;
  /** The URL the audit was made of; default: the place's website. */
  url?: string;
}

export interface LeadSetup {
  name?: string;
  /** null: no website. Default: https://<place_id>.example */
  website?: string | null;
  reviews?: number;
  country?: string | null;
  /** null: never audited. Default: the rich audit. */
  audit?: AuditSetup | null;
}

/** A saved lead of the workspace, with its place and (by default) a cached audit of its site. */
export async function seedLead(
  app: { database: { db: Db } },
  ws: TestWorkspace,
  setup: LeadSetup = {},
): Promise<string> {
  const placeId = `draft-${randomUUID()}`;
  const website = setup.website === undefined ? `https://${placeId}.example` : setup.website;
  const [leadId] = await seedLeads(app.database.db, ws.workspaceId, [
    {
      place_id: placeId,
      name: setup.name ?? "Maple Leaf Plumbing",
      website,
      country: setup.country === undefined ? "CA" : setup.country,
      user_rating_count: setup.reviews ?? 4,
    },
  ]);
  const audit = setup.audit === undefined ? {} : setup.audit;
  if (audit !== null) {
    const outcome = audit.outcome ?? "ok";
    const record: SiteAudit = {
      place_id: placeId,
      url: audit.url ?? website ?? `https://${placeId}.example`,
      outcome,
      failure: audit.failure ?? null,
      signals: audit.signals ?? RICH_SIGNALS,
      evidence: audit.evidence ?? RICH_EVIDENCE,
      audited_at: new Date(),
    };
    await saveAudit(app.database.db, record);
  }
  return leadId!;
}
