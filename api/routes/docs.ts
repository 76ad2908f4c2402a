import { readFile } from "node:fs/promises";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";

const referencePath = new URL("../docs/reference.md", import.meta.url);

/** The markdown reference, with the rate limits in force filled in. */
export async function renderReference(rateLimits: { readPerMinute: number; searchPerMinute: number }) {
  const template = await readFile(referencePath, "utf8");
  return template
    .replaceAll("{{READ_PER_MIN}}", String(rateLimits.readPerMinute))
    .replaceAll("{{SEARCH_PER_MIN}}", String(rateLimits.searchPerMinute));
}

const docsRoutes: FastifyPluginAsyncZod<{
  rateLimits: { readPerMinute: number; searchPerMinute: number };
}> = async (app, { rateLimits }) => {
  const reference = await renderReference(rateLimits);
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
        },
      },
    },
    async (_request, reply) => reply.type("text/markdown; charset=utf-8").send(reference),
  );
};

export default docsRoutes;
