import type { Db } from "../db/database.ts";
import type { Workspace } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import type { Language } from "../languages.ts";

export const STARTING_CREDITS = 10;

export async function createWorkspace(
  db: Db,
  input: { name: string; language?: Language },
): Promise<Workspace> {
  return db
    .insertInto("workspaces")
    .values({ name: input.name, language: input.language ?? "en", balance: STARTING_CREDITS })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Every workspace, oldest first (operators' listing; a service has few enough for one page). */
export async function listWorkspaces(db: Db): Promise<Workspace[]> {
  return db.selectFrom("workspaces").selectAll().orderBy("created_at").orderBy("id").execute();
}

export async function findWorkspace(db: Db, workspaceId: string): Promise<Workspace | undefined> {
  return db.selectFrom("workspaces").selectAll().where("id", "=", workspaceId).executeTakeFirst();
}

export async function requireWorkspace(db: Db, workspaceId: string): Promise<Workspace> {
  const workspace = await findWorkspace(db, workspaceId);
  if (!workspace) throw new ApiError("not_found", "No such workspace.");
  return workspace;
}

export interface WorkspaceSettings {
  language?: Language;
  sender_name?: string | null;
  sender_company?: string | null;
  /** The offer of English drafts, and of French ones: each draft carries only its own language's. */
  offer_en?: string | null;
  offer_fr?: string | null;
  postal_address?: string | null;
}

export async function updateWorkspaceSettings(
  db: Db,
  workspaceId: string,
  settings: WorkspaceSettings,
): Promise<Workspace> {
  if (Object.keys(settings).length === 0) return requireWorkspace(db, workspaceId);
  const updated = await db
    .updateTable("workspaces")
    .set(settings)
    .where("id", "=", workspaceId)
    .returningAll()
    .executeTakeFirst();
  if (!updated) throw new ApiError("not_found", "No such workspace.");
  return updated;
}
