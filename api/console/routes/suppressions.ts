import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { invoke } from "../../../shared/operations/operation.ts";
import {
  suppressLeadOperation,
  suppressOperation,
  unsuppressOperation,
} from "../../../shared/operations/suppress.ts";
import { parseSuppressionCsv, suppressionRequestOf } from "../../../shared/suppressions/schemas.ts";
import { listSuppressions } from "../../../shared/suppressions/suppressions.ts";
import type { Services } from "../../services.ts";
import { doNotContactForm, parseForm, suppressionForm, suppressionImportForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { workspacePath } from "../paths.ts";
import { suppressionsPage } from "../views/suppressions.ts";
import { callerOf, idParam, membershipOf, noticeOf } from "../workspace-scope.ts";

/** The do-not-contact list (DESIGN "Lawful outreach"): the page, one entry, a CSV import, removal, a lead's button. */
const suppressionRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.get("/suppressions", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const summary = importSummary.exec(importedQuery.parse(request.query).imported ?? "");
    const entries = await listSuppressions(db, workspace_id);
    return reply.render((context) =>
      suppressionsPage(context, {
        workspaceId: workspace_id,
        entries,
        info: summary
          ? context.t.t("imported", { added: summary[1]!, known: summary[2]!, refused: summary[3]! })
          : noticeOf(request, context),
      }),
    );
  });

  app.post("/suppressions", async (request, reply) => {
    const { workspace_id, member_id } = membershipOf(request);
    const form = parseForm(suppressionForm, request.body);
    const entry = suppressionRequestOf(form.value, form.reason ?? undefined);
    if (entry === null) throw new PageError(400, "invalidInput", { detail: form.value });
    await invoke(suppressOperation, callerOf(request, services), {
      entries: [entry],
      added_by_member_id: member_id,
    });
    return reply.redirect(`${workspacePath(workspace_id, "suppressions")}?done=suppression_added`, 303);
  });

  app.post("/suppressions/import", async (request, reply) => {
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
const importedQuery = z.object({ imported: z.string().optional() }).catch({});

export default suppressionRoutes;
