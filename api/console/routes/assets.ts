import { readFile } from "node:fs/promises";
import type { FastifyPluginAsync } from "fastify";
import { FAVICON_PATH, SCRIPT, SCRIPT_PATH, STYLESHEET, STYLESHEET_PATH } from "../assets.ts";
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

/**
 * The icon every page links to, at the root where browsers also look for it unasked (a 404 there
 * is logged as an error in each page's console). Its name is fixed, so it is cached for a day only.
 */
export const faviconRoutes: FastifyPluginAsync = async (app) => {
  const icon = await readFile(new URL("../favicon.ico", import.meta.url));
  app.get(FAVICON_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header("content-type", "image/x-icon")
      .header("cache-control", "public, max-age=86400")
      .header("x-content-type-options", "nosniff")
      .send(icon),
  );
};

export default assetRoutes;
