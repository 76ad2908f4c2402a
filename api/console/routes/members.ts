import type { FastifyPluginAsync } from "fastify";
import { listActiveMembers } from "../../../shared/accounts/accounts.ts";
import { createInvite } from "../../../shared/accounts/invites.ts";
import { removeMember } from "../../../shared/workspaces/members.ts";
import type { Services } from "../../services.ts";
import { inviteForm, parseForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { CONSOLE_PREFIX, inviteUrl, workspacePath } from "../paths.ts";
import { confirmPage } from "../views/components.ts";
import { membersPage } from "../views/members.ts";
import { idParam, membershipOf, noticeOf } from "../workspace-scope.ts";

/** The workspace's members: list, invite, remove. */
const memberRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.get("/members", async (request, reply) => {
    const membership = membershipOf(request);
    const members = await listActiveMembers(db, membership.workspace_id);
    return reply.render((context) =>
      membersPage(context, {
        workspaceId: membership.workspace_id,
        members,
        selfMemberId: membership.member_id,
        info: noticeOf(request, context),
      }),
    );
  });

  app.post("/members/invite", async (request, reply) => {
    const membership = membershipOf(request);
    const form = parseForm(inviteForm, request.body);
    const invite = await createInvite(db, membership.workspace_id, {
      ...form,
      invitedBy: membership.member_id,
    });
    const members = await listActiveMembers(db, membership.workspace_id);
    return reply.render(
      (context) =>
        membersPage(context, {
          workspaceId: membership.workspace_id,
          members,
          selfMemberId: membership.member_id,
          invite: { email: invite.email, url: inviteUrl(services.config.publicUrl, invite.token) },
        }),
      201,
    );
  });

  app.get("/members/:memberId/remove", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const memberId = idParam(request, "memberId");
    const member = (await listActiveMembers(db, workspace_id)).find((candidate) => candidate.id === memberId);
    if (!member) throw new PageError(404, "notFound");
    return reply.render((context) =>
      confirmPage(context, {
        title: context.t.t("remove"),
        subject: member.name ? `${member.name} <${member.email}>` : member.email,
        question: context.t.t("removeConfirm"),
        action: workspacePath(workspace_id, `members/${member.id}/remove`),
        button: context.t.t("remove"),
        cancelHref: workspacePath(workspace_id, "members"),
      }),
    );
  });

  app.post("/members/:memberId/remove", async (request, reply) => {
    const membership = membershipOf(request);
    const memberId = idParam(request, "memberId");
    await removeMember(db, membership.workspace_id, memberId);
    if (memberId === membership.member_id) return reply.redirect(CONSOLE_PREFIX, 303);
    return reply.redirect(`${workspacePath(membership.workspace_id, "members")}?done=removed`, 303);
  });
};

export default memberRoutes;
