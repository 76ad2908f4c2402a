import type { Db } from "../db/database.ts";
import type { Member } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { requireWorkspace } from "./workspaces.ts";

export async function addMember(
  db: Db,
  workspaceId: string,
  input: { email: string; name?: string | null },
): Promise<Member> {
  await requireWorkspace(db, workspaceId);
  const existing = await db
    .selectFrom("members")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", input.email.toLowerCase()))
    .where("removed_at", "is", null)
    .executeTakeFirst();
  if (existing) throw new ApiError("invalid_request", "email: already a member of this workspace.");
  return db
    .insertInto("members")
    .values({ workspace_id: workspaceId, email: input.email, name: input.name ?? null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Marks the member as gone; the keys they created belong to the workspace and keep working. */
export async function removeMember(db: Db, workspaceId: string, memberId: string): Promise<void> {
  const removed = await db
    .updateTable("members")
    .set({ removed_at: new Date() })
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", memberId)
    .where("removed_at", "is", null)
    .executeTakeFirst();
  if (removed.numUpdatedRows === 0n) throw new ApiError("not_found", "No such member in this workspace.");
}

export async function findActiveMember(db: Db, workspaceId: string, memberId: string) {
  return db
    .selectFrom("members")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", memberId)
    .where("removed_at", "is", null)
    .executeTakeFirst();
}
