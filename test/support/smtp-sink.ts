import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** One mail as the sink received it: the envelope's recipients and the parsed message. */
export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  from: string;
  language: string | undefined;
}

/**
 * A real SMTP server on 127.0.0.1 (nodemailer's own `smtp-server`) that keeps every mail it
 * accepts: the service sends account mail to it exactly as to a production server. `refuse`
 * makes it answer 451 to every message (a mail that cannot be sent).
 */
export interface SmtpSink {
  url: string;
  mails: ReceivedMail[];
  refuse: boolean;
  /** Milliseconds the sink waits before accepting each message (a slow mail server). */
  delayMs: number;
  /** Resolves with the next mail to `address` (or one already received and not yet taken). */
  next(address: string): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiting: { address: string; resolve: (mail: ReceivedMail) => void }[] = [];
  const sink: SmtpSink = {
    url: "",
    mails,
    refuse: false,
    delayMs: 0,
    next(address) {
      const ready = mails.find((mail) => !taken.has(mail) && mail.to.includes(address.toLowerCase()));
      if (ready) {
        taken.add(ready);
        return Promise.resolve(ready);
      }
      return new Promise((resolve) => waiting.push({ address: address.toLowerCase(), resolve }));
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", async () => {
        if (sink.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, sink.delayMs));
        if (sink.refuse) {
          const error = Object.assign(new Error("Mailbox unavailable, try later"), { responseCode: 451 });
          callback(error);
          return;
        }
        simpleParser(Buffer.concat(chunks))
          .then((parsed: ParsedMail) => {
            const mail: ReceivedMail = {
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
              html: typeof parsed.html === "string" ? parsed.html : "",
              from: parsed.from?.text ?? "",
              language: /<html lang="([a-z]+)"/.exec(typeof parsed.html === "string" ? parsed.html : "")?.[1],
            };
            mails.push(mail);
            const index = waiting.findIndex((entry) => mail.to.includes(entry.address));
            if (index !== -1) {
              const [entry] = waiting.splice(index, 1);
              taken.add(mail);
              entry?.resolve(mail);
            }
            callback();
          })
          .catch((error: Error) => callback(error));
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  sink.url = `smtp://127.0.0.1:${port}`;
  return sink;
}

/** The first link of a mail's plain-text body that starts with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): string {
  const link = mail.text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (!link) throw new Error(`no link starting with ${prefix} in:\n${mail.text}`);
  return link;
}
