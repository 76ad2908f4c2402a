import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import {
  changePassword,
  checkCredentials,
  findMembership,
  listActiveMembers,
  listMemberships,
  type Membership,
  updateAccountProfile,
} from "../../shared/accounts/accounts.ts";
import { acceptInvite, createInvite, findOpenInvite } from "../../shared/accounts/invites.ts";
import {
  csrfTokenFor,
  deleteExpiredSessions,
  endSession,
  findSession,
  SESSION_TTL_MS,
  type SignedInAccount,
  startSession,
} from "../../shared/accounts/sessions.ts";
import {
  findLeadWithEvidence,
  leadsCsv,
  listDraftsOfLead,
  listLeadsWithEvidence,
  readCreditHistory,
  readWorkspaceOverview,
} from "../../shared/console/workspace-views.ts";
import { ApiError } from "../../shared/errors.ts";
import { decodeCursor } from "../../shared/leads/cursor.ts";
import { newSecret, safeEqual } from "../../shared/oauth/secrets.ts";
import { draftOperation } from "../../shared/operations/draft.ts";
import { getLeadOperation } from "../../shared/operations/get-lead.ts";
import { type Caller, invoke } from "../../shared/operations/operation.ts";
import { isStorableText } from "../../shared/text-input.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../../shared/workspaces/api-keys.ts";
import { removeMember } from "../../shared/workspaces/members.ts";
import { requireWorkspace, updateWorkspaceSettings } from "../../shared/workspaces/workspaces.ts";
import { SCRIPT, SCRIPT_PATH, STYLESHEET, STYLESHEET_PATH } from "../console/assets.ts";
import { languageFromHeader, type MessageKey, type Translator, translator } from "../console/i18n.ts";
import { PAGE_HEADERS, type PageContext } from "../console/layout.ts";
import {
  accountPage,
  confirmPage,
  creditsPage,
  errorPage,
  invitePage,
  keysPage,
  leadPage,
  leadsPage,
  membersPage,
  overviewPage,
  settingsPage,
  signInPage,
  workspacesPage,
} from "../console/pages.ts";
import {
  CONSOLE_PREFIX,
  inviteTokenOf,
  inviteUrl,
  SESSION_COOKIE,
  safeNext,
  workspacePath,
} from "../console/paths.ts";
import { toApiError } from "../plugins/errors.ts";
import type { Services } from "../services.ts";

/** Before sign-in, the forms' CSRF token is derived from this random cookie (login CSRF). */
const PRE_SESSION_COOKIE = "ld_pre";
const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A page answer other than 200: its status and what to tell the person. */
class PageError extends Error {
  readonly status: number;
  readonly key: MessageKey;
  readonly values: Record<string, string | number>;
  readonly headers: Record<string, string>;
  constructor(status: number, key: MessageKey, values: Record<string, string | number> = {}, headers = {}) {
    super(key);
    this.status = status;
    this.key = key;
    this.values = values;
    this.headers = headers;
  }
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set on console routes: the signed-in person, or null. */
    consoleSession: SignedInAccount | null;
    /** Set on workspace pages: the person's active membership of the workspace in the path. */
    consoleMembership: Membership | null;
  }
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const separator = part.indexOf("=");
    if (separator !== -1 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/** Every console route as `METHOD /path` (the security tests sweep them all). */
export const CONSOLE_ROUTES = new Set<string>();

type Form = Record<string, string>;
const formOf = (request: FastifyRequest): Form => (request.body as Form | undefined) ?? {};

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((value) => (value === "" ? null : value));
const settingsForm = z.object({
  language: z.enum(["en", "fr"]),
  sender_name: optionalText(200),
  sender_company: optionalText(200),
  offer: optionalText(500),
});
const keyForm = z.object({ name: z.string().trim().min(1).max(200) });
const inviteForm = z.object({
  email: z.email().max(320),
  name: optionalText(200),
});
const profileForm = z.object({ name: z.string().trim().min(1).max(200), language: z.enum(["en", "fr"]) });
const draftForm = z.object({ locale: z.enum(["en", "fr"]).optional() });

function parseForm<T extends z.ZodType>(schema: T, form: Form): z.infer<T> {
  const parsed = schema.safeParse(form);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new PageError(400, "invalidInput", { detail });
  }
  return parsed.data;
}

/** Domain messages that are keys of the console's catalog (passwords, invites) are shown translated. */
const DOMAIN_MESSAGES: Record<string, MessageKey> = {
  wrong_password: "wrongPassword",
  too_short: "tooShort",
  too_long: "tooLong",
  invite_invalid: "inviteInvalid",
};

/**
 * The member console under /app: server-rendered pages over the same domain functions as the
 * API. Routes stay thin: they read the form, call `shared/`, and render.
 */
const consoleRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db, config } = services;
  app.addHook("onRoute", (route) => {
    // Pages, not API: kept out of /openapi.json.
    route.schema = { ...route.schema, hide: true };
    for (const method of [route.method].flat()) {
      if (method !== "HEAD") CONSOLE_ROUTES.add(`${method} ${route.url}`);
    }
  });
  const secure = config.publicUrl.startsWith("https:");
  const cookieFlags = `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

  app.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: "string" }, (_request, body, done) => {
    const form = Object.fromEntries(
      new URLSearchParams(typeof body === "string" ? body : body.toString("utf8")),
    );
    // What PostgreSQL cannot store is refused here, naming the field, rather than failing as a 500.
    const unstorable = Object.entries(form).find(([, value]) => !isStorableText(value));
    if (unstorable) {
      done(
        new PageError(400, "invalidInput", { detail: `${unstorable[0]}: a NUL or an unpaired surrogate` }),
      );
      return;
    }
    done(null, form);
  });
  app.decorateRequest("consoleSession", null);
  app.decorateRequest("consoleMembership", null);

  const setSessionCookie = (reply: FastifyReply, token: string) =>
    reply.header(
      "set-cookie",
      `${SESSION_COOKIE}=${token}; ${cookieFlags}; Max-Age=${SESSION_TTL_MS / 1000}`,
    );
  const clearSessionCookie = (reply: FastifyReply) =>
    reply.header("set-cookie", `${SESSION_COOKIE}=; ${cookieFlags}; Max-Age=0`);

  const translatorOf = (request: FastifyRequest): Translator =>
    translator(
      request.consoleSession?.account.language ?? languageFromHeader(request.headers["accept-language"]),
    );

  /** The browser's secret behind its CSRF tokens: the session, or the pre-session cookie (created when missing). */
  function browserSecret(request: FastifyRequest, reply: FastifyReply): string {
    if (request.consoleSession) return request.consoleSession.token;
    const existing = readCookie(request, PRE_SESSION_COOKIE);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const created = newSecret();
    reply.header("set-cookie", `${PRE_SESSION_COOKIE}=${created}; ${cookieFlags}; Max-Age=${3600 * 24}`);
    return created;
  }

  async function contextOf(request: FastifyRequest, reply: FastifyReply): Promise<PageContext> {
    const t = translatorOf(request);
    const csrf = csrfTokenFor(browserSecret(request, reply));
    const session = request.consoleSession;
    if (!session) return { t, csrf };
    const membership = request.consoleMembership;
    const memberships = await listMemberships(db, session.account.id);
    return {
      t,
      csrf,
      account: session.account,
      canSwitch: memberships.length > 1,
      ...(membership ? { workspace: { id: membership.workspace_id, name: membership.workspace_name } } : {}),
    };
  }

  const sendPage = (reply: FastifyReply, page: string, status = 200) =>
    reply.code(status).headers(PAGE_HEADERS).send(page);

  app.addHook("onRequest", async (request) => {
    const token = readCookie(request, SESSION_COOKIE);
    request.consoleSession = token ? await findSession(db, token) : null;
  });

  // Every form carries the CSRF token of this browser: a page of another site cannot read it.
  app.addHook("preHandler", async (request) => {
    if (request.method !== "POST") return;
    const sent = formOf(request).csrf_token ?? "";
    const secrets = [request.consoleSession?.token, readCookie(request, PRE_SESSION_COOKIE)].filter(
      (secret): secret is string => typeof secret === "string" && secret.length > 0,
    );
    if (!secrets.some((secret) => safeEqual(csrfTokenFor(secret), sent)))
      throw new PageError(403, "formExpired");
  });

  app.setErrorHandler(async (error, request, reply) => {
    let pageError: PageError;
    if (error instanceof PageError) pageError = error;
    else {
      const apiError = toApiError(error, request);
      const known = DOMAIN_MESSAGES[apiError.message];
      pageError =
        apiError.status >= 500
          ? new PageError(apiError.status, "serverError")
          : apiError.status === 404
            ? new PageError(404, known ?? "notFound")
            : apiError.code === "insufficient_credits"
              ? new PageError(402, "insufficientCredits")
              : known
                ? new PageError(apiError.status, known)
                : new PageError(apiError.status, "invalidInput", { detail: apiError.message });
    }
    const context = await contextOf(request, reply).catch(() => ({
      t: translatorOf(request),
      csrf: "",
    }));
    reply.headers(pageError.headers);
    return sendPage(
      reply,
      errorPage(context, context.t.t(pageError.key, pageError.values)),
      pageError.status,
    );
  });

  app.setNotFoundHandler(async (request, reply) => {
    const context = await contextOf(request, reply);
    return sendPage(reply, errorPage(context, context.t.t("notFound")), 404);
  });

  /** A page for signed-in people only; others go to sign-in and come back. */
  function requireSession(request: FastifyRequest, reply: FastifyReply): SignedInAccount | null {
    if (request.consoleSession) return request.consoleSession;
    const next = request.method === "GET" ? safeNext(request.url) : undefined;
    reply.redirect(`${CONSOLE_PREFIX}/sign-in${next ? `?next=${encodeURIComponent(next)}` : ""}`, 303);
    return null;
  }

  // Assets: content-addressed, cached for a year.
  app.get(STYLESHEET_PATH.slice(CONSOLE_PREFIX.length), async (_request, reply) =>
    reply
      .header("content-type", "text/css; charset=utf-8")
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(STYLESHEET),
  );
  app.get(SCRIPT_PATH.slice(CONSOLE_PREFIX.length), async (_request, reply) =>
    reply
      .header("content-type", "text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(SCRIPT),
  );

  app.get("/", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const memberships = await listMemberships(db, session.account.id);
    const only = memberships[0];
    if (memberships.length === 1 && only) return reply.redirect(workspacePath(only.workspace_id), 303);
    return sendPage(reply, workspacesPage(await contextOf(request, reply), memberships));
  });

  app.get(`/workspaces`, async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    return sendPage(
      reply,
      workspacesPage(await contextOf(request, reply), await listMemberships(db, session.account.id)),
    );
  });

  app.get(`/sign-in`, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const next = safeNext(query.next);
    if (request.consoleSession) return reply.redirect(next ?? CONSOLE_PREFIX, 303);
    const context = await contextOf(request, reply);
    return sendPage(
      reply,
      signInPage(context, { next, info: query.signed_out === "1" ? context.t.t("signedOut") : undefined }),
    );
  });

  app.post(`/sign-in`, async (request, reply) => {
    const form = formOf(request);
    const email = (form.email ?? "").slice(0, 320);
    const next = safeNext(form.next);
    const context = await contextOf(request, reply);
    const decision = await services.signInLimiter.consume(email, request.ip).catch((error: unknown) => {
      request.log.error({ err: error }, "sign-in rate-limit check failed");
      throw new PageError(503, "serverError");
    });
    if (!decision.allowed) {
      return sendPage(
        reply.header("retry-after", String(decision.retryAfterSeconds)),
        signInPage(context, {
          email,
          next,
          error: context.t.t("tooManyAttempts", { minutes: Math.ceil(decision.retryAfterSeconds / 60) }),
        }),
        429,
      );
    }
    const account = await checkCredentials(db, email, (form.password ?? "").slice(0, 1000));
    if (!account) {
      return sendPage(
        reply,
        signInPage(context, { email, next, error: context.t.t("wrongCredentials") }),
        401,
      );
    }
    // Always a new session: whatever session id the browser had is dropped (no fixation).
    await deleteExpiredSessions(db);
    const previous = readCookie(request, SESSION_COOKIE);
    if (previous) await endSession(db, previous);
    setSessionCookie(reply, await startSession(db, account.id));
    return reply.redirect(next ?? CONSOLE_PREFIX, 303);
  });

  app.post(`/sign-out`, async (request, reply) => {
    if (request.consoleSession) await endSession(db, request.consoleSession.token);
    clearSessionCookie(reply);
    return reply.redirect(`${CONSOLE_PREFIX}/sign-in?signed_out=1`, 303);
  });

  app.get(`/invite`, async (request, reply) => {
    const token = inviteTokenOf(request.raw) ?? "";
    const invite = await findOpenInvite(db, token);
    if (!invite) throw new PageError(404, "inviteInvalid");
    return sendPage(
      reply,
      invitePage(await contextOf(request, reply), {
        token,
        workspaceName: invite.workspace_name,
        email: invite.email,
        name: invite.name,
        accountExists: invite.account_exists,
      }),
    );
  });

  app.post(`/invite`, async (request, reply) => {
    const form = formOf(request);
    const token = form.token ?? "";
    const invite = await findOpenInvite(db, token);
    if (!invite) throw new PageError(404, "inviteInvalid");
    const password = (form.password ?? "").slice(0, 1000);
    let accepted: Awaited<ReturnType<typeof acceptInvite>>;
    try {
      accepted = await acceptInvite(
        db,
        token,
        invite.account_exists
          ? { kind: "existing_account", password }
          : { kind: "new_account", name: parseForm(profileForm.pick({ name: true }), form).name, password },
      );
    } catch (error) {
      const key = error instanceof ApiError ? DOMAIN_MESSAGES[error.message] : undefined;
      if (!key || key === "inviteInvalid") throw error;
      const context = await contextOf(request, reply);
      return sendPage(
        reply,
        invitePage(context, {
          token,
          workspaceName: invite.workspace_name,
          email: invite.email,
          name: form.name ?? invite.name,
          accountExists: invite.account_exists,
          error: context.t.t(key),
        }),
        400,
      );
    }
    const previous = readCookie(request, SESSION_COOKIE);
    if (previous) await endSession(db, previous);
    setSessionCookie(reply, await startSession(db, accepted.accountId));
    return reply.redirect(workspacePath(accepted.workspaceId), 303);
  });

  const accountNotices: Record<string, MessageKey> = { saved: "saved", password: "passwordChanged" };

  app.get(`/account`, async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const context = await contextOf(request, reply);
    const done = accountNotices[(request.query as Record<string, string>).done ?? ""];
    return sendPage(
      reply,
      accountPage(context, { ...session.account, info: done ? context.t.t(done) : undefined }),
    );
  });

  app.post(`/account/profile`, async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    await updateAccountProfile(db, session.account.id, parseForm(profileForm, formOf(request)));
    return reply.redirect(`${CONSOLE_PREFIX}/account?done=saved`, 303);
  });

  app.post(`/account/password`, async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const form = formOf(request);
    try {
      await changePassword(db, session.account.id, {
        current: (form.current_password ?? "").slice(0, 1000),
        next: form.new_password ?? "",
        keepSessionToken: session.token,
      });
    } catch (error) {
      const key = error instanceof ApiError ? DOMAIN_MESSAGES[error.message] : undefined;
      if (!key) throw error;
      const context = await contextOf(request, reply);
      return sendPage(reply, accountPage(context, { ...session.account, error: context.t.t(key) }), 400);
    }
    return reply.redirect(`${CONSOLE_PREFIX}/account?done=password`, 303);
  });

  await app.register(
    async (workspaceScope) =>
      workspacePages(workspaceScope, services, { sendPage, contextOf, requireSession, clearSessionCookie }),
    {
      prefix: "/w/:workspaceId",
    },
  );
};

interface PageTools {
  sendPage(reply: FastifyReply, page: string, status?: number): FastifyReply;
  contextOf(request: FastifyRequest, reply: FastifyReply): Promise<PageContext>;
  requireSession(request: FastifyRequest, reply: FastifyReply): SignedInAccount | null;
  clearSessionCookie(reply: FastifyReply): FastifyReply;
}

const workspaceNotices: Record<string, MessageKey> = {
  saved: "saved",
  revoked: "keyRevoked",
  removed: "memberRemoved",
  drafted: "drafted",
};

/** The pages of one workspace: only for its active members, checked on every request. */
async function workspacePages(app: FastifyInstance, services: Services, tools: PageTools): Promise<void> {
  const { db } = services;
  const { sendPage, contextOf, requireSession, clearSessionCookie } = tools;

  app.addHook("preHandler", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const { workspaceId } = request.params as { workspaceId: string };
    const membership = UUID.test(workspaceId)
      ? await findMembership(db, session.account.id, workspaceId)
      : undefined;
    if (!membership) {
      // Removed from every workspace: the session has nothing left to open, so it ends here.
      if ((await listMemberships(db, session.account.id)).length === 0) {
        await endSession(db, session.token);
        request.consoleSession = null;
        clearSessionCookie(reply);
        return reply.redirect(`${CONSOLE_PREFIX}/sign-in`, 303);
      }
      throw new PageError(404, "notFound");
    }
    request.consoleMembership = membership;
  });

  const membershipOf = (request: FastifyRequest): Membership => {
    if (!request.consoleMembership) throw new Error("workspace page without a membership");
    return request.consoleMembership;
  };
  const noticeOf = (request: FastifyRequest, context: PageContext) => {
    const key = workspaceNotices[(request.query as Record<string, string>).done ?? ""];
    return key ? context.t.t(key) : undefined;
  };
  /** The signed-in member as the operations' caller: rate limits count per member, as for their OAuth grants. */
  const callerOf = (request: FastifyRequest): Caller => {
    const { workspace_id, member_id } = membershipOf(request);
    return {
      principal: { workspaceId: workspace_id, rateLimitId: `member:${member_id}`, kind: "console_member" },
      logger: request.log,
      services,
    };
  };
  const idParam = (request: FastifyRequest, name: string): string => {
    const value = (request.params as Record<string, string>)[name] ?? "";
    if (!UUID.test(value)) throw new PageError(404, "notFound");
    return value;
  };

  app.get("/", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    return sendPage(
      reply,
      overviewPage(
        await contextOf(request, reply),
        await readWorkspaceOverview(db, workspace_id),
        workspace_id,
      ),
    );
  });

  app.get("/keys", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    await services.keyUsage.flush();
    const context = await contextOf(request, reply);
    return sendPage(
      reply,
      keysPage(context, {
        workspaceId: workspace_id,
        keys: await listApiKeys(db, workspace_id),
        info: noticeOf(request, context),
      }),
    );
  });

  app.post("/keys", async (request, reply) => {
    const membership = membershipOf(request);
    const { name } = parseForm(keyForm, formOf(request));
    const created = await createApiKey(db, membership.workspace_id, {
      name,
      createdBy: membership.member_id,
    });
    // Shown in this answer only, never in a URL, never again.
    return sendPage(
      reply,
      keysPage(await contextOf(request, reply), {
        workspaceId: membership.workspace_id,
        keys: await listApiKeys(db, membership.workspace_id),
        created: { name: created.name, key: created.key },
      }),
      201,
    );
  });

  app.get("/keys/:keyId/revoke", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const keyId = idParam(request, "keyId");
    const key = (await listApiKeys(db, workspace_id)).find(
      (candidate) => candidate.id === keyId && !candidate.revoked_at,
    );
    if (!key) throw new PageError(404, "notFound");
    const context = await contextOf(request, reply);
    return sendPage(
      reply,
      confirmPage(context, {
        title: context.t.t("revoke"),
        subject: key.name,
        question: context.t.t("revokeConfirm"),
        action: workspacePath(workspace_id, `keys/${key.id}/revoke`),
        button: context.t.t("revoke"),
        cancelHref: workspacePath(workspace_id, "keys"),
      }),
    );
  });

  app.post("/keys/:keyId/revoke", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    await revokeApiKey(db, workspace_id, idParam(request, "keyId"));
    return reply.redirect(`${workspacePath(workspace_id, "keys")}?done=revoked`, 303);
  });

  app.get("/members", async (request, reply) => {
    const membership = membershipOf(request);
    const context = await contextOf(request, reply);
    return sendPage(
      reply,
      membersPage(context, {
        workspaceId: membership.workspace_id,
        members: await listActiveMembers(db, membership.workspace_id),
        selfMemberId: membership.member_id,
        info: noticeOf(request, context),
      }),
    );
  });

  app.post("/members/invite", async (request, reply) => {
    const membership = membershipOf(request);
    const form = parseForm(inviteForm, formOf(request));
    const invite = await createInvite(db, membership.workspace_id, {
      ...form,
      invitedBy: membership.member_id,
    });
    return sendPage(
      reply,
      membersPage(await contextOf(request, reply), {
        workspaceId: membership.workspace_id,
        members: await listActiveMembers(db, membership.workspace_id),
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
    const context = await contextOf(request, reply);
    return sendPage(
      reply,
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

  app.get("/settings", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const context = await contextOf(request, reply);
    return sendPage(
      reply,
      settingsPage(context, {
        workspace: await requireWorkspace(db, workspace_id),
        info: noticeOf(request, context),
      }),
    );
  });

  app.post("/settings", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    await updateWorkspaceSettings(db, workspace_id, parseForm(settingsForm, formOf(request)));
    return reply.redirect(`${workspacePath(workspace_id, "settings")}?done=saved`, 303);
  });

  app.get("/leads", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const raw = (request.query as Record<string, string | undefined>).cursor;
    const after = raw === undefined ? null : decodeCursor(raw);
    if (raw !== undefined && !after) throw new PageError(400, "invalidInput", { detail: "cursor" });
    const page = await listLeadsWithEvidence(db, workspace_id, { limit: 25, after });
    return sendPage(
      reply,
      leadsPage(await contextOf(request, reply), {
        workspaceId: workspace_id,
        leads: page.leads,
        nextCursor: page.next_cursor,
        paged: after !== null,
      }),
    );
  });

  app.get("/leads.csv", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    let csv = "";
    for await (const chunk of leadsCsv(db, workspace_id)) csv += chunk;
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", 'attachment; filename="leads.csv"')
      .header("cache-control", "no-store")
      .send(csv);
  });

  async function renderLead(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { error?: string; status?: number } = {},
  ) {
    const { workspace_id } = membershipOf(request);
    const leadId = idParam(request, "leadId");
    const lead = await findLeadWithEvidence(db, workspace_id, leadId);
    if (!lead) throw new PageError(404, "notFound");
    const workspace = await requireWorkspace(db, workspace_id);
    const context = await contextOf(request, reply);
    return sendPage(
      reply,
      leadPage(context, {
        workspaceId: workspace_id,
        lead,
        drafts: await listDraftsOfLead(db, workspace_id, leadId),
        language: workspace.language,
        info: noticeOf(request, context),
        error: extra.error,
      }),
      extra.status,
    );
  }

  app.get("/leads/:leadId", async (request, reply) => {
    // The lead read of every door (read bucket, log line); the page then adds evidence and drafts.
    await invoke(getLeadOperation, callerOf(request), { lead_id: idParam(request, "leadId") });
    return renderLead(request, reply);
  });

  app.post("/leads/:leadId/draft", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const leadId = idParam(request, "leadId");
    const { locale } = parseForm(draftForm, formOf(request));
    try {
      // The draft operation of every door: read bucket, hourly draft-attempt limit, same charge.
      await invoke(draftOperation, callerOf(request), { lead_id: leadId, locale });
    } catch (error) {
      if (
        !(error instanceof ApiError) ||
        error.status === 404 ||
        (error.status >= 500 && error.code !== "generation_failed")
      )
        throw error;
      reply.headers(error.headers);
      return renderLead(request, reply, { error: error.message, status: error.status });
    }
    return reply.redirect(`${workspacePath(workspace_id, `leads/${leadId}`)}?done=drafted`, 303);
  });

  app.get("/credits", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const workspace = await requireWorkspace(db, workspace_id);
    return sendPage(
      reply,
      creditsPage(await contextOf(request, reply), {
        workspaceId: workspace_id,
        balance: workspace.balance,
        freeTrial: workspace.free_trial,
        history: await readCreditHistory(db, workspace_id),
      }),
    );
  });
}

export default consoleRoutes;
