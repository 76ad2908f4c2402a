import { readCurrentAudits } from "../audit/cache.ts";
import type { AuditEvidence, AuditSignals, SiteAudit } from "../audit/types.ts";
import type { Db } from "../db/database.ts";
import type { OutreachStatus } from "../db/schema.ts";
import { draftCount, latestDrafts } from "../drafting/drafts.ts";
import { encodeCursor, type LeadCursor } from "../leads/cursor.ts";
import {
  emailProvenance,
  findLeadAndAudit,
  type LeadDetail,
  type LeadSummary,
  listLeads,
  opportunityOf,
  readScoredPlaces,
  websiteFlags,
} from "../leads/leads.ts";
import { activeMemberCount } from "../workspaces/members.ts";

/** What the console's overview shows about a workspace. */
export interface WorkspaceOverview {
  balance: number;
  free_trial: boolean;
  leads: number;
  drafts: number;
  active_keys: number;
  active_members: number;
  /** Drafts are signed: a sender name or company was given in the settings. */
  sender_set: boolean;
}

export async function readWorkspaceOverview(db: Db, workspaceId: string): Promise<WorkspaceOverview> {
  const row = await db
    .selectFrom("workspaces")
    .select((eb) => [
      "balance",
      "free_trial",
      "sender_name",
      "sender_company",
      eb
        .selectFrom("leads")
        .select(eb.fn.countAll<string>().as("n"))
        .where("leads.workspace_id", "=", workspaceId)
        .as("leads"),
      draftCount(db, workspaceId).as("drafts"),
      eb
        .selectFrom("api_keys")
        .select(eb.fn.countAll<string>().as("n"))
        .where("api_keys.workspace_id", "=", workspaceId)
        .where("api_keys.revoked_at", "is", null)
        .as("active_keys"),
      activeMemberCount(db, workspaceId).as("active_members"),
    ])
    .where("id", "=", workspaceId)
    .executeTakeFirstOrThrow();
  return {
    balance: row.balance,
    free_trial: row.free_trial,
    leads: Number(row.leads ?? 0),
    drafts: Number(row.drafts ?? 0),
    active_keys: Number(row.active_keys ?? 0),
    active_members: Number(row.active_members ?? 0),
    sender_set: row.sender_name !== null || row.sender_company !== null,
  };
}

/** A lead as the console lists it: the API's flags plus the audit's evidence behind them. */
export interface LeadWithEvidence extends LeadDetail {
  signals: AuditSignals | null;
  evidence: AuditEvidence | null;
  audit_failure: string | null;
  /** The pitch facts the fetch itself showed, failed audits included (a site down twice); null: never audited. */
  pitch: Pick<AuditSignals, "site_unreachable" | "parked_domain" | "social_profile_only" | "no_https"> | null;
  /** Their evidence (attempts, parking marker, profile host, https check), failed audits included. */
  pitch_evidence: AuditEvidence | null;
}

async function withEvidence(db: Db, leads: LeadSummary[]): Promise<LeadWithEvidence[]> {
  const audits = await readCurrentAudits(
    db,
    leads.map((lead) => ({ placeId: lead.place_id, website: lead.website })),
  );
  const places = await readScoredPlaces(
    db,
    leads.map((lead) => lead.place_id),
  );
  const now = new Date();
  return leads.map((lead) => {
    const audit = audits.get(lead.place_id);
    const place = places.get(lead.place_id) ?? { website: lead.website, country: null, user_rating_count: 0 };
    return withAuditEvidence(
      {
        ...lead,
        ...websiteFlags(lead.website, audit?.outcome === "ok" ? audit.signals : null),
        ...emailProvenance(audit),
        opportunity: opportunityOf({ ...place, website: lead.website }, audit, now),
      },
      audit,
    );
  });
}

/** A lead with the evidence of the audit its flags were read from (undefined: never audited). */
function withAuditEvidence(lead: LeadDetail, audit: SiteAudit | undefined): LeadWithEvidence {
  return {
    ...lead,
    signals: audit?.outcome === "ok" ? audit.signals : null,
    evidence: audit?.outcome === "ok" ? audit.evidence : null,
    audit_failure: audit?.outcome === "failed" ? audit.failure : null,
    pitch: audit
      ? {
          site_unreachable: audit.signals.site_unreachable ?? null,
          parked_domain: audit.signals.parked_domain ?? null,
          social_profile_only: audit.signals.social_profile_only ?? null,
          no_https: audit.signals.no_https ?? null,
        }
      : null,
    pitch_evidence: audit ? audit.evidence : null,
  };
}

/**
 * One page of the newest-first lead list (the same order and cursor as GET /v1/leads). With a
 * status, only leads that read that status: the statement steps only onto leads that may read it
 * (listLeads), and the status each reads is decided by the do-not-contact list's rules (a
 * suppressed place reads `skipped` whatever is stored), so the rare candidate that does not is
 * dropped here and the walk goes on until the page is full; the cursor names the last lead shown.
 */
export async function listLeadsWithEvidence(
  db: Db,
  workspaceId: string,
  page: { limit: number; after: LeadCursor | null; status?: OutreachStatus | undefined },
): Promise<{ leads: LeadWithEvidence[]; next_cursor: string | null }> {
  if (page.status === undefined) {
    const listed = await listLeads(db, workspaceId, page);
    return { leads: await withEvidence(db, listed.leads), next_cursor: listed.next_cursor };
  }
  const matching: LeadSummary[] = [];
  let after = page.after;
  // One lead more than the page tells whether a next page exists.
  while (matching.length <= page.limit) {
    const wanted = page.limit + 1 - matching.length;
    const listed = await listLeads(db, workspaceId, { limit: wanted, after, status: page.status });
    matching.push(...listed.leads.filter((lead) => lead.outreach_status === page.status));
    const last = listed.leads.at(-1);
    if (!listed.next_cursor || !last) break;
    after = { addedAt: last.added_at, leadId: last.id };
  }
  const shown = matching.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    leads: await withEvidence(db, shown),
    next_cursor:
      matching.length > page.limit && last ? encodeCursor({ addedAt: last.added_at, leadId: last.id }) : null,
  };
}

/**
 * One page of the workspace's leads ordered by opportunity score, highest first, newest first
 * among equal scores (optionally only those that read a status). The score is computed when read,
 * never stored, so every lead is read and scored, then the page cut: the console's "sort by score".
 */
export async function listLeadsByScore(
  db: Db,
  workspaceId: string,
  page: { limit: number; page: number; status?: OutreachStatus | undefined },
): Promise<{ leads: LeadWithEvidence[]; hasNext: boolean }> {
  const all: LeadSummary[] = [];
  let after: LeadCursor | null = null;
  for (;;) {
    const listed = await listLeads(db, workspaceId, { limit: 100, after, status: page.status });
    all.push(
      ...listed.leads.filter((lead) => page.status === undefined || lead.outreach_status === page.status),
    );
    const last = listed.leads.at(-1);
    if (!listed.next_cursor || !last) break;
    after = { addedAt: last.added_at, leadId: last.id };
  }
  const audits = await readCurrentAudits(
    db,
    all.map((lead) => ({ placeId: lead.place_id, website: lead.website })),
  );
  const places = await readScoredPlaces(
    db,
    all.map((lead) => lead.place_id),
  );
  const now = new Date();
  const scoreOf = (lead: LeadSummary) =>
    opportunityOf(
      { ...(places.get(lead.place_id) ?? { country: null, user_rating_count: 0 }), website: lead.website },
      audits.get(lead.place_id),
      now,
    ).score;
  // Stable: equal scores keep the list's newest-first order.
  const ranked = all
    .map((lead) => ({ lead, score: scoreOf(lead) }))
    .sort((left, right) => right.score - left.score)
    .map(({ lead }) => lead);
  const start = (page.page - 1) * page.limit;
  return {
    leads: await withEvidence(db, ranked.slice(start, start + page.limit)),
    hasNext: ranked.length > start + page.limit,
  };
}

/** The lead page's lead: the lead, its flags and the evidence behind them, its audit read once. */
export async function findLeadWithEvidence(
  db: Db,
  workspaceId: string,
  leadId: string,
): Promise<LeadWithEvidence | null> {
  const found = await findLeadAndAudit(db, workspaceId, leadId);
  return found ? withAuditEvidence(found.lead, found.audit) : null;
}

const CSV_COLUMNS = [
  "id",
  "name",
  "category",
  "address",
  "website",
  "phone",
  "email",
  "outreach_status",
  "added_at",
  "no_website_flag",
  "not_mobile_friendly_flag",
  "outdated_website_flag",
  "last_media_year",
  "email_status",
  "opportunity_score",
  "opportunity_tier",
  "latest_draft_subject",
  "latest_draft_body",
] as const;

/**
 * What a spreadsheet may run as a formula: =, +, -, @, tab or CR at the start of a cell, or right
 * after anything a reader may split cells or rows on (`,`, `;`, a line break) or a quote it may
 * take for a field's start. A reader that ignores the quoting (French Excel splits on `;`)
 * would otherwise turn `Acme;=1+1;` into a live `=1+1` cell.
 */
const FORMULA_START = /(?<=^|[,;\r\n"])(?=[=+\-@\t\r])/g;

/**
 * RFC 4180 field, safe in spreadsheets whatever their separator: every place a cell may start
 * with a formula character (see FORMULA_START) gets an apostrophe before it, and a cell holding
 * a comma, a semicolon, a quote or a line break is quoted.
 */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = (value instanceof Date ? value.toISOString() : String(value)).replace(FORMULA_START, "'");
  return /[",;\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * Every lead of the workspace as CSV, newest first, read page by page: its status and the
 * latest draft's subject and body, ready for a mail-merge (a body spans lines inside its quotes).
 */
export async function* leadsCsv(db: Db, workspaceId: string): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(",")}\r\n`;
  let after: LeadCursor | null = null;
  for (;;) {
    const page = await listLeadsWithEvidence(db, workspaceId, { limit: 100, after });
    const drafts = await latestDrafts(
      db,
      workspaceId,
      page.leads.map((lead) => lead.id),
    );
    for (const lead of page.leads) {
      const draft = drafts.get(lead.id);
      const row = {
        ...lead,
        opportunity_score: lead.opportunity.score,
        opportunity_tier: lead.opportunity.tier,
        latest_draft_subject: draft?.subject,
        latest_draft_body: draft?.body,
      };
      yield `${CSV_COLUMNS.map((column) => csvField(row[column])).join(",")}\r\n`;
    }
    const last = page.leads.at(-1);
    if (!page.next_cursor || !last) return;
    after = { addedAt: last.added_at, leadId: last.id };
  }
}
