import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { creditsOperation } from "../../shared/operations/credits.ts";
import type { Services } from "../services.ts";
import { operationRoute, performFor } from "./operation-route.ts";

const creditsRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    "/credits",
    operationRoute(creditsOperation, {
      operationId: "getCredits",
      summary: "Read the workspace credit balance",
      description: "Costs no credits.",
      tags: ["Credits"],
    }),
    async (request) => performFor(services, creditsOperation, request, {}),
  );
};

export default creditsRoutes;
