import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { invoke } from "../../../shared/operations/operation.ts";
import {
  suppressLeadOperation,
  suppressOperation,
  unsuppressOperation,
} from "../../../shared/operations/suppress.ts";
import { parseSuppressionCsv, suppressionRequestOf } from "../../../shared/suppressions/schemas.ts";
import {
  countSuppressions,
  decodeSuppressionCursor,
  encodeSuppressionCursor,
  listSuppressionPage,
  type SuppressionCursor,
} from "../../../shared/suppressions/suppressions.ts";
import type { Services } from "../../services.ts";
import { doNotContactForm, parseForm, suppressionForm, suppressionImportForm } from "../forms.ts";
import { workspacePath } from "../paths.ts";
import { type SuppressionListing, suppressionsPage } from "../views/suppressions.ts";
import { callerOf, idParam, membershipOf, noticeOf } from "../workspace-scope.ts";

/** The do-not-contact list (DESIGN "Lawful outreach"): the page, one entry, a CSV import, removal, a lead's button. */
const suppressionRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  /** One page of the list, as the page shows it. */
  async function listingOf(
    workspaceId: string,
    after: SuppressionCursor | null,
    search: string,
  ): Promise<SuppressionListing> {
    const [page, total] = await Promise.all([
      listSuppressionPage(db, workspaceId, { limit: PAGE_SIZE, after, search }),
      countSuppressions(db, workspaceId),
    ]);
    return {
      entries: page.entries,
      total,
      max: services.config.suppressionsPerWorkspace,
      search,
      paged: after !== null,
      nextCursor: page.next === null ? null : encodeSuppressionCursor(page.next),
    };
  }

  app.get("/suppressions", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const query = listQuery.parse(request.query);
    const summary = importSummary.exec(query.imported ?? "");
    // A cursor the page did not write (edited by hand) is the first page, not an error.
    const after = query.after === undefined ? null : decodeSuppressionCursor(query.after);
    const listing = await listingOf(workspace_id, after, query.q ?? "");
    return reply.render((context) =>
      suppressionsPage(context, {
        workspaceId: workspace_id,
        listing,
        info: summary
          ? context.t.t("imported", {
              added: context.t.count("importedAdded", Number(summary[1])),
              known: summary[2]!,
              refused: context.t.count("importedRefused", Number(summary[3])),
            })
          : noticeOf(request, context),
      }),
    );
  });

  app.post("/suppressions", async (request, reply) => {
    const { workspace_id, member_id } = membershipOf(request);
    const form = parseForm(suppressionForm, request.body);
    const entry = suppressionRequestOf(form.value, form.reason ?? undefined);
    if (entry === null) {
      // The page again, with what was typed and why it was refused beside it: nothing is lost.
      const listing = await listingOf(workspace_id, null, "");
      return reply.render(
        (context) =>
          suppressionsPage(context, {
            workspaceId: workspace_id,
            listing,
            refused: {
              value: form.value,
              reason: form.reason ?? "",
              error: context.t.t("suppressionValueInvalid", { value: form.value }),
            },
          }),
        400,
      );
    }
    await invoke(suppressOperation, callerOf(request, services), {
      entries: [entry],
      added_by_member_id: member_id,
    });
    return reply.redirect(`${workspacePath(workspace_id, "suppressions")}?done=suppression_added`, 303);
  });

  // A pasted CSV of up to MAX_IMPORT_LINES lines is more than the app's 16 KB bodies.
  app.post("/suppressions/import", { bodyLimit: IMPORT_BODY_LIMIT_BYTES }, async (request, reply) => {
    const { workspace_id, member_id } = membershipOf(request);
    const { requests, refused } = parseSuppressionCsv(parseForm(suppressionImportForm, request.body).csv);
    const { added, known } =
      requests.length === 0
        ? { added: 0, known: 0 }
        : await invoke(suppressOperation, callerOf(request, services), {
            entries: requests,
            added_by_member_id: member_id,
          });
    return reply.redirect(
      `${workspacePath(workspace_id, "suppressions")}?imported=${added}-${known}-${refused}`,
      303,
    );
  });

  app.post("/suppressions/:entryId/remove", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    await invoke(unsuppressOperation, callerOf(request, services), { entry_id: idParam(request, "entryId") });
    return reply.redirect(`${workspacePath(workspace_id, "suppressions")}?done=suppression_removed`, 303);
  });

  app.post("/leads/:leadId/do-not-contact", async (request, reply) => {
    const { workspace_id, member_id } = membershipOf(request);
    const leadId = idParam(request, "leadId");
    const { reason } = parseForm(doNotContactForm, request.body);
    await invoke(suppressLeadOperation, callerOf(request, services), {
      lead_id: leadId,
      ...(reason ? { reason } : {}),
      added_by_member_id: member_id,
    });
    return reply.redirect(`${workspacePath(workspace_id, `leads/${leadId}`)}?done=suppression_added`, 303);
  });
};

/** `?imported=added-known-refused` after an import's redirect. */
const importSummary = /^(\d+)-(\d+)-(\d+)$/;
/** The page's query: a search (`q`), where the page starts (`after`), an import's summary. */
const listQuery = z
  .object({
    imported: z.string().optional().catch(undefined),
    q: z.string().max(300).optional().catch(undefined),
    after: z.string().max(100).optional().catch(undefined),
  })
  .catch({});
/** A form of MAX_IMPORT_LINES lines of an address and a short reason, URL-encoded. */
const IMPORT_BODY_LIMIT_BYTES = 1024 * 1024;
/** Entries a page shows (the list may hold thousands: SUPPRESSIONS_MAX_PER_WORKSPACE). */
const PAGE_SIZE = 100;

export default suppressionRoutes;
