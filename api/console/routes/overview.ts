import type { FastifyPluginAsync } from "fastify";
import { readWorkspaceOverview } from "../../../shared/console/workspace-views.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { overviewPage } from "../views/overview.ts";
import { membershipOf } from "../workspace-scope.ts";

/** The workspace's overview: balance, leads, drafts, keys. */
const overviewRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services }) => {
  app.get("/", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const overview = await readWorkspaceOverview(services.db, workspace_id);
    return reply.render((context) => overviewPage(context, overview, workspace_id));
  });
};

export default overviewRoutes;
