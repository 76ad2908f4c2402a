import type { FastifyPluginAsync } from "fastify";
import { acceptInvite, findOpenInvite } from "../../../shared/accounts/invites.ts";
import { ApiError } from "../../../shared/errors.ts";
import type { Services } from "../../services.ts";
import { inviteAcceptForm, newAccountName, parseForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { inviteTokenOf, workspacePath } from "../paths.ts";
import { DOMAIN_MESSAGES } from "../renderer.ts";
import { invitePage } from "../views/invite.ts";

/** An invite link: join the workspace with a new account or an existing one. */
const inviteRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.get("/invite", async (request, reply) => {
    const token = inviteTokenOf(request.raw) ?? "";
    const invite = await findOpenInvite(db, token);
    if (!invite) throw new PageError(404, "inviteInvalid");
    return reply.render((context) =>
      invitePage(context, {
        token,
        workspaceName: invite.workspace_name,
        email: invite.email,
        name: invite.name,
        accountExists: invite.account_exists,
      }),
    );
  });

  app.post("/invite", async (request, reply) => {
    const form = parseForm(inviteAcceptForm, request.body);
    const invite = await findOpenInvite(db, form.token);
    if (!invite) throw new PageError(404, "inviteInvalid");
    let accepted: Awaited<ReturnType<typeof acceptInvite>>;
    try {
      accepted = await acceptInvite(
        db,
        form.token,
        invite.account_exists
          ? { kind: "existing_account", password: form.password }
          : {
              kind: "new_account",
              name: parseForm(newAccountName, request.body).name,
              password: form.password,
            },
      );
    } catch (error) {
      const key = error instanceof ApiError ? DOMAIN_MESSAGES[error.message] : undefined;
      if (!key || key === "inviteInvalid") throw error;
      return reply.render(
        (context) =>
          invitePage(context, {
            token: form.token,
            workspaceName: invite.workspace_name,
            email: invite.email,
            name: form.name ?? invite.name,
            accountExists: invite.account_exists,
            error: context.t.t(key),
          }),
        400,
      );
    }
    await reply.signIn(accepted.accountId);
    return reply.redirect(workspacePath(accepted.workspaceId), 303);
  });
};

export default inviteRoutes;
