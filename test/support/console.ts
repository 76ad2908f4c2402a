import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { adminRequest } from "./app.ts";

/**
 * A browser for the console over `inject`: keeps cookies, reads each page's CSRF token, and
 * follows nothing by itself (tests assert the redirects).
 */
export class ConsoleBrowser {
  readonly cookies = new Map<string, string>();
  readonly #app: FastifyInstance;

  constructor(app: FastifyInstance) {
    this.#app = app;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  #remember(response: LightMyRequestResponse): LightMyRequestResponse {
    const setCookie = response.headers["set-cookie"];
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair = ""] = line.split(";");
      const separator = pair.indexOf("=");
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      if (/Max-Age=0/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.#remember(
      await this.#app.inject({ method: "GET", url, headers: { cookie: this.cookieHeader, ...headers } }),
    );
  }

  /** Posts a form as the page at `formPage` would (its CSRF token included unless given). */
  async submit(
    formPage: string,
    action: string,
    fields: Record<string, string>,
  ): Promise<LightMyRequestResponse> {
    const page = await this.get(formPage);
    return this.post(action, { csrf_token: csrfOf(page.body), ...fields });
  }

  async post(url: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.#remember(
      await this.#app.inject({
        method: "POST",
        url,
        headers: { cookie: this.cookieHeader, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams(fields).toString(),
      }),
    );
  }
}

export function csrfOf(html: string): string {
  const token = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error(`no CSRF token on the page:\n${html.slice(0, 500)}`);
  return token;
}

export const PASSWORD = "correct horse battery";

/** An invite from the operator, as `npm run admin -- members invite` makes it. */
export async function inviteByAdmin(
  app: FastifyInstance,
  workspaceId: string,
  email: string,
): Promise<string> {
  const invite = await adminRequest(app, "POST", `/admin/workspaces/${workspaceId}/invites`, { email });
  if (invite.statusCode !== 201) throw new Error(`invite: ${invite.statusCode} ${invite.body}`);
  return new URL(invite.json().url as string).pathname;
}

/** A person who joined the workspace through an invite and is signed in. */
export async function signedUpMember(
  app: FastifyInstance,
  workspaceId: string,
  email: string,
  name = "Camille Martin",
): Promise<ConsoleBrowser> {
  const browser = new ConsoleBrowser(app);
  const invitePath = await inviteByAdmin(app, workspaceId, email);
  const joined = await browser.submit(invitePath, "/app/invite", {
    token: tokenOf(invitePath),
    name,
    password: PASSWORD,
  });
  if (joined.statusCode !== 303) throw new Error(`join: ${joined.statusCode} ${joined.body.slice(0, 300)}`);
  return browser;
}

/** The secret of an invite link's path (its last segment). */
export const tokenOf = (invitePath: string): string => invitePath.split("/").at(-1) ?? "";

/**
 * Every route of `app` as `METHOD /path` (HEAD left out), read from Fastify's own route tree:
 * in `printRoutes`, each line is a piece of path below the line it is indented under.
 */
export function routeList(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const paths: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split("\n")) {
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? "").length / 4;
    const path = (paths[depth - 1] ?? "") + match[2];
    paths.length = depth;
    paths.push(path);
    for (const method of (match[3] ?? "").split(", ")) {
      if (method !== "" && method !== "HEAD") routes.push(`${method} ${path}`);
    }
  }
  return routes;
}
