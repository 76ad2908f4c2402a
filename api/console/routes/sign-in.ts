import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { checkCredentials } from "../../../shared/accounts/accounts.ts";
import { deleteExpiredSessions } from "../../../shared/accounts/sessions.ts";
import type { Services } from "../../services.ts";
import { parseForm, signInForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { CONSOLE_PREFIX, safeNext } from "../paths.ts";
import { signInPage } from "../views/sign-in.ts";

const signInQuery = z.object({ next: z.string().optional(), signed_out: z.string().optional() });

/** Signing in and out. */
const signInRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.get("/sign-in", async (request, reply) => {
    const query = signInQuery.catch({}).parse(request.query);
    const next = safeNext(query.next);
    if (request.consoleSession) return reply.redirect(next ?? CONSOLE_PREFIX, 303);
    return reply.render((context) =>
      signInPage(context, { next, info: query.signed_out === "1" ? context.t.t("signedOut") : undefined }),
    );
  });

  app.post("/sign-in", async (request, reply) => {
    const form = parseForm(signInForm, request.body);
    const next = safeNext(form.next);
    const decision = await services.signInLimiter.consume(form.email, request.ip).catch((error: unknown) => {
      request.log.error({ err: error }, "sign-in rate-limit check failed");
      throw new PageError(503, "serverError");
    });
    if (!decision.allowed) {
      const minutes = Math.ceil(decision.retryAfterSeconds / 60);
      return reply.header("retry-after", String(decision.retryAfterSeconds)).render(
        (context) =>
          signInPage(context, {
            email: form.email,
            next,
            error: context.t.t("tooManyAttempts", { minutes }),
          }),
        429,
      );
    }
    const account = await checkCredentials(db, form.email, form.password);
    if (!account) {
      return reply.render(
        (context) => signInPage(context, { email: form.email, next, error: context.t.t("wrongCredentials") }),
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
