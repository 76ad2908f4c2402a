import type { FastifyReply } from "fastify";
import { type AccountMail, MailNotSentError } from "../../shared/mail/mailer.ts";
import { RateLimitStoreError } from "../../shared/rate-limits.ts";
import type { Services } from "../services.ts";
import { PageError } from "./page-error.ts";

/** Sends one account mail; a mail the SMTP server refused is a 503 page saying so, never a silent loss. */
export async function sendAccountMail(services: Services, mail: AccountMail): Promise<void> {
  if (!services.mailer) throw new Error("account mail without SMTP_URL");
  try {
    await services.mailer.send(mail);
  } catch (error) {
    if (error instanceof MailNotSentError) throw new PageError(503, "mailNotSent");
    throw error;
  }
}

/**
 * Spends one of the client address's hourly sign-ups and reset requests (each mails someone), or
 * answers 429 with Retry-After: a form that sends mail is not a way to flood mailboxes.
 */
export async function spendAccountMail(services: Services, reply: FastifyReply): Promise<void> {
  let decision: Awaited<ReturnType<Services["accountMailLimiter"]["consume"]>>;
  try {
    decision = await services.accountMailLimiter.consume("account_mail", reply.request.ip);
  } catch (error) {
    if (error instanceof RateLimitStoreError) throw new PageError(503, "serverError");
    throw error;
  }
  if (!decision.allowed) {
    reply.header("retry-after", String(decision.resetSeconds));
    throw new PageError(429, "tooManyMails", { minutes: Math.ceil(decision.resetSeconds / 60) });
  }
}
