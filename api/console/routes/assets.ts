import type { FastifyPluginAsync } from "fastify";
import { SCRIPT, SCRIPT_PATH, STYLESHEET, STYLESHEET_PATH } from "../assets.ts";
import { CONSOLE_PREFIX } from "../paths.ts";

/** The style sheet and script: content-addressed, cached for a year. */
const assetRoutes: FastifyPluginAsync = async (app) => {
  const asset = (path: string, contentType: string, body: string) =>
    app.get(path.slice(CONSOLE_PREFIX.length), async (_request, reply) =>
      reply
        .header("content-type", contentType)
        .header("cache-control", "public, max-age=31536000, immutable")
        .send(body),
    );
  asset(STYLESHEET_PATH, "text/css; charset=utf-8", STYLESHEET);
  asset(SCRIPT_PATH, "text/javascript; charset=utf-8", SCRIPT);
};

export default assetRoutes;
