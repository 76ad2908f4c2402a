import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { ApiError } from "../../shared/errors.ts";

/**
 * Keys are server-side credentials, so a browser must never call /v1: any request carrying an
 * Origin header, and any CORS preflight, is refused before routing, auth or anything else runs.
 */
async function crossOriginPlugin(app: FastifyInstance): Promise<void> {
  app.addHook("onRequest", async (request) => {
    if (!request.url.startsWith("/v1/") && request.url !== "/v1") return;
    const preflight =
      request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
    if (request.headers.origin !== undefined || preflight) {
      throw new ApiError(
        "cross_origin_forbidden",
        "Cross-origin browser requests are refused: call the API from your server, never from browser code.",
      );
    }
  });
  // Next in the check order: an unmatched route is 404 before its body is read (no 413, no 400).
  app.addHook("onRequest", async (request) => {
    if (request.is404) {
      throw new ApiError("not_found", `No route matches ${request.method} ${request.url.split("?")[0]}.`);
    }
  });
}

export default fp(crossOriginPlugin, { name: "cross-origin" });
