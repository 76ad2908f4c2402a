import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import {
  csrfTokenFor,
  endSession,
  findSession,
  SESSION_TTL_MS,
  type SignedInAccount,
  startSession,
} from "../../shared/accounts/sessions.ts";
import type { Db } from "../../shared/db/database.ts";
import { looksLikeSecret, newSecret, safeEqual } from "../../shared/secrets.ts";
import { isStorableText } from "../../shared/text-input.ts";
import type { Membership } from "../../shared/workspaces/members.ts";
import { csrfForm, formError, formFieldOf, parseForm } from "./forms.ts";
import { PageError } from "./page-error.ts";
import { CONSOLE_PREFIX, SESSION_COOKIE, safeNext } from "./paths.ts";

/** Before sign-in, the forms' CSRF token is derived from this random cookie (login CSRF). */
const PRE_SESSION_COOKIE = "ld_pre";
const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

declare module "fastify" {
  interface FastifyRequest {
    /** Set on console routes: the signed-in person, or null. */
    consoleSession: SignedInAccount | null;
    /** Set on workspace pages: the person's active membership of the workspace in the path. */
    consoleMembership: Membership | null;
  }
  interface FastifyReply {
    /** A new session for the account (whatever session the browser had ends: no fixation). */
    signIn(accountId: string): Promise<void>;
    /** Ends this browser's session and clears its cookie. */
    signOut(): Promise<void>;
    /** The CSRF token of this browser's forms (creating the pre-session cookie when missing). */
    csrfToken(): string;
  }
}

/**
 * The console's one session plugin: the session cookie read once per request, form bodies parsed
 * (and refused when PostgreSQL could not store them), and the one CSRF scheme. A form's token is
 * derived from the session once signed in, and only then from the pre-session cookie: a token
 * made from a cookie another page could have planted never opens a signed-in form.
 */
export default fp<{ db: Db; secureCookies: boolean }>(
  async (app, { db, secureCookies }) => {
    const cookieOptions = { path: "/", httpOnly: true, sameSite: "lax", secure: secureCookies } as const;

    app.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: "string" }, (_request, body, done) => {
      // A field sent more than once (the leads list's ticked boxes) is the list of its values.
      const form: Record<string, string | string[]> = {};
      for (const [name, value] of new URLSearchParams(
        typeof body === "string" ? body : body.toString("utf8"),
      )) {
        const earlier = form[name];
        form[name] =
          earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
      }
      // What PostgreSQL cannot store is refused here, naming the field, rather than failing as a 500.
      const unstorable = Object.entries(form).find(([, value]) =>
        (Array.isArray(value) ? value : [value]).some((text) => !isStorableText(text)),
      );
      if (unstorable) {
        done(formError([{ field: formFieldOf(unstorable[0]), reason: "unstorable" }]));
        return;
      }
      done(null, form);
    });
    app.decorateRequest("consoleSession", null);
    app.decorateRequest("consoleMembership", null);

    app.decorateReply("signIn", async function (this: FastifyReply, accountId: string) {
      const previous = this.request.cookies[SESSION_COOKIE];
      if (previous) await endSession(db, previous);
      const token = await startSession(db, accountId);
      this.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: SESSION_TTL_MS / 1000 });
    });
    app.decorateReply("signOut", async function (this: FastifyReply) {
      const session = this.request.consoleSession;
      if (session) await endSession(db, session.token);
      this.request.consoleSession = null;
      this.setCookie(SESSION_COOKIE, "", { ...cookieOptions, maxAge: 0 });
    });
    app.decorateReply("csrfToken", function (this: FastifyReply) {
      const session = this.request.consoleSession;
      if (session) return csrfTokenFor(session.token);
      const existing = this.request.cookies[PRE_SESSION_COOKIE];
      if (existing && looksLikeSecret(existing)) return csrfTokenFor(existing);
      const created = newSecret();
      this.setCookie(PRE_SESSION_COOKIE, created, { ...cookieOptions, maxAge: 3600 * 24 });
      return csrfTokenFor(created);
    });

    app.addHook("onRequest", async (request) => {
      const token = request.cookies[SESSION_COOKIE];
      request.consoleSession = token ? await findSession(db, token) : null;
    });

    // Every form carries the CSRF token of this browser: a page of another site cannot read it.
    app.addHook("preHandler", async (request) => {
      if (request.method !== "POST") return;
      const sent = parseForm(csrfForm, request.body).csrf_token;
      const secret = browserSecretOf(request);
      if (!secret || !safeEqual(csrfTokenFor(secret), sent)) throw new PageError(403, "formExpired");
    });
  },
  { name: "console-session" },
);

/**
 * What this browser's forms are bound to: its session once signed in, else its pre-session
 * cookie (also what keeps a flash of a form sent before sign-in to this browser).
 */
export function browserSecretOf(request: FastifyRequest): string | undefined {
  return request.consoleSession ? request.consoleSession.token : request.cookies[PRE_SESSION_COOKIE];
}

/** A page for signed-in people only; others go to sign-in and come back. */
export function requireSession(request: FastifyRequest, reply: FastifyReply): SignedInAccount | null {
  if (request.consoleSession) return request.consoleSession;
  const next = request.method === "GET" ? safeNext(request.url) : undefined;
  reply.redirect(`${CONSOLE_PREFIX}/sign-in${next ? `?next=${encodeURIComponent(next)}` : ""}`, 303);
  return null;
}
