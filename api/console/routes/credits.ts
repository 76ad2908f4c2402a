import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { readCreditHistory } from "../../../shared/credits/history.ts";
import { isApiError } from "../../../shared/errors.ts";
import type { ReturnOutcome } from "../../../shared/payments/payments.ts";
import { requireWorkspace } from "../../../shared/workspaces/workspaces.ts";
import { checkoutForm, formError, parseForm } from "../forms.ts";
import { html, type SafeHtml } from "../html.ts";
import { translator } from "../i18n.ts";
import { PAGE_HEADERS, type PageContext } from "../layout.ts";
import { PageError } from "../page-error.ts";
import { workspacePath } from "../paths.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { creditsPage, operatorContact } from "../views/credits.ts";
import { membershipOf, noticeOf } from "../workspace-scope.ts";

const returnQuery = z.object({ session_id: z.string().max(300).default("") }).catch({ session_id: "" });

/**
 * The workspace's balance, its credit history, and buying a pack through Stripe Checkout (DESIGN
 * "Buying credits"): Buy posts the pack and is sent to Stripe's page; Stripe sends the person back
 * to the return page, which credits a paid session at once (the webhook does it otherwise).
 */
const creditRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services }) => {
  const { db, payments, config } = services;
  const operatorEmail = config.legal.contactEmail;
  // Buy posts here and is redirected to Stripe's page: the browser checks form-action against that redirect.
  const pageHeaders: Record<string, string> = payments
    ? {
        "content-security-policy": (PAGE_HEADERS["content-security-policy"] ?? "").replace(
          "form-action 'self'",
          `form-action 'self' ${payments.checkoutOrigins.join(" ")}`,
        ),
      }
    : {};

  const render = async (
    workspaceId: string,
    message: (context: PageContext) => { info?: string; warning?: SafeHtml },
  ) => {
    const workspace = await requireWorkspace(db, workspaceId);
    const history = await readCreditHistory(db, workspaceId);
    return (context: PageContext) =>
      creditsPage(context, {
        workspaceId,
        balance: workspace.balance,
        freeTrial: workspace.free_trial,
        history,
        sale: payments?.sale,
        operatorEmail,
        ...message(context),
      });
  };

  app.get("/credits", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const page = await render(workspace_id, (context) => ({ info: noticeOf(request, context) }));
    return reply.render(page, 200, pageHeaders);
  });

  // Without Stripe there is nothing to buy or return from: the two routes do not exist (404).
  if (!payments) return;

  app.post("/credits/checkout", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const { pack } = parseForm(checkoutForm, request.body);
    const account = request.consoleSession?.account;
    if (!account) throw new PageError(404, "notFound");
    const base = `${config.publicUrl}${workspacePath(workspace_id, "credits")}`;
    let url: string;
    try {
      url = await payments.startCheckout({
        workspaceId: workspace_id,
        packCredits: pack,
        customerEmail: account.email,
        productName: translator(account.language).t("packCredits", { credits: pack }),
        language: account.language,
        // Stripe puts the session's id in place of {CHECKOUT_SESSION_ID}.
        successUrl: `${base}/return?session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${base}?done=checkout_cancelled`,
      });
    } catch (error) {
      if (isApiError(error) && error.code === "invalid_request") {
        // The one such refusal: no pack of that size is on sale.
        throw formError([{ field: "pack", reason: "notOffered" }]);
      }
      request.log.error({ err: error }, "could not create a Stripe Checkout Session");
      throw new PageError(502, "stripeUnavailable");
    }
    return reply.redirect(url, 303);
  });

  app.get("/credits/return", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    let outcome: ReturnOutcome | "check_failed";
    try {
      outcome = await payments.creditReturnedSession(
        workspace_id,
        returnQuery.parse(request.query).session_id,
        request.log,
      );
    } catch (error) {
      // The webhook still credits it: the page says so rather than failing.
      request.log.error({ err: error }, "could not confirm a returned Checkout Session with Stripe");
      outcome = "check_failed";
    }
    const page = await render(workspace_id, ({ t }) => {
      switch (outcome) {
        case "credited":
          return { info: t.t("paymentCredited") };
        case "pending":
          return { warning: html`${t.t("paymentPending")}` };
        case "refused":
          return {
            warning: html`${t.t("paymentRefused")} ${operatorContact(t, operatorEmail)} ${t.t("paymentRefusedEnd")} <code>${workspace_id}</code>`,
          };
        case "check_failed":
          return { warning: html`${t.t("paymentCheckFailed")}` };
        default:
          return { warning: html`${t.t("paymentUnknown")}` };
      }
    });
    return reply.render(page, 200, pageHeaders);
  });
};

export default creditRoutes;
