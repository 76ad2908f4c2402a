import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { readSpendingByKey, withSpending } from "../../../shared/credits/caps.ts";
import type { Db } from "../../../shared/db/database.ts";
import {
  findConnectedApp,
  listConnectedApps,
  revokeConnectedApp,
  setConnectedAppCaps,
} from "../../../shared/oauth/grants.ts";
import type { Services } from "../../services.ts";
import { capsForm, parseForm, readCapsForm } from "../forms.ts";
import { PageError } from "../page-error.ts";
import { CONSOLE_PREFIX } from "../paths.ts";
import { requireSession } from "../session.ts";
import { capsPage, typedCaps } from "../views/caps.ts";
import { type ConnectedAppRow, connectedAppsPage } from "../views/connected-apps.ts";
import { idParam } from "../workspace-scope.ts";

const doneQuery = z.object({ done: z.string().optional() }).catch({});
const APPS_PATH = `${CONSOLE_PREFIX}/account/apps`;

/** This account's live grants, each with what it spent today (UTC) and in all. */
async function appRows(db: Db, accountId: string): Promise<ConnectedAppRow[]> {
  return withSpending(db, "oauth_grant", await listConnectedApps(db, accountId), (app) => app.grant_id);
}

/** The OAuth grants this person approved, across their workspaces: listed, capped and revoked here. */
const connectedAppRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.get("/account/apps", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const apps = await appRows(db, session.account.id);
    const done = doneQuery.parse(request.query).done;
    return reply.render((context) =>
      connectedAppsPage(context, {
        apps,
        info:
          done === "disconnected"
            ? context.t.t("appDisconnected")
            : done === "caps_saved"
              ? context.t.t("capsSaved")
              : undefined,
      }),
    );
  });

  /** One of this person's live grants with its spending, or a 404 page (another's is "nothing here"). */
  async function ownApp(accountId: string, grantId: string) {
    const found = await findConnectedApp(db, accountId, grantId);
    if (!found) throw new PageError(404, "notFound");
    const spending = await readSpendingByKey(db, "oauth_grant", [found.grant_id]);
    return { ...found, ...(spending.get(found.grant_id) ?? { spent_today: 0, spent_total: 0 }) };
  }

  app.get("/account/apps/:grantId/caps", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const grant = await ownApp(session.account.id, idParam(request, "grantId"));
    return reply.render((context) =>
      capsPage(context, {
        name: grant.client_name,
        intro: context.t.t("appCapsIntro", { workspace: grant.workspace_name }),
        spending: grant,
        typed: typedCaps(grant),
        errors: {},
        action: `${APPS_PATH}/${grant.grant_id}/caps`,
        cancelHref: APPS_PATH,
      }),
    );
  });

  app.post("/account/apps/:grantId/caps", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    const grant = await ownApp(session.account.id, idParam(request, "grantId"));
    const typed = parseForm(capsForm, request.body);
    const { caps, errors } = readCapsForm(typed);
    if (Object.keys(errors).length > 0) {
      return reply.render(
        (context) =>
          capsPage(context, {
            name: grant.client_name,
            intro: context.t.t("appCapsIntro", { workspace: grant.workspace_name }),
            spending: grant,
            typed,
            errors,
            action: `${APPS_PATH}/${grant.grant_id}/caps`,
            cancelHref: APPS_PATH,
          }),
        400,
      );
    }
    if (!(await setConnectedAppCaps(db, session.account.id, grant.grant_id, caps))) {
      throw new PageError(404, "notFound");
    }
    return reply.redirect(`${APPS_PATH}?done=caps_saved`, 303);
  });

  app.post("/account/apps/:grantId/revoke", async (request, reply) => {
    const session = requireSession(request, reply);
    if (!session) return reply;
    // Only a grant of this person's own memberships: another's is "nothing here".
    if (!(await revokeConnectedApp(db, session.account.id, idParam(request, "grantId")))) {
      throw new PageError(404, "notFound");
    }
    return reply.redirect(`${APPS_PATH}?done=disconnected`, 303);
  });
};

export default connectedAppRoutes;
