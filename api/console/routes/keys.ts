import type { FastifyPluginAsync } from "fastify";
import { withSpending } from "../../../shared/credits/caps.ts";
import type { Db } from "../../../shared/db/database.ts";
import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
  setApiKeyCaps,
} from "../../../shared/workspaces/api-keys.ts";
import { capsForm, keyForm, parseForm, readCapsForm, readKeyForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { workspacePath } from "../paths.ts";
import type { ConsoleRouteOptions } from "../route-options.ts";
import { capsPage, typedCaps } from "../views/caps.ts";
import { confirmPage } from "../views/components.ts";
import { type KeyRow, keysPage } from "../views/keys.ts";
import { idParam, membershipOf, noticeOf, redirectWithFlash, takeFlash } from "../workspace-scope.ts";

/** The workspace's keys, each with what it spent today (UTC) and in all. */
async function keyRows(db: Db, workspaceId: string): Promise<KeyRow[]> {
  return withSpending(db, "api_key", await listApiKeys(db, workspaceId), (key) => key.id);
}

/** A live key of this workspace with its spending, or a 404 page. */
async function liveKey(db: Db, workspaceId: string, keyId: string): Promise<KeyRow> {
  const key = (await keyRows(db, workspaceId)).find(
    (candidate) => candidate.id === keyId && !candidate.revoked_at,
  );
  if (!key) throw new PageError(404, "notFound");
  return key;
}

/** The workspace's API keys: list, create (shown once) with spending caps, revoke. */
const keyRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services, flash }) => {
  const { db } = services;

  app.get("/keys", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const shown = await takeFlash(request, flash);
    await services.keyUsage.flush();
    const keys = await keyRows(db, workspace_id);
    return reply.render((context) =>
      keysPage(context, {
        workspaceId: workspace_id,
        keys,
        info: noticeOf(request, context),
        error: shown === "gone" ? context.t.t("flashGone") : undefined,
        created: shown !== "gone" && shown?.kind === "key_created" ? shown : undefined,
      }),
    );
  });

  app.post("/keys", async (request, reply) => {
    const membership = membershipOf(request);
    const typed = parseForm(keyForm, request.body);
    const { name, caps, errors } = readKeyForm(typed);
    if (Object.keys(errors).length > 0) {
      // Refused: the page again with what was typed and each error beside its field.
      const keys = await keyRows(db, membership.workspace_id);
      return reply.render(
        (context) => keysPage(context, { workspaceId: membership.workspace_id, keys, typed, errors }),
        400,
      );
    }
    const created = await createApiKey(db, membership.workspace_id, {
      name,
      createdBy: membership.member_id,
      ...caps,
    });
    const shown = { kind: "key_created" as const, name: created.name, key: created.key };
    // Shown once, after the redirect (never in a URL: the flash id only names it for this session).
    const redirected = await redirectWithFlash(
      request,
      reply,
      flash,
      workspacePath(membership.workspace_id, "keys"),
      shown,
    );
    if (redirected) return reply;
    const keys = await keyRows(db, membership.workspace_id);
    return reply.render(
      (context) => keysPage(context, { workspaceId: membership.workspace_id, keys, created: shown }),
      201,
    );
  });

  app.get("/keys/:keyId/revoke", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const key = await liveKey(db, workspace_id, idParam(request, "keyId"));
    return reply.render((context) =>
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
};

/** A key's spending caps page: what it spent, and its daily and total caps, set by any member. */
export const keyCapsRoutes: FastifyPluginAsync<ConsoleRouteOptions> = async (app, { services }) => {
  const { db } = services;

  app.get("/keys/:keyId/caps", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const key = await liveKey(db, workspace_id, idParam(request, "keyId"));
    return reply.render((context) =>
      capsPage(
        { ...context, tab: "keys" },
        {
          name: `${key.name} (${key.key_prefix}…)`,
          spending: key,
          typed: typedCaps(key),
          errors: {},
          action: workspacePath(workspace_id, `keys/${key.id}/caps`),
          cancelHref: workspacePath(workspace_id, "keys"),
        },
      ),
    );
  });

  app.post("/keys/:keyId/caps", async (request, reply) => {
    const { workspace_id } = membershipOf(request);
    const key = await liveKey(db, workspace_id, idParam(request, "keyId"));
    const typed = parseForm(capsForm, request.body);
    const { caps, errors } = readCapsForm(typed);
    if (Object.keys(errors).length > 0) {
      return reply.render(
        (context) =>
          capsPage(
            { ...context, tab: "keys" },
            {
              name: `${key.name} (${key.key_prefix}…)`,
              spending: key,
              typed,
              errors,
              action: workspacePath(workspace_id, `keys/${key.id}/caps`),
              cancelHref: workspacePath(workspace_id, "keys"),
            },
          ),
        400,
      );
    }
    await setApiKeyCaps(db, workspace_id, key.id, caps);
    return reply.redirect(`${workspacePath(workspace_id, "keys")}?done=caps_saved`, 303);
  });
};

export default keyRoutes;
