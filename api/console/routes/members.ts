import type { FastifyPluginAsync, FastifyReply } from "fastify";
import {
  cancelInvite,
  createInvite,
  INVITE_REFUSALS,
  listPendingInvites,
} from "../../../shared/accounts/invites.ts";
import { isApiError } from "../../../shared/errors.ts";
import { accountMail } from "../../../shared/mail/account-mail.ts";
import { RateLimitStoreError } from "../../../shared/rate-limits.ts";
import { listActiveMembers, removeMember } from "../../../shared/workspaces/members.ts";
import type { Services } from "../../services.ts";
import { sendAccountMail } from "../account-mail.ts";
import { formError, inviteForm, parseForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { CONSOLE_PREFIX, inviteUrl, workspacePath } from "../paths.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { confirmPage } from "../views/components.ts";
import { membersPage } from "../views/members.ts";
import { idParam, membershipOf, noticeOf, redirectWithFlash, takeFlash } from "../workspace-scope.ts";

/** The workspace's members: list, remove (invites are `memberInviteRoutes`). */
const memberRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services, flash }) => {
  const { db } = services;

  app.get("/members", async (request, reply) => {
    const membership = membershipOf(request);
    const shown = await takeFlash(request, flash);
    const members = await listActiveMembers(db, membership.workspace_id);
    const pending = await listPendingInvites(db, membership.workspace_id);
    return reply.render((context) =>
      membersPage(context, {
        workspaceId: membership.workspace_id,
        members,
        pending,
        selfMemberId: membership.member_id,
        info:
          shown !== "gone" && shown?.kind === "invite_mailed"
            ? context.t.t("inviteMailed", { email: shown.email })
            : noticeOf(request, context),
        error: shown === "gone" ? context.t.t("flashGone") : undefined,
        invite: shown !== "gone" && shown?.kind === "invite_created" ? shown : undefined,
      }),
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

/** Invites to the workspace: send one (mailed, or its link shown), cancel a pending one. */
export const memberInviteRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (
  app,
  { services, flash },
) => {
  const { db } = services;

  app.post("/members/invite", async (request, reply) => {
    const membership = membershipOf(request);
    const form = parseForm(inviteForm, request.body);
    await spendInvite(services, reply, membership.workspace_id, request.consoleSession?.account.id ?? "");
    const invite = await createInvite(db, membership.workspace_id, {
      ...form,
      invitedBy: membership.member_id,
    }).catch((error: unknown) => {
      // The refusals a member can correct, in their language (the domain's message is the API's English).
      const refusal = Object.entries(INVITE_REFUSALS).find(
        ([, message]) => isApiError(error) && error.message === message,
      );
      throw refusal
        ? formError([{ field: "email", reason: refusal[0] as keyof typeof INVITE_REFUSALS }])
        : error;
    });
    const link = inviteUrl(services.config.publicUrl, invite.token);
    // With mail, the link goes to the invited mailbox only: the page never shows it. A mail that
    // cannot be sent cancels the invite, and the page says so.
    if (services.mailer) {
      const session = request.consoleSession;
      try {
        await sendAccountMail(
          services,
          accountMail({
            kind: "invite",
            to: invite.email,
            language: session?.account.language ?? "en",
            workspaceName: membership.workspace_name,
            invitedBy: session?.account.name ?? null,
            link,
          }),
        );
      } catch (error) {
        await cancelInvite(db, membership.workspace_id, invite.id);
        throw error;
      }
    }
    // Shown once after the redirect: the link (without mail), or that it was mailed.
    const shown = services.mailer
      ? { kind: "invite_mailed" as const, email: invite.email }
      : { kind: "invite_created" as const, email: invite.email, url: link };
    const membersPath = workspacePath(membership.workspace_id, "members");
    const redirected = await redirectWithFlash(request, reply, flash, membersPath, shown);
    if (redirected) return reply;
    const members = await listActiveMembers(db, membership.workspace_id);
    const pending = await listPendingInvites(db, membership.workspace_id);
    return reply.render(
      (context) =>
        membersPage(context, {
          workspaceId: membership.workspace_id,
          members,
          pending,
          selfMemberId: membership.member_id,
          ...(shown.kind === "invite_mailed"
            ? { info: context.t.t("inviteMailed", { email: shown.email }) }
            : { invite: shown }),
        }),
      201,
    );
  });

  app.get("/members/invites/:inviteId/cancel", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const inviteId = idParam(request, "inviteId");
    const invite = (await listPendingInvites(db, workspace_id)).find(
      (candidate) => candidate.id === inviteId,
    );
    if (!invite) throw new PageError(404, "notFound");
    return reply.render((context) =>
      confirmPage(context, {
        title: context.t.t("cancelInvite"),
        subject: invite.email,
        question: context.t.t("cancelInviteConfirm"),
        action: workspacePath(workspace_id, `members/invites/${invite.id}/cancel`),
        button: context.t.t("cancelInvite"),
        cancelHref: workspacePath(workspace_id, "members"),
      }),
    );
  });

  app.post("/members/invites/:inviteId/cancel", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    if (!(await cancelInvite(db, workspace_id, idParam(request, "inviteId")))) {
      throw new PageError(404, "notFound");
    }
    return reply.redirect(`${workspacePath(workspace_id, "members")}?done=invite_cancelled`, 303);
  });
};

/**
 * Spends one of the hour's invites of the inviting person and of the workspace (INVITES_PER_HOUR
 * each), or answers 429 with Retry-After: each invite is a mail from the operator's sender.
 */
async function spendInvite(
  services: Services,
  reply: FastifyReply,
  workspaceId: string,
  accountId: string,
): Promise<void> {
  const limiter = services.inviteLimiter;
  const keys = [
    ["invites_workspace", workspaceId],
    ["invites_account", accountId],
  ] as const;
  let decisions: Awaited<ReturnType<typeof limiter.consume>>[];
  try {
    decisions = await Promise.all(keys.map(([bucket, key]) => limiter.consume(bucket, key)));
  } catch (error) {
    if (error instanceof RateLimitStoreError) throw new PageError(503, "serverError");
    throw error;
  }
  const refused = decisions.filter((decision) => !decision.allowed);
  if (refused.length === 0) return;
  // A refused invite sends nothing: the other count gets its point back.
  await Promise.all(
    keys
      .filter((_key, index) => decisions[index]?.allowed)
      .map(([bucket, key]) => limiter.refund(bucket, key)),
  ).catch(() => {});
  const seconds = Math.max(...refused.map((decision) => decision.resetSeconds));
  reply.header("retry-after", String(seconds));
  throw new PageError(429, "tooManyInvites", { minutes: Math.ceil(seconds / 60) });
}

export default memberRoutes;
