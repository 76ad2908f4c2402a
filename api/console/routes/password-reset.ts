import type { FastifyPluginAsync } from "fastify";
import {
  createPasswordReset,
  findOpenPasswordReset,
  resetPassword,
} from "../../../shared/accounts/password-resets.ts";
import { accountMail } from "../../../shared/mail/account-mail.ts";
import type { Services } from "../../services.ts";
import { spendAccountMail } from "../account-mail.ts";
import { forgotPasswordForm, parseForm, resetPasswordForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { CONSOLE_PREFIX, linkTokenOf, passwordResetUrl } from "../paths.ts";
import { REFUSAL_MESSAGES, refusalOf } from "../refusals.ts";
import { forgotPasswordPage, resetPasswordPage } from "../views/password-reset.ts";

/**
 * Password reset: a single-use link (1 hour) mailed to the account's address when SMTP_URL is
 * set, or made by the operator (`npm run admin -- accounts reset-link`). Using it sets the new
 * password and ends every session and every connected app of the account.
 */
const passwordResetRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db, config } = services;
  const mailConfigured = services.mailer !== undefined;

  app.get("/forgot-password", async (_request, reply) =>
    reply.render((context) => forgotPasswordPage(context, { mailConfigured })),
  );

  app.post("/forgot-password", async (request, reply) => {
    if (!mailConfigured) return reply.render((context) => forgotPasswordPage(context, { mailConfigured }));
    const { email } = parseForm(forgotPasswordForm, request.body);
    await spendAccountMail(services, reply);
    const reset = await createPasswordReset(db, email);
    // Queued, and the page answered before it is sent: as long with an account as without one.
    if (reset && services.mailer) {
      services.mailer.queue(
        accountMail({
          kind: "password_reset",
          to: reset.account.email,
          language: reset.account.language,
          link: passwordResetUrl(config.publicUrl, reset.token),
        }),
      );
    }
    // The same answer whether or not an account has this address.
    return reply.render((context) => forgotPasswordPage(context, { mailConfigured, sent: true }));
  });

  app.get("/reset-password", async (request, reply) => {
    const token = linkTokenOf(request.raw) ?? "";
    const reset = await findOpenPasswordReset(db, token);
    if (!reset) throw new PageError(404, "resetInvalid");
    return reply.render((context) => resetPasswordPage(context, { token, email: reset.email }));
  });

  app.post("/reset-password", async (request, reply) => {
    const form = parseForm(resetPasswordForm, request.body);
    const reset = await findOpenPasswordReset(db, form.token);
    if (!reset) throw new PageError(404, "resetInvalid");
    try {
      await resetPassword(db, form.token, form.new_password);
    } catch (error) {
      const reason = refusalOf(error);
      if (!reason || reason === "reset_invalid") throw error;
      const key = REFUSAL_MESSAGES[reason];
      return reply.render(
        (context) =>
          resetPasswordPage(context, { token: form.token, email: reset.email, error: context.t.t(key) }),
        400,
      );
    }
    // Every session ended with the old password; this browser starts the only new one.
    await reply.signIn(reset.account_id);
    return reply.redirect(`${CONSOLE_PREFIX}/account?done=reset`, 303);
  });
};

export default passwordResetRoutes;
