import type { Db } from "../db/database.ts";
import { ApiError } from "../errors.ts";
import { newSecret } from "../oauth/secrets.ts";
import { hashSecret } from "../workspaces/api-keys.ts";
import { requireWorkspace } from "../workspaces/workspaces.ts";
import { findAccountByEmail, normalizeEmail } from "./accounts.ts";
import { hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";

/** An invite link works once, for a week. */
const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

const INVITE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface CreatedInvite {
  id: string;
  email: string;
  /** The link's secret, shown once; only its hash is kept. */
  token: string;
  expires_at: Date;
}

export async function createInvite(
  db: Db,
  workspaceId: string,
  input: { email: string; name?: string | null; invitedBy?: string | null },
  now: Date = new Date(),
): Promise<CreatedInvite> {
  await requireWorkspace(db, workspaceId);
  const joined = await db
    .selectFrom("members")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", normalizeEmail(input.email)))
    .where("account_id", "is not", null)
    .where("removed_at", "is", null)
    .executeTakeFirst();
  if (joined) throw new ApiError("invalid_request", "email: already a member of this workspace.");
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
  /** The invited email already has an account: joining asks for its password. */
  account_exists: boolean;
}

/** The invite behind a link, or null when it is unknown, used or expired. */
export async function findOpenInvite(
  db: Db,
  token: string,
  now: Date = new Date(),
): Promise<OpenInvite | null> {
  if (!INVITE_TOKEN_PATTERN.test(token)) return null;
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
    .where("invites.expires_at", ">", now)
    .executeTakeFirst();
  if (!invite) return null;
  return { ...invite, account_exists: (await findAccountByEmail(db, invite.email)) !== undefined };
}

export type InviteAnswer =
  | { kind: "new_account"; name: string; password: string }
  | { kind: "existing_account"; password: string };

/**
 * Uses the invite once: creates the account (or checks the existing account's password), and
 * makes the person a member of the workspace. A member the operator added with the same email
 * becomes this person's membership, keeping the keys it created.
 */
export async function acceptInvite(
  db: Db,
  token: string,
  answer: InviteAnswer,
  now: Date = new Date(),
): Promise<{ accountId: string; workspaceId: string; memberId: string }> {
  if (answer.kind === "new_account") {
    const problem = passwordProblem(answer.password);
    if (problem) throw new ApiError("invalid_request", problem);
  }
  const newHash = answer.kind === "new_account" ? await hashPassword(answer.password) : undefined;
  return db.transaction().execute(async (trx) => {
    const invite = INVITE_TOKEN_PATTERN.test(token)
      ? await trx
          .selectFrom("invites")
          .selectAll()
          .where("token_hash", "=", hashSecret(token))
          .forUpdate()
          .executeTakeFirst()
      : undefined;
    if (!invite || invite.used_at !== null || invite.expires_at <= now) {
      throw new ApiError("not_found", "invite_invalid");
    }
    let account = await findAccountByEmail(trx, invite.email);
    if (account) {
      if (
        answer.kind !== "existing_account" ||
        !(await verifyPassword(answer.password, account.password_hash))
      ) {
        throw new ApiError("invalid_request", "wrong_password");
      }
    } else {
      if (answer.kind !== "new_account" || !newHash) throw new ApiError("invalid_request", "name_required");
      account = await trx
        .insertInto("accounts")
        .values({ email: invite.email, name: answer.name, password_hash: newHash })
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    const accountId = account.id;
    const existing = await trx
      .selectFrom("members")
      .select(["id", "account_id"])
      .where("workspace_id", "=", invite.workspace_id)
      .where("removed_at", "is", null)
      .where((eb) =>
        eb.or([
          eb("account_id", "=", accountId),
          eb.and([
            eb(eb.fn("lower", ["email"]), "=", normalizeEmail(invite.email)),
            eb("account_id", "is", null),
          ]),
        ]),
      )
      .orderBy("created_at")
      .executeTakeFirst();
    let memberId: string;
    if (existing) {
      memberId = existing.id;
      if (existing.account_id === null) {
        await trx.updateTable("members").set({ account_id: accountId }).where("id", "=", memberId).execute();
      }
    } else {
      memberId = (
        await trx
          .insertInto("members")
          .values({
            workspace_id: invite.workspace_id,
            email: account.email,
            name: account.name,
            account_id: accountId,
          })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    }
    await trx
      .updateTable("invites")
      .set({ used_at: now, member_id: memberId })
      .where("id", "=", invite.id)
      .execute();
    return { accountId, workspaceId: invite.workspace_id, memberId };
  });
}
