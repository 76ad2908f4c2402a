import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { signIn } from "../../../shared/accounts/accounts.ts";
import { deleteExpiredSessions } from "../../../shared/accounts/sessions.ts";
import type { Account } from "../../../shared/db/schema.ts";
import { ApiError } from "../../../shared/errors.ts";
import { RateLimitStoreError } from "../../../shared/rate-limits.ts";
import type { Services } from "../../services.ts";
import { parseForm, signInForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { CONSOLE_PREFIX, safeNext } from "../paths.ts";
import { REFUSAL_MESSAGES, retryWait } from "../refusals.ts";
import { signInPage } from "../views/sign-in.ts";

const signInQuery = z.object({ next: z.string().optional(), signed_out: z.string().optional() });

/** Signing in and out. */
const signInRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db } = services;
  const signUpOpen = services.config.signUp === "open";

  app.get("/sign-in", async (request, reply) => {
    const query = signInQuery.catch({}).parse(request.query);
    const next = safeNext(query.next);
    if (request.consoleSession) return reply.redirect(next ?? CONSOLE_PREFIX, 303);
    return reply.render((context) =>
      signInPage(context, {
        next,
        signUpOpen,
        info: query.signed_out === "1" ? context.t.t("signedOut") : undefined,
      }),
    );
  });

  app.post("/sign-in", async (request, reply) => {
    const form = parseForm(signInForm, request.body);
    const next = safeNext(form.next);
    let account: Account;
    try {
      account = await signIn(
        { db, passwordLimiter: services.passwordLimiter, metrics: services.metrics },
        { email: form.email, password: form.password, address: request.ip },
      );
    } catch (error) {
      if (error instanceof RateLimitStoreError) {
        request.log.error({ err: error }, "sign-in rate-limit check failed");
        throw new PageError(503, "serverError");
      }
      if (!(error instanceof ApiError)) throw error;
      if (error.reason === "too_many_attempts") {
        const { seconds, minutes } = retryWait(error);
        return reply.header("retry-after", String(seconds)).render(
          (context) =>
            signInPage(context, {
              email: form.email,
              next,
              signUpOpen,
              error: context.t.t(REFUSAL_MESSAGES.too_many_attempts, { minutes }),
            }),
          429,
        );
      }
      if (error.reason !== "wrong_credentials") throw error;
      return reply.render(
        (context) =>
          signInPage(context, {
            email: form.email,
            next,
            signUpOpen,
            error: context.t.t(REFUSAL_MESSAGES.wrong_credentials),
          }),
        401,
      );
    }
    // Always a new session: whatever session id the browser had is dropped (no fixation).
    await deleteExpiredSessions(db);
    await reply.signIn(account.id);
    return reply.redirect(next ?? CONSOLE_PREFIX, 303);
  });

  app.post("/sign-out", async (_request, reply) => {
    await reply.signOut();
    return reply.redirect(`${CONSOLE_PREFIX}/sign-in?signed_out=1`, 303);
  });
};

export default signInRoutes;
