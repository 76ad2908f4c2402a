import { contactEmailOf, readCurrentAudits } from "../audit/cache.ts";
import type { SiteAudit } from "../audit/types.ts";
import type { Spender } from "../auth.ts";
import type { CreditHold } from "../credits/holds.ts";
import { holdCredits, releaseHold, settleHold } from "../credits/ledger.ts";
import { CREDITS_PER_DRAFT, DRAFT_PRICE } from "../credits/prices.ts";
import type { Db } from "../db/database.ts";
import { ApiError } from "../errors.ts";
import type { Language } from "../languages.ts";
import { markLeadDrafted } from "../leads/leads.ts";
import type { DraftMetrics, DraftOutcomeLabel } from "../metrics.ts";
import { loadSuppressionsFor } from "../suppressions/suppressions.ts";
import { findDraftProblems } from "./check-draft.ts";
import { insertDraft } from "./drafts.ts";
import { explainNoFacts, selectFacts } from "./facts.ts";
import type { Draft, DraftGenerator, DraftRequest } from "./generator.ts";
import { townOf } from "./town.ts";

export interface DraftOutreachDeps {
  /** The API key or OAuth grant drafting, held to its spending caps; absent for a console member. */
  spender?: Spender;
  db: Db;
  generator: DraftGenerator;
  /** Outcome and credits; optional (no metrics in some tests). */
  metrics?: DraftMetrics;
  /** Where a failed release of a hold is reported (the hold lapses by itself then). */
  logger?: { warn(obj: object, msg: string): void };
}

export interface DraftOutcome extends Draft {
  generator: DraftGenerator["name"];
  locale: Language;
}

/** A hold outlives the generator's own deadline by this much, so it never lapses under a live draft. */
const HOLD_MARGIN_MS = 30_000;

const shortfall = (available: number) =>
  `A draft costs ${DRAFT_PRICE} and the balance is ${available}. Nothing was charged.`;

/**
 * POST /v1/leads/{id}/outreach-draft. Grounded only in what is verified (provider data and the
 * cached audit; a website is never fetched here). The credit is held before the generator runs
 * (so N parallel drafts on the last credit make one generation, and the others answer 402 at
 * once), charged in the transaction that stores the draft, and released on any failure (422,
 * 502, a timeout), so a failed draft costs nothing. A process that dies mid-draft leaves a hold
 * that lapses by itself after the generator's deadline.
 */
export async function draftOutreach(
  deps: DraftOutreachDeps,
  workspaceId: string,
  leadId: string,
  requestedLocale: Language | undefined,
): Promise<DraftOutcome> {
  try {
    const outcome = await produceDraft(deps, workspaceId, leadId, requestedLocale);
    deps.metrics?.draftFinished("ok", deps.generator.name, CREDITS_PER_DRAFT);
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
  const lead = await findLeadToDraft(db, workspaceId, leadId);
  if (!lead) throw new ApiError("lead_not_found", "No lead with this id in your workspace.");
  const audit =
    (await readCurrentAudits(db, [{ placeId: lead.place_id, website: lead.website }])).get(lead.place_id) ??
    null;
  // Checked before any credit is held or any model is asked: a suppressed lead costs nothing.
  const subject = {
    placeId: lead.place_id,
    website: lead.website,
    email: contactEmailOf(audit ?? undefined),
  };
  if ((await loadSuppressionsFor(db, workspaceId, [subject])).matches(subject)) {
    throw new ApiError(
      "lead_not_unlocked",
      "This lead is on the workspace's suppression list (do not contact): no draft is written for it. Nothing was charged.",
    );
  }

  // A key or grant at its cap is refused by the hold, before any model is asked: its caps count
  // what it spent and what its other drafts in flight hold (settling checks again).
  const hold = await holdCredits(db, workspaceId, {
    credits: CREDITS_PER_DRAFT,
    purpose: "draft",
    ttlMs: deps.generator.maxDurationMs + HOLD_MARGIN_MS,
    describeShortfall: shortfall,
    spender: deps.spender,
  });
  try {
    return await draftWithHold(deps, workspaceId, { ...lead, audit }, requestedLocale, hold);
  } catch (error) {
    // Nothing was stored (the storing transaction rolled back): give the credit back.
    await releaseHold(db, hold).catch((releaseError: unknown) => {
      deps.logger?.warn(
        { err: releaseError, holdId: hold.id },
        "could not release a draft's credit hold; it lapses by itself",
      );
    });
    throw error;
  }
}

/** The lead, its place and its workspace's drafting settings; undefined when not in the workspace. */
function findLeadToDraft(db: Db, workspaceId: string, leadId: string) {
  return db
    .selectFrom("leads")
    .innerJoin("places", "places.place_id", "leads.place_id")
    .innerJoin("workspaces", "workspaces.id", "leads.workspace_id")
    .select([
      "leads.id",
      "leads.added_at",
      "places.place_id",
      "places.name",
      "places.category",
      "places.website",
      "places.address",
      "places.country",
      "places.user_rating_count",
      "workspaces.language",
      "workspaces.sender_name",
      "workspaces.sender_company",
      "workspaces.offer_en",
      "workspaces.offer_fr",
      "workspaces.postal_address",
    ])
    .where("leads.workspace_id", "=", workspaceId)
    .where("leads.id", "=", leadId)
    .executeTakeFirst();
}

/**
 * The lead's rank among its workspace's leads (oldest first): the leads one search saved have
 * consecutive ranks, so their drafts take different wordings (variety.ts).
 */
async function leadRank(db: Db, workspaceId: string, lead: { id: string; added_at: Date }): Promise<number> {
  const row = await db
    .selectFrom("leads")
    .select((eb) => eb.fn.countAll<string | number>().as("earlier"))
    .where("workspace_id", "=", workspaceId)
    .where((eb) =>
      eb.or([
        eb("added_at", "<", lead.added_at),
        eb.and([eb("added_at", "=", lead.added_at), eb("id", "<", lead.id)]),
      ]),
    )
    .executeTakeFirst();
  return Number(row?.earlier ?? 0);
}

type LeadRow = NonNullable<Awaited<ReturnType<typeof findLeadToDraft>>> & { audit: SiteAudit | null };

async function draftWithHold(
  deps: DraftOutreachDeps,
  workspaceId: string,
  lead: LeadRow,
  requestedLocale: Language | undefined,
  hold: CreditHold,
): Promise<DraftOutcome> {
  const { db } = deps;
  const { audit } = lead;
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
  const request: DraftRequest = {
    locale,
    business: { name: lead.name, category: lead.category, city: townOf(lead.address) },
    facts,
    sender: {
      name: lead.sender_name,
      company: lead.sender_company,
      // Only the offer of the draft's own language: never an English offer in a French draft.
      offer: locale === "fr" ? lead.offer_fr : lead.offer_en,
      postalAddress: lead.postal_address,
    },
    // Every address the service knows was read from the business's own homepage.
    emailFoundOnWebsite: contactEmailOf(audit ?? undefined) !== null,
    variant: await leadRank(db, workspaceId, lead),
  };
  const draft = await deps.generator.generate(request);
  // The one check every draft passes before it is stored and charged, whichever drafter wrote it.
  const problems = findDraftProblems(draft, request);
  if (problems.length > 0) {
    deps.logger?.warn(
      { problems, generator: deps.generator.name },
      "a produced draft failed the draft check",
    );
    throw new ApiError(
      "generation_failed",
      "The outreach draft could not be generated. Nothing was charged; please retry.",
    );
  }

  await db.transaction().execute(async (trx) => {
    await settleHold(trx, hold, shortfall, deps.spender);
    await insertDraft(trx, {
      workspaceId,
      leadId: lead.id,
      locale,
      generator: deps.generator.name,
      subject: draft.subject,
      body: draft.body,
      factsUsed: draft.facts_used,
    });
    await markLeadDrafted(trx, lead.id);
  });
  return { ...draft, generator: deps.generator.name, locale };
}
