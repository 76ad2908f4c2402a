import type { FastifyPluginAsync } from "fastify";
import { compressAnswers } from "../plugins/compression.ts";
import type { Services } from "../services.ts";
import { createFlashStore } from "./flash.ts";
import renderer from "./renderer.ts";
import accountRoutes from "./routes/account.ts";
import assetRoutes from "./routes/assets.ts";
import connectedAppRoutes from "./routes/connected-apps.ts";
import creditRoutes from "./routes/credits.ts";
import inviteRoutes from "./routes/invite.ts";
import keyRoutes, { keyCapsRoutes } from "./routes/keys.ts";
import leadRoutes from "./routes/leads.ts";
import memberRoutes, { memberInviteRoutes } from "./routes/members.ts";
import overviewRoutes from "./routes/overview.ts";
import passwordResetRoutes from "./routes/password-reset.ts";
import searchRoutes from "./routes/search.ts";
import settingsRoutes from "./routes/settings.ts";
import signInRoutes from "./routes/sign-in.ts";
import signUpRoutes from "./routes/sign-up.ts";
import suppressionRoutes from "./routes/suppressions.ts";
import workspacesRoutes from "./routes/workspaces.ts";
import session from "./session.ts";
import { errorPage } from "./views/components.ts";
import workspaceScope from "./workspace-scope.ts";

/**
 * The member console under /app: server-rendered pages over the same domain functions as the
 * API, one file of routes per page group (`routes/`), one of templates per page (`views/`).
 * Routes stay thin: they parse the form, call `shared/`, and render.
 */
const consoleRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db, config } = services;
  const flash = createFlashStore(services.redis, (error) =>
    app.log.error({ err: error }, "console flash store unavailable"),
  );
  app.addHook("onRoute", (route) => {
    // Pages, not API: kept out of /openapi.json.
    route.schema = { ...route.schema, hide: true };
  });
  await compressAnswers(app);
  await app.register(session, { db, secureCookies: config.publicUrl.startsWith("https:") });
  await app.register(renderer, { db });
  app.setNotFoundHandler(async (_request, reply) =>
    reply.render((context) => errorPage(context, context.t.t("notFound")), 404),
  );

  await app.register(assetRoutes);
  for (const routes of [signInRoutes, inviteRoutes, connectedAppRoutes, passwordResetRoutes]) {
    await app.register(routes, { services });
  }
  for (const routes of [workspacesRoutes, accountRoutes]) await app.register(routes, { services, flash });
  // Self-serve sign-up exists only when the operator opened it (SIGNUP=open, with mail).
  if (config.signUp === "open") await app.register(signUpRoutes, { services, flash });
  await app.register(
    async (workspace) => {
      await workspace.register(workspaceScope, { db });
      for (const routes of [
        overviewRoutes,
        searchRoutes,
        keyRoutes,
        keyCapsRoutes,
        memberRoutes,
        memberInviteRoutes,
        settingsRoutes,
        leadRoutes,
        suppressionRoutes,
        creditRoutes,
      ]) {
        await workspace.register(routes, { services, flash });
      }
    },
    { prefix: "/w/:workspaceId" },
  );
};

export default consoleRoutes;
