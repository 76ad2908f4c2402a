import { Readable } from "node:stream";
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import {
  findLeadWithEvidence,
  type LeadWithEvidence,
  listLeadsByScore,
  listLeadsWithEvidence,
} from "../../../shared/console/workspace-views.ts";
import { listDraftsOfLead } from "../../../shared/drafting/drafts.ts";
import { ApiError, type ErrorCode } from "../../../shared/errors.ts";
import { decodeCursor } from "../../../shared/leads/cursor.ts";
import { outreachStatusSchema } from "../../../shared/leads/schemas.ts";
import { draftOperation } from "../../../shared/operations/draft.ts";
import { exportLeadsOperation } from "../../../shared/operations/export-leads.ts";
import { getLeadWithEvidenceOperation } from "../../../shared/operations/get-lead.ts";
import { markLeadOperation } from "../../../shared/operations/mark-lead.ts";
import { invoke } from "../../../shared/operations/operation.ts";
import { findMatchingSuppression } from "../../../shared/suppressions/suppressions.ts";
import { requireWorkspace } from "../../../shared/workspaces/workspaces.ts";
import { bulkDraftForm, draftForm, formError, markForm, parseForm } from "../forms.ts";
import type { MessageKey, Translator } from "../i18n.ts";
import { PageError } from "../page-error.ts";
import { workspacePath } from "../paths.ts";
import { pageMessageOf } from "../renderer.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { type BulkDraftLine, leadPage, leadsPage, whoSuppressed } from "../views/leads.ts";
import { callerOf, idParam, membershipOf, noticeOf } from "../workspace-scope.ts";

/** What a lead is matched against the do-not-contact list by. */
const suppressionSubjectOf = (lead: LeadWithEvidence) => ({
  placeId: lead.place_id,
  website: lead.website,
  email: lead.email,
});

/** Why a draft was refused, in the member's words (the API's messages are English). */
const DRAFT_REFUSALS: Partial<Record<ErrorCode, MessageKey>> = {
  insufficient_credits: "insufficientCredits",
  insufficient_audit_data: "nothingVerified",
  generation_failed: "generationFailed",
  rate_limited: "tooManyRequests",
  lead_not_unlocked: "draftRefusedContact",
};

/** A draft refusal in the member's words; for a listed business, who listed it (the entry knows). */
async function draftRefusalWords(
  db: ConsoleRouteOptions["services"]["db"],
  workspaceId: string,
  leadId: string,
  error: ApiError,
): Promise<(t: Translator) => string> {
  if (error.code === "lead_not_unlocked") {
    const lead = await findLeadWithEvidence(db, workspaceId, leadId);
    const entry = lead && (await findMatchingSuppression(db, workspaceId, suppressionSubjectOf(lead)));
    if (entry) return (t) => whoSuppressed(t, entry);
  }
  const key = DRAFT_REFUSALS[error.code];
  return key ? (t) => t.t(key) : () => error.message;
}

const listQuery = z
  .object({
    cursor: z.string().optional(),
    // An empty choice ("All statuses") is no filter.
    status: z.preprocess((value) => (value === "" ? undefined : value), outreachStatusSchema.optional()),
    // Highest opportunity score first; pages then go by number (the score is not a column).
    sort: z.literal("score").optional().catch(undefined),
    page: z
      .string()
      .regex(/^[1-9]\d{0,4}$/)
      .transform(Number)
      .optional()
      .catch(undefined),
  })
  .catch({});

/** The workspace's leads: the list, the CSV export, one lead with its drafts, a new draft. */
const leadRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services }) => {
  const { db } = services;

  app.get("/leads", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const { cursor: raw, status, sort, page: pageNumber = 1 } = listQuery.parse(request.query);
    const workspace = await requireWorkspace(db, workspace_id);
    if (sort === "score") {
      const ranked = await listLeadsByScore(db, workspace_id, { limit: 25, page: pageNumber, status });
      return reply.render((context) =>
        leadsPage(context, {
          workspaceId: workspace_id,
          leads: ranked.leads,
          nextCursor: null,
          paged: pageNumber > 1,
          status,
          byScore: { page: pageNumber, hasNext: ranked.hasNext },
          language: workspace.language,
        }),
      );
    }
    const after = raw === undefined ? null : decodeCursor(raw);
    if (raw !== undefined && !after) throw new PageError(400, "invalidInput", { detail: "cursor" });
    const page = await listLeadsWithEvidence(db, workspace_id, { limit: 25, after, status });
    return reply.render((context) =>
      leadsPage(context, {
        workspaceId: workspace_id,
        leads: page.leads,
        nextCursor: page.next_cursor,
        paged: after !== null,
        status,
        language: workspace.language,
      }),
    );
  });

  bulkDraftRoute(app, services);

  app.post("/leads/:leadId/mark", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const leadId = idParam(request, "leadId");
    const form = markForm.safeParse(request.body);
    // A lead of another workspace is a 404 whatever the form says.
    if (!form.success) {
      return renderLead(request, reply, {
        error: (t) => pageMessageOf(t, formError([{ field: "status", reason: "notOffered" }])),
        status: 400,
      });
    }
    const { status } = form.data;
    await invoke(markLeadOperation, callerOf(request, services), { lead_id: leadId, status });
    return reply.redirect(`${workspacePath(workspace_id, `leads/${leadId}`)}?done=${status}`, 303);
  });

  csvExportRoute(app, services);

  app.get("/leads/:leadId", async (request, reply) => {
    // The lead read of every door (read bucket, log line), with the evidence the page shows.
    const lead = await invoke(getLeadWithEvidenceOperation, callerOf(request, services), {
      lead_id: idParam(request, "leadId"),
    });
    return renderLead(request, reply, { lead });
  });

  app.post("/leads/:leadId/draft", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const leadId = idParam(request, "leadId");
    const { locale } = parseForm(draftForm, request.body);
    try {
      // The draft operation of every door: read bucket, hourly draft-attempt limit, same charge.
      await invoke(draftOperation, callerOf(request, services), { lead_id: leadId, locale });
    } catch (error) {
      if (
        !(error instanceof ApiError) ||
        error.status === 404 ||
        (error.status >= 500 && error.code !== "generation_failed")
      )
        throw error;
      reply.headers(error.headers);
      return renderLead(request, reply, {
        error: await draftRefusalWords(db, workspace_id, leadId, error),
        status: error.status,
      });
    }
    return reply.redirect(`${workspacePath(workspace_id, `leads/${leadId}`)}?done=drafted`, 303);
  });

  /**
   * The lead page: the lead as the caller already has it (the get-lead operation's answer), else
   * read here (a refused mark or draft shows the page again), with its drafts.
   */
  async function renderLead(
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: { lead?: LeadWithEvidence; error?: (t: Translator) => string; status?: number } = {},
  ) {
    const { workspace_id } = membershipOf(request);
    const leadId = idParam(request, "leadId");
    const lead = outcome.lead ?? (await findLeadWithEvidence(db, workspace_id, leadId));
    if (!lead) throw new PageError(404, "notFound");
    const workspace = await requireWorkspace(db, workspace_id);
    const drafts = await listDraftsOfLead(db, workspace_id, leadId);
    // A listed business's page says so at once (who listed it, when, why) and offers no draft.
    const suppression = await findMatchingSuppression(db, workspace_id, suppressionSubjectOf(lead));
    return reply.render(
      (context) =>
        leadPage(context, {
          workspaceId: workspace_id,
          lead,
          drafts,
          suppression,
          language: workspace.language,
          info: noticeOf(request, context),
          error: outcome.error?.(context.t),
        }),
      outcome.status,
    );
  }
};

/**
 * `POST /leads/draft`: drafts the ticked leads, one after the other, each one call of the draft
 * operation (its bucket, its hourly limit, its 1 credit); stops at the first refusal of credit (or of rate).
 */
function bulkDraftRoute(app: FastifyInstance, services: ConsoleRouteOptions["services"]): void {
  const { db } = services;
  app.post("/leads/draft", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const form = bulkDraftForm.safeParse(request.body);
    const workspace = await requireWorkspace(db, workspace_id);
    const page = await listLeadsWithEvidence(db, workspace_id, { limit: 25, after: null });
    // The answer is the leads list's first page, with what came of the drafting above it.
    const firstPage = {
      workspaceId: workspace_id,
      leads: page.leads,
      nextCursor: page.next_cursor,
      paged: false,
      status: undefined,
      language: workspace.language,
    };
    if (!form.success) {
      return reply.render(
        (context) => leadsPage(context, { ...firstPage, error: context.t.t("noLeadSelected") }),
        400,
      );
    }
    const { locale, lead_id: leadIds } = form.data;
    const names = new Map(page.leads.map((lead) => [lead.id, lead.name]));
    // Each line's words are drawn with the page, in the member's language.
    const lines: (Omit<BulkDraftLine, "reason"> & { words?: (t: Translator) => string })[] = [];
    let drafted = 0;
    let stoppedBy: string | null = null;
    for (const leadId of leadIds) {
      const name = names.get(leadId) ?? leadId;
      if (stoppedBy !== null) {
        lines.push({ name, outcome: "not_reached" });
        continue;
      }
      try {
        await invoke(draftOperation, callerOf(request, services), { lead_id: leadId, locale });
        drafted += 1;
        lines.push({ name, outcome: "drafted" });
      } catch (error) {
        if (!(error instanceof ApiError) || (error.status >= 500 && error.code !== "generation_failed"))
          throw error;
        // A listed business's line says who listed it, when and why, as the single draft's refusal does.
        const words = await draftRefusalWords(db, workspace_id, leadId, error);
        const stops = error.code === "insufficient_credits" || error.code === "rate_limited";
        if (stops) stoppedBy = error.code;
        lines.push({ name, outcome: stops ? "stopped" : "skipped", words });
      }
    }
    return reply.render((context) => {
      const t = context.t;
      const bulk = lines.map(({ words, ...line }) => ({
        ...line,
        reason:
          line.outcome === "drafted"
            ? t.t("bulkLineDrafted")
            : line.outcome === "not_reached"
              ? t.t("bulkLineNotReached")
              : (words?.(t) ?? ""),
      }));
      const summary = t.t("bulkDrafted", { count: drafted, total: leadIds.length });
      return leadsPage(context, {
        ...firstPage,
        bulk,
        ...(stoppedBy === null ? { info: summary } : { error: `${summary} ${t.t("bulkStopped")}` }),
      });
    });
  });
}

/** `GET /leads.csv`: the workspace's leads as a CSV file, the export operation's lines. */
function csvExportRoute(app: FastifyInstance, services: ConsoleRouteOptions["services"]): void {
  app.get("/leads.csv", async (request, reply) => {
    const lines = await invoke(exportLeadsOperation, callerOf(request, services), {});
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", 'attachment; filename="leads.csv"')
      .header("cache-control", "no-store")
      .send(Readable.from(lines));
  });
}

export default leadRoutes;
