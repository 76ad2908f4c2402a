import { readFile } from "node:fs/promises";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { CostLimits } from "../../shared/cost-guard.ts";
import { CREDITS_PER_NEW_PLACE, DRAFT_PRICE, SEARCH_PRICE } from "../../shared/credits/prices.ts";
import { MAX_LIVE_GRANTS_PER_MEMBER } from "../../shared/oauth/authorization.ts";
import { compressAnswers } from "../plugins/compression.ts";
import { errorResponses, publicRouteErrors } from "../schemas.ts";
import { factKeysTableMarkdown } from "./fact-keys-table.ts";
import { opportunityTableMarkdown } from "./opportunity-table.ts";

const referencePath = new URL("./reference.md", import.meta.url);

/** The app's own limits a customer meets: its per-member budget and the do-not-contact list's size. */
interface AppLimits {
  consoleRateLimits: { readPerMinute: number; searchPerMinute: number };
  suppressionsPerWorkspace: number;
}

/** The markdown reference, with the rate and cost limits in force filled in. */
async function renderReference(
  rateLimits: { readPerMinute: number; searchPerMinute: number },
  costLimits: CostLimits,
  appLimits: AppLimits,
) {
  const template = await readFile(referencePath, "utf8");
  let text = template
    .replaceAll("{{READ_PER_MIN}}", String(rateLimits.readPerMinute))
    .replaceAll("{{SEARCH_PER_MIN}}", String(rateLimits.searchPerMinute))
    .replaceAll("{{CONSOLE_READ_PER_MIN}}", String(appLimits.consoleRateLimits.readPerMinute))
    .replaceAll("{{CONSOLE_SEARCH_PER_MIN}}", String(appLimits.consoleRateLimits.searchPerMinute))
    .replaceAll("{{SUPPRESSIONS_MAX}}", appLimits.suppressionsPerWorkspace.toLocaleString("en-US"))
    .replaceAll("{{MAX_LIVE_GRANTS}}", String(MAX_LIVE_GRANTS_PER_MEMBER))
    .replaceAll("{{OPPORTUNITY_TABLE}}", opportunityTableMarkdown())
    .replaceAll("{{FACT_KEYS_TABLE}}", factKeysTableMarkdown())
    .replaceAll("{{SEARCH_PRICE}}", SEARCH_PRICE)
    .replaceAll("{{DRAFT_PRICE}}", DRAFT_PRICE)
    .replaceAll("{{CREDITS_PER_NEW_PLACE}}", String(CREDITS_PER_NEW_PLACE));
  for (const tier of ["paid", "free_trial"] as const) {
    for (const [kind, limit] of Object.entries(costLimits[tier])) {
      text = text.replaceAll(`{{${tier.toUpperCase()}_${kind.toUpperCase()}}}`, String(limit));
    }
  }
  return text;
}

const docsRoutes: FastifyPluginAsyncZod<{
  rateLimits: { readPerMinute: number; searchPerMinute: number };
  costLimits: CostLimits;
  appLimits: AppLimits;
}> = async (app, { rateLimits, costLimits, appLimits }) => {
  await compressAnswers(app);
  const reference = await renderReference(rateLimits, costLimits, appLimits);
  app.get(
    "/v1/docs",
    {
      schema: {
        operationId: "getDocs",
        summary: "Markdown reference of the API",
        description: "No authentication. Returns text/markdown.",
        tags: ["Reference"],
        security: [],
        response: {
          200: {
            description: "The API reference in markdown",
            content: { "text/markdown": { schema: z.string() } },
          },
          ...errorResponses("getDocs", ["cross_origin_forbidden", ...publicRouteErrors]),
        },
      },
    },
    async (_request, reply) => reply.type("text/markdown; charset=utf-8").send(reference),
  );
};

export default docsRoutes;
