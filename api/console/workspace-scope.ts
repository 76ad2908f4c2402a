import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { z } from "zod";
import type { Db } from "../../shared/db/database.ts";
import type { Caller, OperationServices } from "../../shared/operations/operation.ts";
import {
  findMembership,
  listMemberships,
  type Membership,
  memberRateLimitId,
} from "../../shared/workspaces/members.ts";
import type { Flash, FlashStore } from "./flash.ts";
import type { MessageKey } from "./i18n.ts";
import type { PageContext } from "./layout.ts";
import { PageError } from "./page-error.ts";
import { CONSOLE_PREFIX } from "./paths.ts";
import { requireSession } from "./session.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The pages of one workspace (`/w/:workspaceId/...`) are only for its active members, checked on
 * every request; the membership found is `request.consoleMembership`.
 */
export default fp<{ db: Db }>(
  async (app, { db }) => {
    app.addHook("preHandler", async (request, reply) => {
      const session = requireSession(request, reply);
      if (!session) return reply;
      const workspaceId = idParam(request, "workspaceId", { orNotFound: false });
      const membership = workspaceId ? await findMembership(db, session.account.id, workspaceId) : undefined;
      if (!membership) {
        // Removed from every workspace: the session has nothing left to open, so it ends here.
        if ((await listMemberships(db, session.account.id)).length === 0) {
          await reply.signOut();
          return reply.redirect(`${CONSOLE_PREFIX}/sign-in`, 303);
        }
        throw new PageError(404, "notFound");
      }
      request.consoleMembership = membership;
    });
  },
  { name: "console-workspace-scope", dependencies: ["console-session"] },
);

/** The membership the scope's hook found (a workspace route never runs without one). */
export function membershipOf(request: FastifyRequest): Membership {
  if (!request.consoleMembership) throw new Error("workspace page without a membership");
  return request.consoleMembership;
}

/** The signed-in member as the operations' caller: rate limits count per member, as for their OAuth grants. */
export function callerOf(request: FastifyRequest, services: OperationServices): Caller {
  const { workspace_id, member_id } = membershipOf(request);
  return {
    principal: {
      workspaceId: workspace_id,
      rateLimitId: memberRateLimitId(member_id),
      kind: "console_member",
    },
    logger: request.log,
    services,
  };
}

const params = z.record(z.string(), z.string()).catch({});

/** A uuid path parameter; anything else is a 404 page. */
export function idParam(request: FastifyRequest, name: string, options = { orNotFound: true }): string {
  const value = params.parse(request.params)[name] ?? "";
  if (UUID.test(value)) return value;
  if (options.orNotFound) throw new PageError(404, "notFound");
  return "";
}

const workspaceNotices: Record<string, MessageKey> = {
  saved: "saved",
  revoked: "keyRevoked",
  caps_saved: "capsSaved",
  removed: "memberRemoved",
  invite_cancelled: "inviteCancelled",
  drafted: "drafted",
  sent: "markedSent",
  skipped: "markedSkipped",
  suppression_added: "suppressionAdded",
  suppression_removed: "suppressionRemoved",
  checkout_cancelled: "checkoutCancelled",
};
const doneQuery = z.object({ done: z.string().optional() }).catch({});

/** The notice of `?done=` after a form's redirect, translated. */
export function noticeOf(request: FastifyRequest, context: PageContext): string | undefined {
  const key = workspaceNotices[doneQuery.parse(request.query).done ?? ""];
  return key ? context.t.t(key) : undefined;
}

const flashQuery = z.object({ flash: z.string().optional() }).catch({});

/**
 * The flash a redirect named (`?flash=`), taken: shown on this answer only. "gone" when the URL
 * names one that was already shown or expired (a reload of the page that showed a key).
 */
export async function takeFlash(
  request: FastifyRequest,
  store: FlashStore,
): Promise<Flash | "gone" | undefined> {
  const id = flashQuery.parse(request.query).flash;
  const session = request.consoleSession;
  if (id === undefined || !session) return undefined;
  return (await store.read(session.token, id, { take: true })) ?? "gone";
}

/**
 * POST then 303 to `path?flash=<id>`: true once the redirect is sent, false when the store is
 * unavailable (the caller answers at once). A boolean, never the reply: a reply is a thenable, and
 * an async function returning it resolves to undefined once it is sent, which read as "not sent"
 * and made the caller answer a second time.
 */
export async function redirectWithFlash(
  request: FastifyRequest,
  reply: FastifyReply,
  store: FlashStore,
  path: string,
  flash: Flash,
): Promise<boolean> {
  const session = request.consoleSession;
  const id = session ? await store.put(session.token, flash) : null;
  if (!id) return false;
  reply.redirect(`${path}?flash=${id}`, 303);
  return true;
}
