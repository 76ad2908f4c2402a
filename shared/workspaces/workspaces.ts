import type { RawBuilder } from "kysely";
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

async function findWorkspace(db: Db, workspaceId: string): Promise<Workspace | undefined> {
  return db.selectFrom("workspaces").selectAll().where("id", "=", workspaceId).executeTakeFirst();
}

export async function requireWorkspace(db: Db, workspaceId: string): Promise<Workspace> {
  const workspace = await findWorkspace(db, workspaceId);
  if (!workspace) throw new ApiError("not_found", "No such workspace.");
  return workspace;
}

/**
 * `requireWorkspace` and one more value the same statement reads (another table's subquery, from
 * that table's module): a search needs the workspace and whether it has a do-not-contact list
 * before anything else, and each round trip to the database costs more than such a query.
 */
export async function requireWorkspaceWith<T>(
  db: Db,
  workspaceId: string,
  alsoRead: RawBuilder<T>,
): Promise<{ workspace: Workspace; alsoRead: T }> {
  const row = await db
    .selectFrom("workspaces")
    .selectAll()
    .select(alsoRead.as("also_read"))
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  if (!row) throw new ApiError("not_found", "No such workspace.");
  const { also_read, ...workspace } = row;
  return { workspace, alsoRead: also_read as T };
}

/**
 * The workspace's text settings, a member's (console) or an operator's (admin API) to change, with
 * the most characters each may hold: the one list the admin API's body, the console's form and
 * page and the admin API's answer are built from. The offer is per language: each draft carries
 * only its own language's. The postal address ends every draft (anti-spam laws ask for it) and may
 * span a few lines.
 */
export const WORKSPACE_TEXT_SETTING_MAX_LENGTHS = {
  sender_name: 200,
  sender_company: 200,
  offer_en: 500,
  offer_fr: 500,
  postal_address: 300,
} as const;
export type WorkspaceTextSetting = keyof typeof WORKSPACE_TEXT_SETTING_MAX_LENGTHS;
export const WORKSPACE_TEXT_SETTINGS = Object.keys(
  WORKSPACE_TEXT_SETTING_MAX_LENGTHS,
) as WorkspaceTextSetting[];

/** A change of settings: the drafts' language and the text settings; what is left out is kept. */
export type WorkspaceSettings = { language?: Language } & {
  [Setting in WorkspaceTextSetting]?: string | null;
};

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
