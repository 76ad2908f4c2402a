import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { leadIdParams } from "../../shared/leads/schemas.ts";
import { getLeadOperation } from "../../shared/operations/get-lead.ts";
import { listLeadsOperation } from "../../shared/operations/list-leads.ts";
import type { Services } from "../services.ts";
import { operationRoute, performFor } from "./operation-route.ts";

const leadsRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    "/leads",
    operationRoute(listLeadsOperation, {
      operationId: "listLeads",
      summary: "List the workspace's saved leads, newest first",
      description: "Costs no credits. Pages are stable when leads share a timestamp.",
      tags: ["Leads"],
      querystring: listLeadsOperation.input,
    }),
    async (request) => performFor(services, listLeadsOperation, request, request.query),
  );

  app.get(
    "/leads/:id",
    operationRoute(getLeadOperation, {
      operationId: "getLead",
      summary: "Fetch one saved lead with its website-quality flags",
      description: "Costs no credits.",
      tags: ["Leads"],
      params: leadIdParams,
    }),
    async (request) => performFor(services, getLeadOperation, request, { lead_id: request.params.id }),
  );
};

export default leadsRoutes;
