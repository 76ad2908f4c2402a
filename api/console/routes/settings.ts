import type { FastifyPluginAsync } from "fastify";
import { requireWorkspace, updateWorkspaceSettings } from "../../../shared/workspaces/workspaces.ts";
import { parseForm, settingsForm } from "../forms.ts";
import { workspacePath } from "../paths.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { settingsPage } from "../views/settings.ts";
import { membershipOf, noticeOf } from "../workspace-scope.ts";

/** The workspace's settings: drafts' language, sender, offer. */
const settingsRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services }) => {
  const { db } = services;

  app.get("/settings", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const workspace = await requireWorkspace(db, workspace_id);
    return reply.render((context) => settingsPage(context, { workspace, info: noticeOf(request, context) }));
  });

  app.post("/settings", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    await updateWorkspaceSettings(db, workspace_id, parseForm(settingsForm, request.body));
    return reply.redirect(`${workspacePath(workspace_id, "settings")}?done=saved`, 303);
  });
};

export default settingsRoutes;
