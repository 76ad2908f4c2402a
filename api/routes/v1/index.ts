import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { draftingDepsOf, type Services, searchDepsOf } from "../../services.ts";
import creditsRoutes from "./credits.ts";
import leadsRoutes from "./leads.ts";
import outreachDraftRoutes from "./outreach-drafts.ts";
import searchesRoutes from "./searches.ts";

/** Every route here is authenticated, then rate limited (check order: auth 401, then 429). */
const v1Routes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.addHook("onRequest", app.authenticate);
  app.addHook("onRequest", app.enforceRateLimit);
  await app.register(leadsRoutes, { db: services.db });
  await app.register(creditsRoutes, { db: services.db });
  await app.register(outreachDraftRoutes, {
    drafting: draftingDepsOf(services),
    spendDraftAttempt: services.spendDraftAttempt,
  });
  await app.register(searchesRoutes, { search: searchDepsOf(services) });
};

export default v1Routes;
