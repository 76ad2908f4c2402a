import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ApiError } from "../../shared/errors.ts";

/**
 * The path as the router sees it: the matched route's pattern, else the request target without
 * an absolute-form `scheme://host`, without its query, percent-decoded (`/%761` is `/v1`).
 */
export function routedPath(request: FastifyRequest): string {
  const pattern = request.routeOptions.url;
  if (pattern !== undefined) return pattern;
  let target = request.raw.url ?? request.url;
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (absolute) target = target.slice(absolute[0].length) || "/";
  const path = target.split(/[?#]/, 1)[0] ?? "/";
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

const isV1Path = (path: string) => /^\/+v1(\/|$)/i.test(path);

/** 403 for a browser's request (an Origin header, or a CORS preflight) to anything under /v1. */
export function crossOriginRefusal(request: FastifyRequest): ApiError | null {
  if (!isV1Path(routedPath(request))) return null;
  const preflight =
    request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
  if (request.headers.origin === undefined && !preflight) return null;
  return new ApiError(
    "cross_origin_forbidden",
    "Cross-origin browser requests are refused: call the API from your server, never from browser code.",
  );
}

/** An unmatched route is 404 before its body is read (no 413, no 400): after cross-origin and /admin's token. */
export async function refuseUnmatchedRoute(request: FastifyRequest): Promise<void> {
  if (request.is404) throw notFound(request);
}

/**
 * Keys are server-side credentials, so a browser must never call /v1: any request carrying an
 * Origin header, and any CORS preflight, is refused before auth or anything else runs. Decided
 * on the path the router decoded (and on the decoded target when no route matched), so neither
 * `/%761/credits` nor an absolute-form target slips past it.
 */
async function crossOriginPlugin(app: FastifyInstance): Promise<void> {
  app.addHook("onRequest", async (request) => {
    const refusal = crossOriginRefusal(request);
    if (refusal) throw refusal;
  });
}

/** Names the method and the route's path, never more than a short prefix of what the client sent. */
export function notFound(request: FastifyRequest): ApiError {
  const path = routedPath(request);
  const shown = path.length > 100 ? `${path.slice(0, 100)}…` : path;
  return new ApiError("not_found", `No route matches ${request.method} ${shown}.`);
}

export default fp(crossOriginPlugin, { name: "cross-origin" });
