import type { FastifyPluginAsync } from "fastify";
import { createApiKey, listApiKeys, revokeApiKey } from "../../../shared/workspaces/api-keys.ts";
import { keyForm, parseForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { workspacePath } from "../paths.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { confirmPage } from "../views/components.ts";
import { keysPage } from "../views/keys.ts";
import { idParam, membershipOf, noticeOf, redirectWithFlash, takeFlash } from "../workspace-scope.ts";

/** The workspace's API keys: list, create (shown once), revoke. */
const keyRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services, flash }) => {
  const { db } = services;

  app.get("/keys", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const shown = await takeFlash(request, flash);
    await services.keyUsage.flush();
    const keys = await listApiKeys(db, workspace_id);
    return reply.render((context) =>
      keysPage(context, {
        workspaceId: workspace_id,
        keys,
        info: noticeOf(request, context),
        error: shown === "gone" ? context.t.t("flashGone") : undefined,
        created: shown !== "gone" && shown?.kind === "key_created" ? shown : undefined,
      }),
    );
  });

  app.post("/keys", async (request, reply) => {
    const membership = membershipOf(request);
    const { name } = parseForm(keyForm, request.body);
    const created = await createApiKey(db, membership.workspace_id, {
      name,
      createdBy: membership.member_id,
    });
    const shown = { kind: "key_created" as const, name: created.name, key: created.key };
    // Shown once, after the redirect (never in a URL: the flash id only names it for this session).
    const redirected = await redirectWithFlash(
      request,
      reply,
      flash,
      workspacePath(membership.workspace_id, "keys"),
      shown,
    );
    if (redirected) return reply;
    const keys = await listApiKeys(db, membership.workspace_id);
    return reply.render(
      (context) => keysPage(context, { workspaceId: membership.workspace_id, keys, created: shown }),
      201,
    );
  });

  app.get("/keys/:keyId/revoke", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const keyId = idParam(request, "keyId");
    const key = (await listApiKeys(db, workspace_id)).find(
      (candidate) => candidate.id === keyId && !candidate.revoked_at,
    );
    if (!key) throw new PageError(404, "notFound");
    return reply.render((context) =>
      confirmPage(context, {
        title: context.t.t("revoke"),
        subject: key.name,
        question: context.t.t("revokeConfirm"),
        action: workspacePath(workspace_id, `keys/${key.id}/revoke`),
        button: context.t.t("revoke"),
        cancelHref: workspacePath(workspace_id, "keys"),
      }),
    );
  });

  app.post("/keys/:keyId/revoke", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    await revokeApiKey(db, workspace_id, idParam(request, "keyId"));
    return reply.redirect(`${workspacePath(workspace_id, "keys")}?done=revoked`, 303);
  });
};

export default keyRoutes;
