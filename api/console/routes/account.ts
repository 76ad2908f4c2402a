import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { changePassword, updateAccountProfile } from "../../../shared/accounts/accounts.ts";
import { ApiError } from "../../../shared/errors.ts";
import { parseForm, passwordForm, profileForm } from "../forms.ts";
import type { MessageKey } from "../i18n.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { REFUSAL_MESSAGES, retryWait } from "../refusals.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { requireSession } from "../session.ts";
import { accountPage } from "../views/account.ts";

const accountNotices: Record<string, MessageKey> = {
  saved: "saved",
  password: "passwordChanged",
  reset: "passwordReset",
};
const doneQuery = z.object({ done: z.string().optional() }).catch({});

/** The signed-in person's own profile and password. */
const accountRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services }) => {
  const { db } = services;

  app.get("/account", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const done = accountNotices[doneQuery.parse(request.query).done ?? ""];
    return reply.render((context) =>
      accountPage(context, { ...session.account, info: done ? context.t.t(done) : undefined }),
    );
  });

  app.post("/account/profile", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    await updateAccountProfile(db, session.account.id, parseForm(profileForm, request.body));
    return reply.redirect(`${CONSOLE_PREFIX}/account?done=saved`, 303);
  });

  app.post("/account/password", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const form = parseForm(passwordForm, request.body);
    try {
      await changePassword(
        { db, passwordLimiter: services.passwordLimiter },
        {
          accountId: session.account.id,
          address: request.ip,
          current: form.current_password,
          next: form.new_password,
          keepSessionToken: session.token,
        },
      );
    } catch (error) {
      if (!(error instanceof ApiError) || !error.reason) throw error;
      if (error.reason === "too_many_attempts") {
        const { seconds, minutes } = retryWait(error);
        return reply.header("retry-after", String(seconds)).render(
          (context) =>
            accountPage(context, {
              ...session.account,
              error: context.t.t("tooManyPasswordChecks", { minutes }),
            }),
          429,
        );
      }
      const key = REFUSAL_MESSAGES[error.reason];
      return reply.render(
        (context) => accountPage(context, { ...session.account, error: context.t.t(key) }),
        400,
      );
    }
    return reply.redirect(`${CONSOLE_PREFIX}/account?done=password`, 303);
  });
};

export default accountRoutes;
