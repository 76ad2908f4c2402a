import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Services } from "../services.ts";
import creditsRoutes from "./credits.ts";
import leadsRoutes from "./leads.ts";
import outreachDraftRoutes from "./outreach-drafts.ts";
import searchesRoutes from "./searches.ts";

/**
 * Every route here is an operation of shared/operations: authenticated, then admitted by its
 * operation's rate-limit bucket (check order: auth 401, then 429), then performed.
 */
const v1Routes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.addHook("onRequest", app.authenticate);
  app.addHook("onRequest", app.enforceRateLimit);
  await app.register(leadsRoutes, { services });
  await app.register(creditsRoutes, { services });
  await app.register(outreachDraftRoutes, { services });
  await app.register(searchesRoutes, { services });
};

export default v1Routes;
