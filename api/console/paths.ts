/** Where the console lives; every page and form address is built here. */
export const CONSOLE_PREFIX = "/app";

/** The session cookie: read by the console and by the OAuth consent page, so its path is `/`. */
export const SESSION_COOKIE = "ld_session";

export const inviteUrl = (publicUrl: string, token: string): string =>
  `${publicUrl}${CONSOLE_PREFIX}/invite/${token}`;

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

const INVITE_LINK = /^\/app\/invite\/([A-Za-z0-9_-]{43})(\?.*)?$/;
const inviteTokens = new WeakMap<object, string>();

/**
 * Fastify's `rewriteUrl`: an invite link's token leaves the URL before routing, so the request
 * log line shows `/app/invite`, never the secret; the page reads it back with `inviteTokenOf`.
 */
export function hideInviteToken(request: { url?: string; method?: string }): string {
  const url = request.url ?? "/";
  const match = request.method === "GET" || request.method === "HEAD" ? INVITE_LINK.exec(url) : null;
  if (!match?.[1]) return url;
  inviteTokens.set(request, match[1]);
  return `${CONSOLE_PREFIX}/invite${match[2] ?? ""}`;
}

export const inviteTokenOf = (rawRequest: object): string | undefined => inviteTokens.get(rawRequest);
