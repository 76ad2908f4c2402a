import { sql } from "kysely";
import type { BearerVerifier } from "../auth.ts";
import type { Db } from "../db/database.ts";
import { ApiError } from "../errors.ts";
import { API_KEY_PREFIX, hashSecret, looksLikeApiKey, newSecret } from "../secrets.ts";
import { findActiveMember, memberDisplayName, memberEmail } from "./members.ts";

/** A key's spending caps (credits per UTC day and in all); null: not capped. See shared/credits/caps.ts. */
interface SpendingCaps {
  daily_credit_cap: number | null;
  total_credit_cap: number | null;
}

export interface ApiKeyListing extends SpendingCaps {
  id: string;
  name: string;
  /** The key's first 8 characters (`ldk_` and 4 more), kept in clear to tell keys apart. */
  key_prefix: string;
  created_by: string;
  created_by_email: string;
  /** The creator's name as they signed up (or as the operator entered it); null when unknown. */
  created_by_name: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export async function createApiKey(
  db: Db,
  workspaceId: string,
  input: { name: string; createdBy: string } & Partial<SpendingCaps>,
): Promise<{ id: string; name: string; key: string; created_by: string; created_at: Date } & SpendingCaps> {
  const member = await findActiveMember(db, workspaceId, input.createdBy);
  if (!member) throw new ApiError("invalid_request", "created_by: not an active member of this workspace.");
  const key = newSecret(API_KEY_PREFIX);
  const row = await db
    .insertInto("api_keys")
    .values({
      workspace_id: workspaceId,
      name: input.name,
      key_hash: hashSecret(key),
      key_prefix: key.slice(0, 8),
      created_by: member.id,
      daily_credit_cap: input.daily_credit_cap ?? null,
      total_credit_cap: input.total_credit_cap ?? null,
    })
    .returning(["id", "name", "created_by", "created_at", "daily_credit_cap", "total_credit_cap"])
    .executeTakeFirstOrThrow();
  return { ...row, key };
}

export async function listApiKeys(db: Db, workspaceId: string): Promise<ApiKeyListing[]> {
  return db
    .selectFrom("api_keys")
    .select([
      memberDisplayName("api_keys.created_by").as("created_by_name"),
      "api_keys.id",
      "api_keys.name",
      "api_keys.key_prefix",
      "api_keys.created_by",
      // created_by is never null, so neither is its member's email.
      memberEmail("api_keys.created_by").$castTo<string>().as("created_by_email"),
      "api_keys.created_at",
      "api_keys.last_used_at",
      "api_keys.revoked_at",
      "api_keys.daily_credit_cap",
      "api_keys.total_credit_cap",
    ])
    .where("api_keys.workspace_id", "=", workspaceId)
    .orderBy("api_keys.created_at")
    .orderBy("api_keys.id")
    .execute();
}

/** Sets a key's spending caps: a field left out is kept, null clears it. Revoked keys too (harmless). */
export async function setApiKeyCaps(
  db: Db,
  workspaceId: string,
  keyId: string,
  caps: Partial<SpendingCaps>,
): Promise<void> {
  const set: Partial<SpendingCaps> = {};
  if (caps.daily_credit_cap !== undefined) set.daily_credit_cap = caps.daily_credit_cap;
  if (caps.total_credit_cap !== undefined) set.total_credit_cap = caps.total_credit_cap;
  const found = await db
    .selectFrom("api_keys")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", keyId)
    .executeTakeFirst();
  if (!found) throw new ApiError("not_found", "No such API key in this workspace.");
  if (Object.keys(set).length === 0) return;
  await db.updateTable("api_keys").set(set).where("id", "=", keyId).execute();
}

export async function revokeApiKey(db: Db, workspaceId: string, keyId: string): Promise<void> {
  const key = await db
    .selectFrom("api_keys")
    .select(["id", "revoked_at"])
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", keyId)
    .executeTakeFirst();
  if (!key) throw new ApiError("not_found", "No such API key in this workspace.");
  if (key.revoked_at) return;
  await db.updateTable("api_keys").set({ revoked_at: new Date() }).where("id", "=", keyId).execute();
}

/** The active key with this plaintext, looked up by hash; revoked keys are not found. */
async function findActiveApiKey(db: Db, plaintext: string) {
  return db
    .selectFrom("api_keys")
    .select(["id", "workspace_id"])
    .where("key_hash", "=", hashSecret(plaintext))
    .where("revoked_at", "is", null)
    .executeTakeFirst();
}

/**
 * Keeps `last_used_at` current without a write per request: uses are remembered in memory and
 * written in one statement per flush (on an interval and at shutdown).
 */
export class KeyUsageRecorder {
  readonly #db: Db;
  #pending = new Map<string, Date>();

  constructor(db: Db) {
    this.#db = db;
  }

  record(keyId: string, at: Date = new Date()): void {
    this.#pending.set(keyId, at);
  }

  async flush(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending];
    this.#pending = new Map();
    const rows = batch.map(([keyId, usedAt]) => sql`(${keyId}::uuid, ${usedAt}::timestamptz)`);
    await sql`
      update api_keys set last_used_at = used.at
      from (values ${sql.join(rows)}) as used (id, at)
      where api_keys.id = used.id and (api_keys.last_used_at is null or api_keys.last_used_at < used.at)
    `.execute(this.#db);
  }
}

/** Verifies `ldk_` bearer tokens against the hashed keys; revocation is seen on the next request. */
export function createApiKeyVerifier(db: Db, usage: KeyUsageRecorder): BearerVerifier {
  return {
    accepts: looksLikeApiKey,
    async verify(token) {
      const key = await findActiveApiKey(db, token);
      if (!key) return null;
      usage.record(key.id);
      return {
        workspaceId: key.workspace_id,
        rateLimitId: key.id,
        kind: "api_key",
        spender: { kind: "api_key", id: key.id },
      };
    },
  };
}
