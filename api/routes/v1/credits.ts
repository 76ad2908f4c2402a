import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { readBalance } from "../../../shared/credits/ledger.ts";
import type { Db } from "../../../shared/db/database.ts";
import { principalOf } from "../../plugins/authentication.ts";
import { commonV1Errors, errorResponses, v1Security } from "../../schemas.ts";

const creditsSchema = z
  .object({ balance: z.number().int().describe("Remaining workspace credits") })
  .meta({ id: "Credits" });

const creditsRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get(
    "/credits",
    {
      config: { rateLimitBucket: "read" },
      schema: {
        operationId: "getCredits",
        summary: "Read the workspace credit balance",
        description: "Costs no credits.",
        tags: ["Credits"],
        security: v1Security,
        response: { 200: creditsSchema, ...errorResponses(commonV1Errors) },
      },
    },
    async (request) => ({ balance: await readBalance(db, principalOf(request).workspaceId) }),
  );
};

export default creditsRoutes;
