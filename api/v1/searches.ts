import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { CREDITS_PER_NEW_PLACE, creditsInWords } from "../../shared/credits/prices.ts";
import { searchOperation } from "../../shared/operations/search.ts";
import { LIVE_FILTER_NAMES } from "../../shared/search/schemas.ts";
import type { Services } from "../services.ts";
import { operationRoute, performFor } from "./operation-route.ts";

const searchesRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.post(
    "/searches",
    operationRoute(searchOperation, {
      operationId: "createSearch",
      summary: "Run a bounded search and save the matches as leads",
      description: `Costs at most ${creditsInWords(CREDITS_PER_NEW_PLACE)} per new result; places already charged in this workspace are free. With ${LIVE_FILTER_NAMES} the call checks live websites and may take about 30 to 45 seconds.`,
      tags: ["Searches"],
      body: searchOperation.input,
    }),
    async (request) => performFor(services, searchOperation, request, request.body),
  );
};

export default searchesRoutes;
