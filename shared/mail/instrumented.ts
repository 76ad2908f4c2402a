import type { AccountMailMetrics } from "../metrics.ts";
import type { Mailer } from "./mailer.ts";

/**
 * Counts each account mail once by kind: sent, or failed (refused when sent directly; a queued
 * mail after its last try). A queued mail's earlier refused tries are not failures yet.
 */
export function instrumentMailer(mailer: Mailer, metrics: AccountMailMetrics): Mailer {
  return {
    async send(mail) {
      try {
        await mailer.send(mail);
      } catch (error) {
        metrics.accountMailFinished(mail.kind, "failed");
        throw error;
      }
      metrics.accountMailFinished(mail.kind, "sent");
    },
    queue(mail) {
      const sending = mailer.queue(mail);
      void sending.then((sent) => metrics.accountMailFinished(mail.kind, sent ? "sent" : "failed"));
      return sending;
    },
    drain: () => mailer.drain(),
    close: () => mailer.close(),
  };
}
