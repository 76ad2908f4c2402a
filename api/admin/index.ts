import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { cancelInvite, createInvite } from "../../shared/accounts/invites.ts";
import { createPasswordReset } from "../../shared/accounts/password-resets.ts";
import { MAX_CREDIT_CAP, withSpending } from "../../shared/credits/caps.ts";
import { MAX_PURCHASE_CREDITS, purchaseCredits } from "../../shared/credits/ledger.ts";
import type { Workspace } from "../../shared/db/schema.ts";
import { ApiError } from "../../shared/errors.ts";
import { languageSchema } from "../../shared/languages.ts";
import { recordOf } from "../../shared/lists.ts";
import { accountMail } from "../../shared/mail/account-mail.ts";
import { MailNotSentError } from "../../shared/mail/mailer.ts";
import { listWorkspaceGrants, setWorkspaceGrantCaps } from "../../shared/oauth/grants.ts";
import { suppressionRequestSchema, suppressionSchema } from "../../shared/suppressions/schemas.ts";
import {
  addSuppression,
  listSuppressions,
  removeSuppression,
  type SuppressionEntry,
} from "../../shared/suppressions/suppressions.ts";
import { createApiKey, listApiKeys, revokeApiKey, setApiKeyCaps } from "../../shared/workspaces/api-keys.ts";
import { addMember, listActiveMembers, removeMember } from "../../shared/workspaces/members.ts";
import {
  createWorkspace,
  listWorkspaces,
  requireWorkspace,
  updateWorkspaceSettings,
  WORKSPACE_TEXT_SETTING_MAX_LENGTHS,
  WORKSPACE_TEXT_SETTINGS,
} from "../../shared/workspaces/workspaces.ts";
import { inviteUrl, passwordResetUrl } from "../console/paths.ts";
import type { Services } from "../services.ts";

const workspaceParams = z.strictObject({ id: z.guid("must be a uuid") });
const memberParams = workspaceParams.extend({ member_id: z.guid("must be a uuid") });
const keyParams = workspaceParams.extend({ key_id: z.guid("must be a uuid") });
const grantParams = workspaceParams.extend({ grant_id: z.guid("must be a uuid") });
const suppressionParams = workspaceParams.extend({ entry_id: z.guid("must be a uuid") });
/** A person named by email (a member added, or one invited): the same fields either way. */
const personBody = z.strictObject({
  email: z.email().max(320),
  name: z.string().trim().min(1).max(200).optional(),
});
/** A spending cap in credits; null: not capped. */
const creditCap = z.number().int().min(0).max(MAX_CREDIT_CAP).nullable().optional();
const optionalText = (max: number) => z.string().trim().min(1).max(max).nullable().optional();

const workspaceJson = (workspace: Workspace) => ({
  id: workspace.id,
  name: workspace.name,
  language: workspace.language,
  balance: workspace.balance,
  free_trial: workspace.free_trial,
  ...recordOf(WORKSPACE_TEXT_SETTINGS, (setting) => workspace[setting]),
  created_at: workspace.created_at.toISOString(),
});

const iso = (date: Date | null) => (date ? date.toISOString() : null);

const suppressionJson = (entry: SuppressionEntry) => ({
  ...entry,
  created_at: entry.created_at.toISOString(),
});

const hidden = { hide: true } as const;

/** Stands in for "the app": workspaces, members, keys and purchases. Hidden from the public OpenAPI. */
const adminRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  // The token is checked for every /admin path by the app's adminGuard, before routing's 404.
  await app.register(workspaceRoutes, { services });
  await app.register(memberRoutes, { services });
  await app.register(apiKeyRoutes, { services });
  await app.register(grantCapRoutes, { services });
  await app.register(suppressionRoutes, { services });
  await app.register(creditRoutes, { services });
};

/** Workspaces: create, list, read, settings. */
const workspaceRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.post(
    "/workspaces",
    {
      schema: {
        ...hidden,
        body: z.strictObject({
          name: z.string().trim().min(1).max(200),
          language: languageSchema.optional(),
        }),
      },
    },
    async (request, reply) => reply.code(201).send(workspaceJson(await createWorkspace(db, request.body))),
  );

  app.get("/workspaces", { schema: hidden }, async () => ({
    workspaces: (await listWorkspaces(db)).map(workspaceJson),
  }));

  app.get("/workspaces/:id", { schema: { ...hidden, params: workspaceParams } }, async (request) =>
    workspaceJson(await requireWorkspace(db, request.params.id)),
  );

  app.patch(
    "/workspaces/:id",
    {
      schema: {
        ...hidden,
        params: workspaceParams,
        body: z.strictObject({
          language: languageSchema.optional(),
          ...recordOf(WORKSPACE_TEXT_SETTINGS, (setting) =>
            optionalText(WORKSPACE_TEXT_SETTING_MAX_LENGTHS[setting]),
          ),
        }),
      },
    },
    async (request) => workspaceJson(await updateWorkspaceSettings(db, request.params.id, request.body)),
  );
};

/** Members: add, list, invite, remove; a password reset link for an account. */
const memberRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.post(
    "/workspaces/:id/members",
    {
      schema: {
        ...hidden,
        params: workspaceParams,
        body: personBody,
      },
    },
    async (request, reply) => {
      const member = await addMember(db, request.params.id, request.body);
      return reply.code(201).send({ id: member.id, email: member.email, name: member.name });
    },
  );

  app.get("/workspaces/:id/members", { schema: { ...hidden, params: workspaceParams } }, async (request) => {
    await requireWorkspace(db, request.params.id);
    const members = await listActiveMembers(db, request.params.id);
    return { members: members.map((member) => ({ ...member, created_at: member.created_at.toISOString() })) };
  });

  app.post(
    "/workspaces/:id/invites",
    {
      schema: {
        ...hidden,
        params: workspaceParams,
        body: personBody,
      },
    },
    async (request, reply) => {
      // The operator's new link replaces a pending one (one pending invite per address).
      const invite = await createInvite(db, request.params.id, request.body, new Date(), {
        pending: "replace",
      });
      const url = inviteUrl(services.config.publicUrl, invite.token);
      const answer = { id: invite.id, email: invite.email, expires_at: invite.expires_at.toISOString() };
      reply.code(201).header("cache-control", "no-store");
      // Without mail the operator hands the link over; with mail it goes to the mailbox only.
      if (!services.mailer) return reply.send({ ...answer, url });
      const workspace = await requireWorkspace(db, request.params.id);
      try {
        await services.mailer.send(
          accountMail({
            kind: "invite",
            to: invite.email,
            language: workspace.language,
            workspaceName: workspace.name,
            invitedBy: null,
            link: url,
          }),
        );
      } catch (error) {
        if (!(error instanceof MailNotSentError)) throw error;
        await cancelInvite(db, request.params.id, invite.id);
        throw new ApiError(
          "service_unavailable",
          "The invite mail could not be sent; the invite was cancelled.",
        );
      }
      return reply.send({ ...answer, mailed: true });
    },
  );

  // A reset link for the operator to hand over (whether or not mail is configured): 1 hour, single use.
  app.post(
    "/accounts/reset-link",
    { schema: { ...hidden, body: z.strictObject({ email: z.email().max(320) }) } },
    async (request, reply) => {
      const reset = await createPasswordReset(db, request.body.email);
      if (!reset) throw new ApiError("not_found", "No account has this email.");
      return reply
        .code(201)
        .header("cache-control", "no-store")
        .send({
          email: reset.account.email,
          url: passwordResetUrl(services.config.publicUrl, reset.token),
          expires_at: reset.expires_at.toISOString(),
        });
    },
  );

  app.delete(
    "/workspaces/:id/members/:member_id",
    { schema: { ...hidden, params: memberParams } },
    async (request, reply) => {
      await removeMember(db, request.params.id, request.params.member_id);
      return reply.code(204).send();
    },
  );
};

/** A workspace's keys, each with what it has spent today (UTC) and in all. */
async function listApiKeysWithSpending(db: Services["db"], workspaceId: string) {
  return withSpending(db, "api_key", await listApiKeys(db, workspaceId), (key) => key.id);
}

/** API keys: create (the secret shown once), list, revoke, set spending caps. */
const apiKeyRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { db, keyUsage } = services;

  app.post(
    "/workspaces/:id/api-keys",
    {
      schema: {
        ...hidden,
        params: workspaceParams,
        body: z.strictObject({
          name: z.string().trim().min(1).max(200),
          created_by: z.guid("must be a member id"),
          daily_credit_cap: creditCap,
          total_credit_cap: creditCap,
        }),
      },
    },
    async (request, reply) => {
      await requireWorkspace(db, request.params.id);
      const key = await createApiKey(db, request.params.id, {
        name: request.body.name,
        createdBy: request.body.created_by,
        daily_credit_cap: request.body.daily_credit_cap ?? null,
        total_credit_cap: request.body.total_credit_cap ?? null,
      });
      return reply.code(201).send({ ...key, created_at: key.created_at.toISOString() });
    },
  );

  app.get("/workspaces/:id/api-keys", { schema: { ...hidden, params: workspaceParams } }, async (request) => {
    await requireWorkspace(db, request.params.id);
    await keyUsage.flush();
    const keys = await listApiKeysWithSpending(db, request.params.id);
    return {
      api_keys: keys.map(({ created_by_name: _name, ...key }) => ({
        ...key,
        created_at: key.created_at.toISOString(),
        last_used_at: iso(key.last_used_at),
        revoked_at: iso(key.revoked_at),
      })),
    };
  });

  app.patch(
    "/workspaces/:id/api-keys/:key_id",
    {
      schema: {
        ...hidden,
        params: keyParams,
        body: z.strictObject({ daily_credit_cap: creditCap, total_credit_cap: creditCap }),
      },
    },
    async (request) => {
      const { id, key_id } = request.params;
      await setApiKeyCaps(db, id, key_id, {
        ...(request.body.daily_credit_cap === undefined
          ? {}
          : { daily_credit_cap: request.body.daily_credit_cap }),
        ...(request.body.total_credit_cap === undefined
          ? {}
          : { total_credit_cap: request.body.total_credit_cap }),
      });
      const key = (await listApiKeysWithSpending(db, id)).find((listed) => listed.id === key_id);
      if (!key) throw new ApiError("not_found", "No such API key in this workspace.");
      const { created_by_name: _name, ...rest } = key;
      return {
        ...rest,
        created_at: key.created_at.toISOString(),
        last_used_at: iso(key.last_used_at),
        revoked_at: iso(key.revoked_at),
      };
    },
  );

  app.delete(
    "/workspaces/:id/api-keys/:key_id",
    { schema: { ...hidden, params: keyParams } },
    async (request, reply) => {
      await revokeApiKey(db, request.params.id, request.params.key_id);
      return reply.code(204).send();
    },
  );
};

/** A workspace's live OAuth grants, each with what it has spent today (UTC) and in all. */
async function listGrantsWithSpending(db: Services["db"], workspaceId: string) {
  const grants = await withSpending(
    db,
    "oauth_grant",
    await listWorkspaceGrants(db, workspaceId),
    (grant) => grant.id,
  );
  return grants.map((grant) => ({ ...grant, approved_at: grant.approved_at.toISOString() }));
}

/** OAuth grants (connected apps): listed with their spending, and their spending caps set. */
const grantCapRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.get(
    "/workspaces/:id/oauth-grants",
    { schema: { ...hidden, params: workspaceParams } },
    async (request) => {
      await requireWorkspace(db, request.params.id);
      return { oauth_grants: await listGrantsWithSpending(db, request.params.id) };
    },
  );

  app.patch(
    "/workspaces/:id/oauth-grants/:grant_id",
    {
      schema: {
        ...hidden,
        params: grantParams,
        body: z.strictObject({ daily_credit_cap: creditCap, total_credit_cap: creditCap }),
      },
    },
    async (request) => {
      const { id, grant_id } = request.params;
      const { daily_credit_cap, total_credit_cap } = request.body;
      const found = await setWorkspaceGrantCaps(db, id, grant_id, {
        ...(daily_credit_cap === undefined ? {} : { daily_credit_cap }),
        ...(total_credit_cap === undefined ? {} : { total_credit_cap }),
      });
      const grant = found && (await listGrantsWithSpending(db, id)).find((listed) => listed.id === grant_id);
      if (!grant) throw new ApiError("not_found", "No such live OAuth grant in this workspace.");
      return grant;
    },
  );
};

/** The do-not-contact list of a workspace. */
const suppressionRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  // The suppression list: who must not be contacted (DESIGN "Lawful outreach"). Entries added here are the operator's.
  app.get(
    "/workspaces/:id/suppressions",
    {
      schema: {
        ...hidden,
        params: workspaceParams,
        response: { 200: z.object({ suppressions: z.array(suppressionSchema) }) },
      },
    },
    async (request) => {
      await requireWorkspace(db, request.params.id);
      return { suppressions: (await listSuppressions(db, request.params.id)).map(suppressionJson) };
    },
  );

  app.post(
    "/workspaces/:id/suppressions",
    {
      schema: {
        ...hidden,
        params: workspaceParams,
        body: suppressionRequestSchema,
        response: { 200: suppressionSchema, 201: suppressionSchema },
      },
    },
    async (request, reply) => {
      await requireWorkspace(db, request.params.id);
      const { entry, created } = await addSuppression(db, request.params.id, request.body, null, {
        maxEntries: services.config.suppressionsPerWorkspace,
      });
      // The same entry added twice is kept once: 200 with the first one.
      return reply.code(created ? 201 : 200).send(suppressionJson(entry));
    },
  );

  app.delete(
    "/workspaces/:id/suppressions/:entry_id",
    { schema: { ...hidden, params: suppressionParams } },
    async (request, reply) => {
      await removeSuppression(db, request.params.id, request.params.entry_id);
      return reply.code(204).send();
    },
  );
};

/** Credit purchases recorded by the operator. */
const creditRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const { db } = services;

  app.post(
    "/workspaces/:id/credit-purchases",
    {
      schema: {
        ...hidden,
        params: workspaceParams,
        body: z.strictObject({ credits: z.number().int().min(1).max(MAX_PURCHASE_CREDITS) }),
      },
    },
    async (request, reply) => {
      await requireWorkspace(db, request.params.id);
      const purchased = await purchaseCredits(db, request.params.id, request.body.credits);
      services.metrics.purchaseCredited("operator", request.body.credits);
      return reply.code(201).send(purchased);
    },
  );
};

export default adminRoutes;
