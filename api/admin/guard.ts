import type { FastifyRequest } from "fastify";
import { ApiError } from "../../shared/errors.ts";
import { type AddressLimiter, addressLimited, consumeAddressOrThrow } from "../../shared/rate-limits.ts";
import { hashSecret, safeEqual } from "../../shared/secrets.ts";
import { routedPath } from "../plugins/cross-origin.ts";

const isAdminPath = (path: string) => /^\/+admin(\/|$)/i.test(path);

/**
 * The `/admin` token check, for every path under /admin, routed or not (an unknown admin route is
 * 401 to a stranger, never a 404 that maps the API). Wrong tokens are counted per client address;
 * an address over its limit is refused before its token is even compared.
 */
export function adminGuard(adminToken: string, limiter: AddressLimiter) {
  const expected = hashSecret(adminToken);
  return async (request: FastifyRequest): Promise<void> => {
    if (!isAdminPath(routedPath(request))) return;
    // A store outage must not lock the operator out: the count is then skipped, the token still checked.
    const remaining = await limiter.remaining("admin_failures", request.ip).catch(() => null);
    if (remaining !== null && remaining <= 0) throw addressLimited(limiter.limits.admin_failures.points);
    const token = /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? "")?.[1] ?? "";
    if (safeEqual(hashSecret(token), expected)) return;
    if (remaining !== null) await consumeAddressOrThrow(limiter, "admin_failures", request.ip);
    throw new ApiError("invalid_api_key", "Missing or wrong admin token.");
  };
}
