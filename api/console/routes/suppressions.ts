import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { findLeadDetail } from "../../../shared/leads/leads.ts";
import type { SuppressionRequest } from "../../../shared/suppressions/schemas.ts";
import { parseSuppressionCsv, suppressionRequestOf } from "../../../shared/suppressions/schemas.ts";
import {
  addSuppression,
  listSuppressions,
  removeSuppression,
} from "../../../shared/suppressions/suppressions.ts";
import type { Services } from "../../services.ts";
import { doNotContactForm, parseForm, suppressionForm, suppressionImportForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { workspacePath } from "../paths.ts";
import { suppressionsPage } from "../views/suppressions.ts";
import { idParam, membershipOf, noticeOf } from "../workspace-scope.ts";

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
    await addSuppression(db, workspace_id, entry, member_id);
    return reply.redirect(`${workspacePath(workspace_id, "suppressions")}?done=suppression_added`, 303);
  });

  app.post("/suppressions/import", async (request, reply) => {
    const { workspace_id, member_id } = membershipOf(request);
    const { requests, refused } = parseSuppressionCsv(parseForm(suppressionImportForm, request.body).csv);
    let added = 0;
    for (const entry of requests) {
      if ((await addSuppression(db, workspace_id, entry, member_id)).created) added += 1;
    }
    const counts = `${added}-${requests.length - added}-${refused}`;
    return reply.redirect(`${workspacePath(workspace_id, "suppressions")}?imported=${counts}`, 303);
  });

  app.post("/suppressions/:entryId/remove", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    await removeSuppression(db, workspace_id, idParam(request, "entryId"));
    return reply.redirect(`${workspacePath(workspace_id, "suppressions")}?done=suppression_removed`, 303);
  });

  // A lead's "Do not contact" button: its place, and its address when one is known.
  app.post("/leads/:leadId/do-not-contact", async (request, reply) => {
    const { workspace_id, member_id } = membershipOf(request);
    const leadId = idParam(request, "leadId");
    const { reason } = parseForm(doNotContactForm, request.body);
    const lead = await findLeadDetail(db, workspace_id, leadId);
    if (!lead) throw new PageError(404, "notFound");
    const entries: SuppressionRequest[] = [{ place_id: lead.place_id }];
    if (lead.email !== null) entries.push({ email: lead.email });
    for (const entry of entries) {
      await addSuppression(db, workspace_id, reason ? { ...entry, reason } : entry, member_id);
    }
    return reply.redirect(`${workspacePath(workspace_id, `leads/${leadId}`)}?done=suppression_added`, 303);
  });
};

/** `?imported=added-known-refused` after an import's redirect. */
const importSummary = /^(\d+)-(\d+)-(\d+)$/;
const importedQuery = z.object({ imported: z.string().optional() }).catch({});

export default suppressionRoutes;
