import { readCurrentAudits } from "../audit/cache.ts";
import { debitBalance } from "../credits/ledger.ts";
import type { Db } from "../db/database.ts";
import type { Language } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { markLeadDrafted } from "../leads/leads.ts";
import type { DraftMetrics, DraftOutcomeLabel } from "../metrics.ts";
import { explainNoFacts, selectFacts } from "./facts.ts";
import type { Draft, DraftGenerator } from "./generator.ts";

export interface DraftOutreachDeps {
  db: Db;
  generator: DraftGenerator;
  /** Outcome and credits; optional (no metrics in some tests). */
  metrics?: DraftMetrics;
}

export interface DraftOutcome extends Draft {
  generator: DraftGenerator["name"];
  locale: Language;
}

const DRAFT_COST = 1;

/**
 * POST /v1/leads/{id}/outreach-draft. Grounded only in what is verified (provider data and the
 * cached audit; a website is never fetched here). The credit is taken after the draft exists, in
 * the transaction that stores it, so a failed generation or a 422 costs nothing.
 */
export async function draftOutreach(
  deps: DraftOutreachDeps,
  workspaceId: string,
  leadId: string,
  requestedLocale: Language | undefined,
): Promise<DraftOutcome> {
  try {
    const outcome = await produceDraft(deps, workspaceId, leadId, requestedLocale);
    deps.metrics?.draftFinished("ok", deps.generator.name, DRAFT_COST);
    return outcome;
  } catch (error) {
    const label = draftFailureLabel(error);
    if (label) deps.metrics?.draftFinished(label, deps.generator.name, 0);
    throw error;
  }
}

/** An unknown lead (404) is not a draft that was attempted; the other failures are. */
function draftFailureLabel(error: unknown): DraftOutcomeLabel | undefined {
  if (!(error instanceof ApiError)) return "error";
  switch (error.code) {
    case "insufficient_audit_data":
    case "insufficient_credits":
    case "generation_failed":
      return error.code;
  }
  return error.status >= 500 ? "error" : undefined;
}

async function produceDraft(
  deps: DraftOutreachDeps,
  workspaceId: string,
  leadId: string,
  requestedLocale: Language | undefined,
): Promise<DraftOutcome> {
  const { db } = deps;
  const lead = await db
    .selectFrom("leads")
    .innerJoin("places", "places.place_id", "leads.place_id")
    .innerJoin("workspaces", "workspaces.id", "leads.workspace_id")
    .select([
      "leads.id",
      "places.place_id",
      "places.name",
      "places.category",
      "places.website",
      "places.country",
      "places.user_rating_count",
      "workspaces.balance",
      "workspaces.language",
      "workspaces.sender_name",
      "workspaces.sender_company",
      "workspaces.offer",
    ])
    .where("leads.workspace_id", "=", workspaceId)
    .where("leads.id", "=", leadId)
    .executeTakeFirst();
  if (!lead) throw new ApiError("lead_not_found", "No lead with this id in your workspace.");
  // Fail fast before spending a generation; the debit below re-checks atomically.
  if (lead.balance < DRAFT_COST) {
    throw new ApiError(
      "insufficient_credits",
      `A draft costs ${DRAFT_COST} credit and the balance is ${lead.balance}.`,
    );
  }

  const audit =
    (await readCurrentAudits(db, [{ placeId: lead.place_id, website: lead.website }])).get(lead.place_id) ??
    null;
  const factInput = {
    place: {
      name: lead.name,
      website: lead.website,
      country: lead.country,
      userRatingCount: lead.user_rating_count,
    },
    audit,
  };
  const facts = selectFacts(factInput);
  if (facts.length === 0) throw new ApiError("insufficient_audit_data", explainNoFacts(factInput).message);

  const locale = requestedLocale ?? lead.language;
  const draft = await deps.generator.generate({
    locale,
    business: { name: lead.name, category: lead.category },
    facts,
    sender: { name: lead.sender_name, company: lead.sender_company, offer: lead.offer },
  });

  await db.transaction().execute(async (trx) => {
    await debitBalance(
      trx,
      workspaceId,
      DRAFT_COST,
      (balance) => `A draft costs ${DRAFT_COST} credit and the balance is ${balance}. Nothing was charged.`,
    );
    await trx
      .insertInto("drafts")
      .values({
        workspace_id: workspaceId,
        lead_id: lead.id,
        locale,
        generator: deps.generator.name,
        subject: draft.subject,
        body: draft.body,
        facts_used: JSON.stringify(draft.facts_used),
      })
      .execute();
    await markLeadDrafted(trx, lead.id);
  });
  return { ...draft, generator: deps.generator.name, locale };
}
