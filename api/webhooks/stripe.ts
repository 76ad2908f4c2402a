import type { FastifyPluginAsync } from "fastify";
import type { PaymentMetrics } from "../../shared/metrics.ts";
import type { Payments } from "../../shared/payments/payments.ts";

/** A Stripe event is a few kilobytes; still a bound, well above any of the four handled types. */
const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

/**
 * `POST /webhooks/stripe`: Stripe's door. The signature covers the exact bytes Stripe sent, so the
 * body is kept raw (never parsed and re-serialized) and checked before anything else; a missing,
 * wrong or stale signature is 400 and changes nothing. A verified event answers 200 whatever it
 * was (credited, a duplicate, a mismatch, a type not handled), so that Stripe stops retrying; a
 * failure of ours is 500 and Stripe retries it later.
 */
const stripeWebhookRoutes: FastifyPluginAsync<{ payments: Payments; metrics: PaymentMetrics }> = async (
  app,
  { payments, metrics },
) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "*",
    { parseAs: "buffer", bodyLimit: WEBHOOK_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );
  app.addHook("onResponse", async (_request, reply) => {
    metrics.stripeWebhookAnswered(reply.statusCode);
  });

  app.post(
    "/webhooks/stripe",
    { schema: { hide: true }, bodyLimit: WEBHOOK_BODY_LIMIT_BYTES },
    async (request, reply) => {
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = request.headers["stripe-signature"];
      const event = payments.verifyEvent(rawBody, typeof signature === "string" ? signature : undefined);
      await payments.handleEvent(event, request.log);
      return reply.code(200).send({ received: true });
    },
  );
};

export default stripeWebhookRoutes;
