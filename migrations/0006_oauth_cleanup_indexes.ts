import { type Kysely, sql } from "kysely";

// The scheduled OAuth clean-up deletes never-approved clients (no grant) older than a day and
// their consent requests: without these indexes each client's "has a grant?" check scans the grants.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index oauth_grants_client on oauth_grants (client_id)`.execute(db);
  await sql`create index oauth_clients_created on oauth_clients (created_at)`.execute(db);
  await sql`create index oauth_authorization_requests_client on oauth_authorization_requests (client_id)`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: as above.
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index oauth_authorization_requests_client`.execute(db);
  await sql`drop index oauth_clients_created`.execute(db);
  await sql`drop index oauth_grants_client`.execute(db);
}
