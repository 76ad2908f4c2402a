import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { confirmSignUp, findOpenSignUp, requestSignUp } from "../../../shared/accounts/sign-ups.ts";
import { accountMail } from "../../../shared/mail/account-mail.ts";
import type { Services } from "../../services.ts";
import { spendAccountMail } from "../account-mail.ts";
import type { FlashStore } from "../flash.ts";
import { parseForm, signUpConfirmForm, signUpForm } from "../forms.ts";
import { translator } from "../i18n.ts";
import { PageError } from "../page-error.ts";
import { CONSOLE_PREFIX, linkTokenOf, signUpConfirmUrl, workspacePath } from "../paths.ts";
import { REFUSAL_MESSAGES, refusalOf } from "../refusals.ts";
import { translatorOf } from "../renderer.ts";
import { browserSecretOf } from "../session.ts";
import { confirmSignUpPage, signUpPage, signUpSentPage } from "../views/sign-up.ts";

const sentQuery = z.object({ flash: z.string().optional() }).catch({});

/**
 * Self-serve sign-up (`SIGNUP=open`, which needs SMTP_URL): the form creates nothing but a
 * request; the account (with the password chosen there) and its workspace (10 free credits, free
 * trial) exist once the mailed link is opened. Limited per client address (an IPv6 client by its
 * /64); throwaway addresses refused; one account per mailbox (an alias is answered as its owner).
 * The form is answered like every other: POST, 303, GET (a reload of the page sends nothing again).
 */
const signUpRoutes: FastifyPluginAsync<{ services: Services; flash: FlashStore }> = async (
  app,
  { services, flash },
) => {
  const { db, config } = services;

  app.get("/sign-up", async (request, reply) => {
    if (request.consoleSession) return reply.redirect(CONSOLE_PREFIX, 303);
    return reply.render((context) => signUpPage(context, {}));
  });

  app.post("/sign-up", async (request, reply) => {
    const form = parseForm(signUpForm, request.body);
    const values = { name: form.name, email: form.email, agency_name: form.agency_name };
    await spendAccountMail(services, reply);
    const language = form.language ?? translatorOf(request).language;
    let requested: Awaited<ReturnType<typeof requestSignUp>>;
    try {
      requested = await requestSignUp(db, {
        email: form.email,
        name: form.name,
        agencyName: form.agency_name,
        language,
      });
    } catch (error) {
      const reason = refusalOf(error);
      if (!reason) throw error;
      if (reason === "disposable_address") services.metrics.signUpFinished("disposable_address");
      const key = REFUSAL_MESSAGES[reason];
      return reply.render((context) => signUpPage(context, { values, error: context.t.t(key) }), 400);
    }
    services.metrics.signUpFinished(requested.kind === "pending" ? "requested" : "account_exists");
    // Queued, and the page answered before it is sent: the answer takes as long whichever mail
    // goes out (a new sign-up's link, or the note to an existing account), and tells nobody which.
    if (!services.mailer) throw new Error("SIGNUP=open without SMTP_URL");
    services.mailer.queue(
      requested.kind === "pending"
        ? accountMail({
            kind: "sign_up",
            agencyName: form.agency_name,
            to: form.email,
            language,
            link: signUpConfirmUrl(config.publicUrl, requested.token),
          })
        : // The address has an account: its owner is told so, and the page says the same as for a new one.
          accountMail({
            kind: "sign_up_account_exists",
            to: form.email,
            language: requested.language,
            link: `${config.publicUrl}${CONSOLE_PREFIX}/sign-in`,
          }),
    );
    // The same work for a new address and one with an account: one flash kept for this browser
    // (the address, shown on the next page only to it), one redirect.
    const secret = browserSecretOf(request);
    const sent = { kind: "sign_up_sent", email: form.email, language } as const;
    const id = secret === undefined ? null : await flash.put(secret, sent);
    return reply.redirect(`${CONSOLE_PREFIX}/sign-up/sent${id === null ? "" : `?flash=${id}`}`, 303);
  });

  // Read, not taken: a reload shows the same page. Without the flash (expired, another browser),
  // the page says the same without the address.
  app.get("/sign-up/sent", async (request, reply) => {
    const id = sentQuery.parse(request.query).flash;
    const secret = browserSecretOf(request);
    const shown = id && secret ? await flash.read(secret, id, { take: false }) : null;
    const sent = shown?.kind === "sign_up_sent" ? shown : null;
    return reply.render((context) =>
      sent === null
        ? signUpSentPage(context, undefined)
        : signUpSentPage({ ...context, t: translator(sent.language) }, sent.email),
    );
  });

  app.get("/sign-up/confirm", async (request, reply) => {
    const token = linkTokenOf(request.raw) ?? "";
    const signUp = await findOpenSignUp(db, token);
    if (!signUp) {
      // Where an expired or used link is seen: its page is opened before any form is sent.
      services.metrics.signUpFinished("link_invalid");
      throw new PageError(404, "signUpInvalid");
    }
    return reply.render((context) => confirmSignUpPage(context, { token, signUp }));
  });

  app.post("/sign-up/confirm", async (request, reply) => {
    const { token, password } = parseForm(signUpConfirmForm, request.body);
    let confirmed: Awaited<ReturnType<typeof confirmSignUp>>;
    try {
      confirmed = await confirmSignUp(db, token, password);
    } catch (error) {
      const reason = refusalOf(error);
      if (reason === "sign_up_invalid") services.metrics.signUpFinished("link_invalid");
      if (reason === "account_exists") services.metrics.signUpFinished("account_exists");
      // An unknown or used link, or a mailbox that has an account meanwhile: the error page.
      if (reason !== "too_short" && reason !== "too_long") throw error;
      const key = REFUSAL_MESSAGES[reason];
      const signUp = await findOpenSignUp(db, token);
      if (!signUp) throw new PageError(404, "signUpInvalid");
      return reply.render(
        (context) => confirmSignUpPage(context, { token, signUp, error: context.t.t(key) }),
        400,
      );
    }
    services.metrics.signUpFinished("confirmed");
    await reply.signIn(confirmed.accountId);
    return reply.redirect(workspacePath(confirmed.workspaceId), 303);
  });
};

export default signUpRoutes;
