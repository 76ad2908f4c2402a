import type { FastifyPluginAsync } from "fastify";
import { listMemberships } from "../../../shared/workspaces/members.ts";
import { workspacePath } from "../paths.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { requireSession } from "../session.ts";
import { workspacesPage } from "../views/workspaces.ts";

/** The console's home: the one workspace, or the choice between several. */
const workspacesRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services }) => {
  const { db } = services;

  app.get("/", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const memberships = await listMemberships(db, session.account.id);
    const only = memberships[0];
    if (memberships.length === 1 && only) return reply.redirect(workspacePath(only.workspace_id), 303);
    return reply.render((context) => workspacesPage(context, memberships));
  });

  app.get("/workspaces", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const memberships = await listMemberships(db, session.account.id);
    return reply.render((context) => workspacesPage(context, memberships));
  });
};

export default workspacesRoutes;
