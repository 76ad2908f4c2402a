import type { FastifyPluginAsync } from "fastify";
import { readCreditHistory } from "../../../shared/console/workspace-views.ts";
import { requireWorkspace } from "../../../shared/workspaces/workspaces.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { creditsPage } from "../views/credits.ts";
import { membershipOf } from "../workspace-scope.ts";

/** The workspace's balance and credit history. */
const creditRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services }) => {
  const { db } = services;

  app.get("/credits", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const workspace = await requireWorkspace(db, workspace_id);
    const history = await readCreditHistory(db, workspace_id);
    return reply.render((context) =>
      creditsPage(context, {
        workspaceId: workspace_id,
        balance: workspace.balance,
        freeTrial: workspace.free_trial,
        history,
      }),
    );
  });
};

export default creditRoutes;
