import type { Db } from "../db/database.ts";
import { ApiError, refusal } from "../errors.ts";
import { hashSecret, looksLikeSecret, newSecret } from "../secrets.ts";
import { hasJoinedMember, joinWorkspace, memberDisplayName, memberEmail } from "../workspaces/members.ts";
import { requireWorkspace } from "../workspaces/workspaces.ts";
import { findAccountByEmail, normalizeEmail } from "./accounts.ts";
import { hashPassword, passwordProblem } from "./passwords.ts";

/** An invite link works once, for a week. */
const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

export interface CreatedInvite {
  id: string;
  email: string;
  /** The link's secret, shown once; only its hash is kept. */
  token: string;
  expires_at: Date;
}

/** The refusals of an invite a person can correct (the console words them in the member's language). */
export const INVITE_REFUSALS = {
  alreadyMember: "email: already a member of this workspace.",
  alreadyInvited: "email: already invited to this workspace; cancel the pending invite to send a new one.",
} as const;

/**
 * A new invite link for an address: one pending invite per address and workspace. A member's
 * second invite of an address still pending is refused (`email: already invited`: cancel it to
 * send another), so the form is no way to mail one mailbox again and again; the operator's
 * (`pending: "replace"`) cancels the pending one and issues a new link.
 */
export async function createInvite(
  db: Db,
  workspaceId: string,
  input: { email: string; name?: string | null; invitedBy?: string | null },
  now: Date = new Date(),
  options: { pending: "refuse" | "replace" } = { pending: "refuse" },
): Promise<CreatedInvite> {
  await requireWorkspace(db, workspaceId);
  if (await hasJoinedMember(db, workspaceId, input.email))
    throw new ApiError("invalid_request", INVITE_REFUSALS.alreadyMember);
  const pending = db
    .updateTable("invites")
    .set({ cancelled_at: now })
    .where("workspace_id", "=", workspaceId)
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", normalizeEmail(input.email)))
    .where("used_at", "is", null)
    .where("cancelled_at", "is", null)
    .where("expires_at", ">", now);
  if (options.pending === "replace") await pending.execute();
  else {
    const open = await db
      .selectFrom("invites")
      .select("id")
      .where("workspace_id", "=", workspaceId)
      .where((eb) => eb(eb.fn("lower", ["email"]), "=", normalizeEmail(input.email)))
      .where("used_at", "is", null)
      .where("cancelled_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    if (open) {
      throw new ApiError("invalid_request", INVITE_REFUSALS.alreadyInvited);
    }
  }
  const token = newSecret();
  const row = await db
    .insertInto("invites")
    .values({
      workspace_id: workspaceId,
      email: input.email.trim(),
      name: input.name ?? null,
      token_hash: hashSecret(token),
      invited_by: input.invitedBy ?? null,
      created_at: now,
      expires_at: new Date(now.getTime() + INVITE_TTL_MS),
    })
    .returning(["id", "email", "expires_at"])
    .executeTakeFirstOrThrow();
  return { ...row, token };
}

export interface OpenInvite {
  id: string;
  workspace_id: string;
  workspace_name: string;
  email: string;
  name: string | null;
}

/** The invite behind a link, or null when it is unknown, used, cancelled or expired. */
export async function findOpenInvite(
  db: Db,
  token: string,
  now: Date = new Date(),
): Promise<OpenInvite | null> {
  if (!looksLikeSecret(token)) return null;
  const invite = await db
    .selectFrom("invites")
    .innerJoin("workspaces", "workspaces.id", "invites.workspace_id")
    .select([
      "invites.id",
      "invites.workspace_id",
      "workspaces.name as workspace_name",
      "invites.email",
      "invites.name",
    ])
    .where("invites.token_hash", "=", hashSecret(token))
    .where("invites.used_at", "is", null)
    .where("invites.cancelled_at", "is", null)
    .where("invites.expires_at", ">", now)
    .executeTakeFirst();
  return invite ?? null;
}

/**
 * How the person accepts: a new account made from the link (name and password chosen), or the
 * account they are signed in to, whose address must be the invited one. The link never checks a
 * password: an address that has an account joins by signing in through the sign-in form.
 */
export type InviteAnswer =
  | { kind: "new_account"; name: string; password: string }
  | { kind: "signed_in"; accountId: string };

/**
 * Uses the invite once and makes the person a member of the workspace. A member the operator
 * added with the same email becomes this person's membership, keeping the keys it created.
 * Errors: `invite_invalid` (404), `account_exists` (a new account asked for an address that has
 * one: sign in instead), `wrong_account` (signed in as another address).
 */
export async function acceptInvite(
  db: Db,
  token: string,
  answer: InviteAnswer,
  now: Date = new Date(),
): Promise<{ accountId: string; workspaceId: string; memberId: string }> {
  if (answer.kind === "new_account") {
    const problem = passwordProblem(answer.password);
    if (problem) throw refusal("invalid_request", problem);
  }
  const newHash = answer.kind === "new_account" ? await hashPassword(answer.password) : undefined;
  return db.transaction().execute(async (trx) => {
    const invite = looksLikeSecret(token)
      ? await trx
          .selectFrom("invites")
          .selectAll()
          .where("token_hash", "=", hashSecret(token))
          .forUpdate()
          .executeTakeFirst()
      : undefined;
    if (!invite || invite.used_at !== null || invite.cancelled_at !== null || invite.expires_at <= now) {
      throw refusal("not_found", "invite_invalid");
    }
    let account = await findAccountByEmail(trx, invite.email);
    if (answer.kind === "signed_in") {
      if (!account || account.id !== answer.accountId) throw refusal("invalid_request", "wrong_account");
    } else if (account) {
      throw refusal("invalid_request", "account_exists");
    } else {
      if (!newHash) throw new Error("a new account without its password hash");
      account = await trx
        .insertInto("accounts")
        .values({ email: invite.email, name: answer.name, password_hash: newHash })
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    const accountId = account.id;
    const memberId = await joinWorkspace(trx, invite.workspace_id, account, invite.email);
    await trx
      .updateTable("invites")
      .set({ used_at: now, member_id: memberId })
      .where("id", "=", invite.id)
      .execute();
    return { accountId, workspaceId: invite.workspace_id, memberId };
  });
}

export interface PendingInvite {
  id: string;
  email: string;
  invited_by_name: string | null;
  invited_by_email: string | null;
  created_at: Date;
  expires_at: Date;
}

/** Invites of the workspace whose link still works, newest first (members see and cancel them). */
export async function listPendingInvites(
  db: Db,
  workspaceId: string,
  now: Date = new Date(),
): Promise<PendingInvite[]> {
  return db
    .selectFrom("invites")
    .select([
      "invites.id",
      "invites.email",
      memberDisplayName("invites.invited_by").as("invited_by_name"),
      memberEmail("invites.invited_by").as("invited_by_email"),
      "invites.created_at",
      "invites.expires_at",
    ])
    .where("invites.workspace_id", "=", workspaceId)
    .where("invites.used_at", "is", null)
    .where("invites.cancelled_at", "is", null)
    .where("invites.expires_at", ">", now)
    .orderBy("invites.created_at", "desc")
    .orderBy("invites.id")
    .execute();
}

/** The link stops working at once; false when it was not a pending invite of this workspace. */
export async function cancelInvite(
  db: Db,
  workspaceId: string,
  inviteId: string,
  now: Date = new Date(),
): Promise<boolean> {
  const result = await db
    .updateTable("invites")
    .set({ cancelled_at: now })
    .where("id", "=", inviteId)
    .where("workspace_id", "=", workspaceId)
    .where("used_at", "is", null)
    .where("cancelled_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
