/** Where the console lives; every page and form address is built here. */
export const CONSOLE_PREFIX = "/app";

export const inviteUrl = (publicUrl: string, token: string): string =>
  `${publicUrl}${CONSOLE_PREFIX}/invite/${token}`;

export const workspacePath = (workspaceId: string, page = ""): string =>
  `${CONSOLE_PREFIX}/w/${workspaceId}${page ? `/${page}` : ""}`;
