import { CONSOLE_PREFIX } from "../../shared/console-address.ts";
import { SECRET_BODY_SOURCE } from "../../shared/secrets.ts";

/** Where the console lives (below it, for the account mail); every page and form address is built here. */
export { CONSOLE_PREFIX };

/** The session cookie: read by the console and by the OAuth consent page, so its path is `/`. */
export const SESSION_COOKIE = "ld_session";

export const inviteUrl = (publicUrl: string, token: string): string =>
  `${publicUrl}${CONSOLE_PREFIX}/invite/${token}`;

export const passwordResetUrl = (publicUrl: string, token: string): string =>
  `${publicUrl}${CONSOLE_PREFIX}/reset-password/${token}`;

export const signUpConfirmUrl = (publicUrl: string, token: string): string =>
  `${publicUrl}${CONSOLE_PREFIX}/sign-up/confirm/${token}`;

export const workspacePath = (workspaceId: string, page = ""): string =>
  `${CONSOLE_PREFIX}/w/${workspaceId}${page ? `/${page}` : ""}`;

/**
 * Where sign-in may send the person afterwards: only our own console and consent pages, written
 * in the printable ASCII a Location header carries (our own links are percent-encoded; anything
 * else was typed or forged, and is dropped rather than failing the sign-in).
 */
export function safeNext(next: unknown): string | undefined {
  if (typeof next !== "string" || next.length > 2000 || !/^[\x21-\x7e]*$/.test(next)) return undefined;
  return /^\/(app(\/|$)|oauth\/authorize\?)/.test(next) && !next.startsWith("//") && !next.includes("\\")
    ? next
    : undefined;
}

/** The links whose last segment is a secret: an invite, a password reset, a sign-up's confirmation. */
const SECRET_LINK = new RegExp(
  `^/app/(invite|reset-password|sign-up/confirm)/(${SECRET_BODY_SOURCE})(\\?.*)?$`,
);
const linkTokens = new WeakMap<object, string>();

/**
 * Fastify's `rewriteUrl`: a mailed or shown link's token leaves the URL before routing, so the
 * request log line shows `/app/invite` (or `/app/reset-password`, `/app/sign-up/confirm`), never
 * the secret; the page reads it back with `linkTokenOf`.
 */
export function hideLinkToken(request: { url?: string; method?: string }): string {
  const url = request.url ?? "/";
  const match = request.method === "GET" || request.method === "HEAD" ? SECRET_LINK.exec(url) : null;
  if (!match?.[1] || !match[2]) return url;
  linkTokens.set(request, match[2]);
  return `${CONSOLE_PREFIX}/${match[1]}${match[3] ?? ""}`;
}

export const linkTokenOf = (rawRequest: object): string | undefined => linkTokens.get(rawRequest);
