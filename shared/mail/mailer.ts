import { createTransport } from "nodemailer";
import type { Logger } from "pino";

/** What an account mail is for (shared/mail/account-mail.ts writes one of each). */
type AccountMailKind =
  | "sign_up"
  | "sign_up_account_exists"
  | "invite"
  | "password_reset"
  | "password_failures";

/** One account mail, already written in its reader's language. */
export interface AccountMail {
  /** Counted by kind (leadapi_account_mails_total); never written to the mail. */
  kind: AccountMailKind;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The mail could not be handed to the SMTP server: the person is told, nothing is lost silently. */
export class MailNotSentError extends Error {
  override name = "MailNotSentError";
}

/** Sends account mail; built only when SMTP_URL is set (no mailer: links are shown to their maker). */
export interface Mailer {
  send(mail: AccountMail): Promise<void>;
  /**
   * Sends in the background (three tries, a few seconds apart; a mail still refused is logged):
   * for forms whose answer must not wait on the mail server, so that it takes as long whether or
   * not a mail goes out (sign-up, forgot password: no telling which addresses have accounts).
   * Resolves (never rejects) once the mail is sent (true) or given up (false); callers need not wait.
   */
  queue(mail: AccountMail): Promise<boolean>;
  /** Resolves once every queued mail is sent or given up. */
  drain(): Promise<void>;
  close(): void;
}

/** Waits between the tries of a queued mail. */
const QUEUED_RETRY_MS = [2_000, 10_000];

/** Nodemailer over `SMTP_URL` (`smtp://` with STARTTLS when offered, or `smtps://`). */
export function createSmtpMailer(options: { smtpUrl: string; from: string; logger: Logger }): Mailer {
  const transport = createTransport(
    {
      url: options.smtpUrl,
      // A stuck server must not hold a sign-up or a reset for minutes: the person is told instead.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    },
    { from: options.from },
  );
  const queued = new Set<Promise<boolean>>();
  const mailer: Mailer = {
    async send(mail) {
      try {
        const info = await transport.sendMail({
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        });
        options.logger.info({ message_id: info.messageId }, "account mail sent");
      } catch (error) {
        // The address is personal data and the link a secret: neither goes to the log.
        options.logger.error({ err: error }, "account mail not sent");
        throw new MailNotSentError("the SMTP server did not accept the mail", { cause: error });
      }
    },
    queue(mail) {
      const sending = (async () => {
        for (let attempt = 0; ; attempt += 1) {
          try {
            await mailer.send(mail);
            return true;
          } catch {
            const wait = QUEUED_RETRY_MS[attempt];
            if (wait === undefined) return false; // logged by send, each time
            await new Promise((resolve) => setTimeout(resolve, wait));
          }
        }
      })();
      queued.add(sending);
      void sending.finally(() => queued.delete(sending));
      return sending;
    },
    async drain() {
      while (queued.size > 0) await Promise.allSettled([...queued]);
    },
    close: () => transport.close(),
  };
  return mailer;
}

/**
 * `SMTP_URL=log:` (development and demos): each mail is written to the log, its links included,
 * and sent nowhere, so that a newcomer can walk sign-up offline. Never for real accounts: whoever
 * reads the log can open every link.
 */
export function createLogMailer(logger: Logger): Mailer {
  const write = (mail: AccountMail) =>
    logger.info(
      { mail: { to: mail.to, subject: mail.subject, text: mail.text } },
      "account mail written here, not sent (SMTP_URL=log:)",
    );
  return {
    send: async (mail) => write(mail),
    queue: async (mail) => {
      write(mail);
      return true;
    },
    drain: async () => {},
    close: () => {},
  };
}
