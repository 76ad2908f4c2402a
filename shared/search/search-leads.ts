import type { SiteAuditor } from "../audit/auditor.ts";
import {
  contactEmailOf,
  readCurrentAudits,
  readCurrentContactEmails,
  readFreshAudits,
} from "../audit/cache.ts";
import type { SiteAudit } from "../audit/types.ts";
import type { Spender } from "../auth.ts";
import type { CostGuard } from "../cost-guard.ts";
import { type Db, withDatabaseDeadline } from "../db/database.ts";
import type { Workspace } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { type LeadSummary, opportunityOf, type SavedLead } from "../leads/leads.ts";
import type { SearchMetrics, SearchOutcomeLabel } from "../metrics.ts";
import type { PlaceCandidate, PlacesProvider } from "../places/types.ts";
import type { Opportunity } from "../scoring/opportunity.ts";
import { hasSuppressionsSql, loadSuppressionsFor } from "../suppressions/suppressions.ts";
import { requireWorkspaceWith } from "../workspaces/workspaces.ts";
import { chargeAndSaveLeads } from "./save.ts";
import { type ScanDeps, type ScanResult, scanCandidates, type TruncationReason } from "./scan.ts";
import { MAX_FREE_TRIAL_QUERIES, requestedLiveFilters, type SearchRequest } from "./types.ts";

interface SearchResultLead extends LeadSummary {
  has_website: boolean;
  is_mobile_friendly: boolean | null;
  is_outdated: boolean | null;
  opportunity: Opportunity;
}

export interface SearchOutcome {
  results: SearchResultLead[];
  credits_spent: number;
  truncated: boolean;
  /** Why it is truncated (empty when it is not), for metrics. */
  truncatedBy: TruncationReason[];
  /** For metrics and logs. */
  live: { checked: number; unanswered: number } | null;
}

export interface SearchDeps {
  /** The API key or OAuth grant searching, held to its spending caps; absent for a console member. */
  spender?: Spender;
  db: Db;
  places: PlacesProvider | undefined;
  auditor: SiteAuditor | undefined;
  checkBudgetMs: number;
  /** See `ScanDeps.matchGraceMs`. */
  matchGraceMs?: number;
  logger: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
  /** Outcome, credits and audit-cache counts; optional (no metrics in some tests). */
  metrics?: SearchMetrics;
  /** Hourly limits on provider pages and live checks per workspace; absent: none. */
  costGuard?: CostGuard;
}

/** What a search may take beyond its checking budget to read the cache and save what it found. */
const SAVE_MARGIN_MS = 1_500;

/** POST /v1/searches: scan, then charge only new places and save them, in that order. */
export async function searchLeads(
  deps: SearchDeps,
  workspaceId: string,
  request: SearchRequest,
  signal?: AbortSignal,
): Promise<SearchOutcome> {
  try {
    // Every database call of the search, the save included, ends by the budget plus a margin: the
    // answer comes in time whatever PostgreSQL does (a 500 when it could not save, nothing charged).
    const outcome = await withDatabaseDeadline(Date.now() + deps.checkBudgetMs + SAVE_MARGIN_MS, () =>
      runSearch(deps, workspaceId, request, signal),
    );
    // `ok` as the log line says; a truncated answer is counted by its reasons besides.
    deps.metrics?.searchFinished("ok", outcome.credits_spent);
    if (outcome.truncatedBy.length > 0) deps.metrics?.searchTruncated(outcome.truncatedBy);
    return outcome;
  } catch (error) {
    const label = searchFailureLabel(error);
    if (label) deps.metrics?.searchFinished(label, 0);
    throw error;
  }
}

/** A request the client got wrong (400) is not a search that ran; 402 and server errors are. */
function searchFailureLabel(error: unknown): SearchOutcomeLabel | undefined {
  if (!(error instanceof ApiError)) return "error";
  if (error.code === "insufficient_credits") return "insufficient_credits";
  return error.status >= 500 ? "error" : undefined;
}

async function runSearch(
  deps: SearchDeps,
  workspaceId: string,
  request: SearchRequest,
  signal?: AbortSignal,
): Promise<SearchOutcome> {
  // The workspace and whether it has a do-not-contact list, in one round trip.
  const { workspace, alsoRead: anySuppressions } = await requireWorkspaceWith(
    deps.db,
    workspaceId,
    hasSuppressionsSql(workspaceId),
  );
  if (workspace.free_trial && request.queries.length > MAX_FREE_TRIAL_QUERIES) {
    throw new ApiError(
      "invalid_request",
      `body.queries: a free-trial workspace may send at most ${MAX_FREE_TRIAL_QUERIES} queries per search; buying credits lifts this.`,
    );
  }
  if (!deps.places) {
    throw new ApiError("internal_error", "Search is not available on this server. Nothing was charged.", {
      cause: new Error("no places provider configured (GOOGLE_PLACES_API_KEY or PLACES_FIXTURE_FILE)"),
    });
  }
  const allowances = deps.costGuard ? await costAllowances(deps.costGuard, workspace) : {};
  const suppression = anySuppressions ? suppressionFilter(deps.db, workspaceId) : undefined;

  const started = Date.now();
  const scan = await scanCandidates(request, {
    ...(suppression ? { suppression } : {}),
    ...allowances,
    places: deps.places,
    auditor: deps.auditor,
    readFreshAudits: async (sites) => {
      const fresh = await readFreshAudits(deps.db, sites, new Date());
      deps.metrics?.auditCacheLookups(fresh.size, sites.length - fresh.size);
      return fresh;
    },
    checkDeadline: started + deps.checkBudgetMs,
    ...(deps.matchGraceMs === undefined ? {} : { matchGraceMs: deps.matchGraceMs }),
    logger: deps.logger,
    signal,
  });

  if (scan.budgetRanOut) deps.metrics?.searchTruncatedByBudget();
  const { leads, creditsSpent, currentAudits } = await chargeAndSaveLeads(
    deps.db,
    workspaceId,
    scan.matches,
    deps.spender,
  );
  // The live check's matches carry their audit; the others show what the cache knows of their
  // site (read with the leads when the search changed nothing: their websites are the ones found).
  const cached =
    currentAudits ??
    (await readCurrentAudits(
      deps.db,
      scan.matches
        .filter((match) => match.audit === null)
        .map(({ candidate }) => ({ placeId: candidate.placeId, website: candidate.website })),
    ));

  return {
    results: resultLeads(scan, leads, cached),
    credits_spent: creditsSpent,
    truncated: scan.truncated,
    truncatedBy: scan.truncatedBy,
    live:
      requestedLiveFilters(request.filters).length > 0
        ? { checked: scan.liveChecked, unanswered: scan.liveUnanswered }
        : null,
  };
}

/**
 * The workspace's hourly allowances of provider pages and live checks. A search that cannot read
 * one provider page is refused whole (429, the first page is paid here); one that runs out of
 * pages or live checks mid-scan answers what it found, truncated.
 */
async function costAllowances(
  guard: CostGuard,
  workspace: Workspace,
): Promise<Pick<ScanDeps, "allowPage" | "allowLiveCheck">> {
  await guard.spendOrThrow(workspace, "provider_pages");
  let firstPagePaid = true;
  return {
    allowPage: async () => {
      if (firstPagePaid) {
        firstPagePaid = false;
        return true;
      }
      return guard.trySpend(workspace, "provider_pages");
    },
    allowLiveCheck: () => guard.trySpend(workspace, "live_checks"),
  };
}

/**
 * The suppression list: its places, addresses (those known from cached audits or found by this
 * search's checks) and domains are dropped before they are counted, charged or returned. Only the
 * entries that could match a page's candidates are read (an indexed lookup), never the whole list.
 */
function suppressionFilter(db: Db, workspaceId: string): NonNullable<ScanDeps["suppression"]> {
  return {
    async withoutSuppressed(candidates: PlaceCandidate[]) {
      const emails = await readCurrentContactEmails(
        db,
        candidates.map((candidate) => ({ placeId: candidate.placeId, website: candidate.website })),
      );
      const subjects = candidates.map((candidate) => ({
        placeId: candidate.placeId,
        website: candidate.website,
        email: emails.get(candidate.placeId) ?? null,
      }));
      const suppressions = await loadSuppressionsFor(db, workspaceId, subjects);
      return candidates.filter((_, index) => !suppressions.matches(subjects[index]!));
    },
    async coversAudit(audit: SiteAudit) {
      const email = contactEmailOf(audit);
      if (email === null) return false;
      const subject = { placeId: audit.place_id, website: null, email };
      return (await loadSuppressionsFor(db, workspaceId, [subject])).coversEmail(email);
    },
  };
}

/** The answer's leads, highest opportunity first, with what the audit (checked or cached) says. */
function resultLeads(
  scan: ScanResult,
  leads: Map<string, SavedLead>,
  cached: Map<string, SiteAudit>,
): SearchResultLead[] {
  const now = new Date();
  const inProviderOrder = scan.matches.map(({ candidate, category, audit: checked }): SearchResultLead => {
    const lead = leads.get(candidate.placeId);
    if (!lead) throw new Error(`lead for ${candidate.placeId} was not saved`);
    const audit = checked ?? cached.get(candidate.placeId);
    const signals = audit?.outcome === "ok" ? audit.signals : null;
    return {
      id: lead.id,
      place_id: candidate.placeId,
      name: candidate.name,
      category,
      address: candidate.address,
      website: candidate.website,
      phone: candidate.phone,
      email: contactEmailOf(audit),
      outreach_status: lead.outreach_status,
      added_at: lead.added_at,
      has_website: candidate.website !== null,
      is_mobile_friendly: signals?.not_mobile_friendly == null ? null : !signals.not_mobile_friendly,
      is_outdated: signals?.outdated_website ?? null,
      opportunity: opportunityOf(
        {
          website: candidate.website,
          country: candidate.country,
          user_rating_count: candidate.userRatingCount,
        },
        audit,
        now,
      ),
    };
  });
  // Highest score first; Array.prototype.sort is stable, so equal scores keep the provider's order.
  return inProviderOrder.toSorted((left, right) => right.opportunity.score - left.opportunity.score);
}
