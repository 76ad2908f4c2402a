import type { Db } from "../db/database.ts";
import type { Language } from "../languages.ts";

/** The `drafts` table's one repository: the outreach drafts a workspace paid for, kept as written. */

export interface StoredDraft {
  id: string;
  locale: string;
  subject: string;
  body: string;
  facts_used: string[];
  created_at: Date;
}

/** Stores a produced draft; called in the transaction that charges its credit. */
export async function insertDraft(
  db: Db,
  draft: {
    workspaceId: string;
    leadId: string;
    locale: Language;
    generator: string;
    subject: string;
    body: string;
    factsUsed: readonly string[];
  },
): Promise<void> {
  await db
    .insertInto("drafts")
    .values({
      workspace_id: draft.workspaceId,
      lead_id: draft.leadId,
      locale: draft.locale,
      generator: draft.generator,
      subject: draft.subject,
      body: draft.body,
      facts_used: JSON.stringify(draft.factsUsed),
    })
    .execute();
}

export async function listDraftsOfLead(db: Db, workspaceId: string, leadId: string): Promise<StoredDraft[]> {
  return db
    .selectFrom("drafts")
    .select(["id", "locale", "subject", "body", "facts_used", "created_at"])
    .where("workspace_id", "=", workspaceId)
    .where("lead_id", "=", leadId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

/** The newest draft of each of these leads (a lead never drafted is absent). */
export async function latestDrafts(
  db: Db,
  workspaceId: string,
  leadIds: readonly string[],
): Promise<Map<string, { subject: string; body: string }>> {
  if (leadIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("drafts")
    .distinctOn("lead_id")
    .select(["lead_id", "subject", "body"])
    .where("workspace_id", "=", workspaceId)
    .where("lead_id", "in", [...leadIds])
    .orderBy("lead_id")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return new Map(rows.map((row) => [row.lead_id, row]));
}

/** The number of drafts of the workspace, as a subquery for its summary. */
export const draftCount = (db: Db, workspaceId: string) =>
  db
    .selectFrom("drafts")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("drafts.workspace_id", "=", workspaceId);
