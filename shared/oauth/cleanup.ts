import type { Db } from "../db/database.ts";

/** Spent or expired codes are kept this long, so a replayed code is still recognised and revokes its grant. */
const SPENT_CODE_RETENTION_MS = 3600_000;

export interface OAuthCleanupResult {
  authorizationRequests: number;
  authorizationCodes: number;
  clients: number;
}

/**
 * Deletes what unauthenticated callers can leave behind: consent requests past their expiry,
 * codes long expired, and registered clients never approved (no grant) after `unusedClientTtlSeconds`.
 * Idempotent, so every API node may run it on its schedule.
 */
export async function cleanUpOAuth(
  db: Db,
  options: { unusedClientTtlSeconds: number },
  now: Date = new Date(),
): Promise<OAuthCleanupResult> {
  const unusedBefore = new Date(now.getTime() - options.unusedClientTtlSeconds * 1000);
  return db.transaction().execute(async (trx) => {
    const unusedClients = trx
      .selectFrom("oauth_clients")
      .select("oauth_clients.id")
      .where("oauth_clients.created_at", "<", unusedBefore)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom("oauth_grants")
              .select("oauth_grants.id")
              .whereRef("oauth_grants.client_id", "=", "oauth_clients.id"),
          ),
        ),
      );
    const requests = await trx
      .deleteFrom("oauth_authorization_requests")
      .where((eb) => eb.or([eb("expires_at", "<", now), eb("client_id", "in", unusedClients)]))
      .executeTakeFirst();
    const codes = await trx
      .deleteFrom("oauth_authorization_codes")
      .where("expires_at", "<", new Date(now.getTime() - SPENT_CODE_RETENTION_MS))
      .executeTakeFirst();
    const clients = await trx.deleteFrom("oauth_clients").where("id", "in", unusedClients).executeTakeFirst();
    return {
      authorizationRequests: Number(requests.numDeletedRows),
      authorizationCodes: Number(codes.numDeletedRows),
      clients: Number(clients.numDeletedRows),
    };
  });
}
