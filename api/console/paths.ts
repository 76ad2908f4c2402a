/** Where the console lives; every page and form address is built here. */
export const CONSOLE_PREFIX = "/app";

export const inviteUrl = (publicUrl: string, token: string): string =>
  `${publicUrl}${CONSOLE_PREFIX}/invite/${token}`;

export const workspacePath = (workspaceId: string, page = ""): string =>
  `${CONSOLE_PREFIX}/w/${workspaceId}${page ? `/${page}` : ""}`;

/** Where sign-in may send the person afterwards: only our own console and consent pages. */
export function safeNext(next: unknown): string | undefined {
  if (typeof next !== "string" || next.length > 2000) return undefined;
  return /^\/(app(\/|$)|oauth\/authorize\?)/.test(next) && !next.startsWith("//") && !next.includes("\\")
    ? next
    : undefined;
}
