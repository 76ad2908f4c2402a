import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { normalizeEmail } from "../../../shared/accounts/accounts.ts";
import { acceptInvite, findOpenInvite, type OpenInvite } from "../../../shared/accounts/invites.ts";
import { looksLikeSecret } from "../../../shared/secrets.ts";
import type { Services } from "../../services.ts";
import { inviteAcceptForm, inviteNewAccountForm, parseForm } from "../forms.ts";
import type { MessageKey } from "../i18n.ts";
import { PageError } from "../page-error.ts";
import { CONSOLE_PREFIX, linkTokenOf, workspacePath } from "../paths.ts";
import { REFUSAL_MESSAGES, refusalOf } from "../refusals.ts";
import { invitePage } from "../views/invite.ts";

/**
 * Keeps an opened invite's token while its person signs in (the sign-in page brings them back
 * to /app/invite): the secret never goes into a URL, where logs and Referer headers would see it.
 */
const INVITE_COOKIE = "ld_invite";

/** On an invite, an existing account is told to sign in to accept (not to sign in instead). */
const INVITE_REFUSALS = { ...REFUSAL_MESSAGES, account_exists: "inviteAccountExists" } as const;

/**
 * An invite link: a new account joins with the name and password it chooses; an address that
 * already has an account joins once signed in through the sign-in form. No password is ever
 * checked here, and the page reads the same whether or not the address has an account.
 */
const inviteRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db, config } = services;
  const cookieOptions = {
    path: `${CONSOLE_PREFIX}/invite`,
    httpOnly: true,
    sameSite: "lax",
    secure: config.publicUrl.startsWith("https:"),
  } as const;

  async function openInvite(token: string): Promise<OpenInvite> {
    const invite = await findOpenInvite(db, token);
    if (!invite) throw new PageError(404, "inviteInvalid");
    return invite;
  }

  const render = (
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    invite: OpenInvite,
    extra: { name?: string; error?: MessageKey; status?: number } = {},
  ) => {
    const session = request.consoleSession;
    return reply.render(
      (context) =>
        invitePage(context, {
          token,
          workspaceName: invite.workspace_name,
          email: invite.email,
          name: extra.name ?? invite.name,
          signedInAs: session
            ? {
                email: session.account.email,
                matches: normalizeEmail(session.account.email) === normalizeEmail(invite.email),
              }
            : undefined,
          error: extra.error ? context.t.t(extra.error) : undefined,
        }),
      extra.status,
    );
  };

  app.get("/invite", async (request, reply) => {
    const fromLink = linkTokenOf(request.raw);
    const remembered = request.cookies[INVITE_COOKIE];
    const token = fromLink ?? (remembered && looksLikeSecret(remembered) ? remembered : "");
    const invite = await openInvite(token);
    if (fromLink) reply.setCookie(INVITE_COOKIE, fromLink, { ...cookieOptions, maxAge: 3600 });
    return render(request, reply, token, invite);
  });

  // A new account for the invited address (the address is the link's, never typed).
  app.post("/invite", async (request, reply) => {
    const form = parseForm(inviteNewAccountForm, request.body);
    const invite = await openInvite(form.token);
    let accepted: Awaited<ReturnType<typeof acceptInvite>>;
    try {
      accepted = await acceptInvite(db, form.token, {
        kind: "new_account",
        name: form.name,
        password: form.password,
      });
    } catch (error) {
      const reason = refusalOf(error);
      if (reason !== "account_exists" && reason !== "too_short" && reason !== "too_long") throw error;
      return render(request, reply, form.token, invite, {
        name: form.name,
        error: INVITE_REFUSALS[reason],
        status: 400,
      });
    }
    await reply.signIn(accepted.accountId);
    reply.setCookie(INVITE_COOKIE, "", { ...cookieOptions, maxAge: 0 });
    return reply.redirect(workspacePath(accepted.workspaceId), 303);
  });

  // The signed-in account accepts an invite to its own address.
  app.post("/invite/accept", async (request, reply) => {
    const form = parseForm(inviteAcceptForm, request.body);
    const invite = await openInvite(form.token);
    const session = request.consoleSession;
    if (!session) return render(request, reply, form.token, invite, { status: 403 });
    let accepted: Awaited<ReturnType<typeof acceptInvite>>;
    try {
      accepted = await acceptInvite(db, form.token, { kind: "signed_in", accountId: session.account.id });
    } catch (error) {
      if (refusalOf(error) === "wrong_account") {
        return render(request, reply, form.token, invite, { status: 403 });
      }
      throw error;
    }
    reply.setCookie(INVITE_COOKIE, "", { ...cookieOptions, maxAge: 0 });
    return reply.redirect(workspacePath(accepted.workspaceId), 303);
  });
};

export default inviteRoutes;
