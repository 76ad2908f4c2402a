import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { Db } from "../../shared/db/database.ts";
import { listMemberships } from "../../shared/workspaces/members.ts";
import { toApiError } from "../plugins/errors.ts";
import { describeProblems } from "./forms.ts";
import { languageFromHeader, type Translator, translator } from "./i18n.ts";
import { PAGE_HEADERS, type PageContext } from "./layout.ts";
import { PageError } from "./page-error.ts";
import { REFUSAL_MESSAGES, retryWait } from "./refusals.ts";
import { errorPage } from "./views/components.ts";

/** A page as a function of who is looking (language, CSRF token, account, workspace). */
type View = (context: PageContext) => string;

declare module "fastify" {
  interface FastifyReply {
    /** Renders the view for this request and sends it with the console's page headers (`headers` replace some). */
    render(view: View, status?: number, headers?: Record<string, string>): Promise<FastifyReply>;
  }
}

export const translatorOf = (request: FastifyRequest): Translator =>
  translator(
    request.consoleSession?.account.language ?? languageFromHeader(request.headers["accept-language"]),
  );

/** What the page's view needs to know about who is looking. */
async function contextOf(db: Db, request: FastifyRequest, reply: FastifyReply): Promise<PageContext> {
  const t = translatorOf(request);
  const csrf = reply.csrfToken();
  const session = request.consoleSession;
  if (!session) return { t, csrf };
  const membership = request.consoleMembership;
  const memberships = await listMemberships(db, session.account.id);
  return {
    t,
    csrf,
    account: session.account,
    canSwitch: memberships.length > 1,
    ...(membership ? { workspace: { id: membership.workspace_id, name: membership.workspace_name } } : {}),
  };
}

/** A thrown error as the page that explains it: 5xx masked, refusals in the member's words. */
function pageErrorOf(error: unknown, request: FastifyRequest): PageError {
  if (error instanceof PageError) return error;
  const apiError = toApiError(error, request);
  const known = apiError.reason ? REFUSAL_MESSAGES[apiError.reason] : undefined;
  if (apiError.status >= 500) return new PageError(apiError.status, "serverError");
  if (apiError.status === 404) return new PageError(404, known ?? "notFound");
  if (apiError.code === "insufficient_credits") return new PageError(402, "insufficientCredits");
  // The console's own per-minute budget (or an hourly cost limit): how long to wait, in words.
  if (apiError.code === "rate_limited" && !known) {
    return new PageError(429, "consoleRateLimited", { seconds: retryWait(apiError).seconds });
  }
  if (known) {
    const wait = apiError.code === "rate_limited" ? { minutes: retryWait(apiError).minutes } : undefined;
    return new PageError(apiError.status, known, wait);
  }
  return new PageError(apiError.status, "invalidInput", { detail: apiError.message });
}

/** The page error's message, a refused form's fields and reasons in the page's language. */
export function pageMessageOf(t: Translator, error: PageError): string {
  if (error.problems.length === 0) return t.t(error.key, error.values);
  return t.t(error.key, { ...error.values, detail: describeProblems(t, error.problems) });
}

/** The console's one renderer: every page, error pages included, goes out through `reply.render`. */
export default fp<{ db: Db }>(
  async (app, { db }) => {
    app.decorateReply(
      "render",
      async function (this: FastifyReply, view: View, status = 200, headers: Record<string, string> = {}) {
        const context = await contextOf(db, this.request, this);
        return this.code(status)
          .headers({ ...PAGE_HEADERS, ...headers })
          .send(view(context));
      },
    );

    app.setErrorHandler(async (error, request, reply) => {
      const pageError = pageErrorOf(error, request);
      if (pageError.status === 429 && !reply.hasHeader("retry-after")) {
        const retryAfter = toApiError(error, request).headers["Retry-After"];
        if (retryAfter) reply.header("retry-after", retryAfter);
      }
      const message = (context: PageContext) => pageMessageOf(context.t, pageError);
      return reply
        .render((context) => errorPage(context, message(context)), pageError.status)
        .catch(() => {
          // The error came from the session store itself: the page without account or workspace.
          const context = { t: translatorOf(request), csrf: "" };
          return reply
            .code(pageError.status)
            .headers(PAGE_HEADERS)
            .send(errorPage(context, message(context)));
        });
    });
  },
  { name: "console-renderer", dependencies: ["console-session"] },
);
