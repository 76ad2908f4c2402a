import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { listConnectedApps, revokeConnectedApp } from "../../../shared/oauth/grants.ts";
import type { Services } from "../../services.ts";
import { PageError } from "../page-error.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { requireSession } from "../session.ts";
import { connectedAppsPage } from "../views/connected-apps.ts";
import { idParam } from "../workspace-scope.ts";

const doneQuery = z.object({ done: z.string().optional() }).catch({});

/** The OAuth grants this person approved, across their workspaces: listed and revoked here. */
const connectedAppRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.get("/account/apps", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const apps = await listConnectedApps(db, session.account.id);
    const disconnected = doneQuery.parse(request.query).done === "disconnected";
    return reply.render((context) =>
      connectedAppsPage(context, { apps, info: disconnected ? context.t.t("appDisconnected") : undefined }),
    );
  });

  app.post("/account/apps/:grantId/revoke", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    // Only a grant of this person's own memberships: another's is "nothing here".
    if (!(await revokeConnectedApp(db, session.account.id, idParam(request, "grantId")))) {
      throw new PageError(404, "notFound");
    }
    return reply.redirect(`${CONSOLE_PREFIX}/account/apps?done=disconnected`, 303);
  });
};

export default connectedAppRoutes;
