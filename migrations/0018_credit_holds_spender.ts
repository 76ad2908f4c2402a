import { type Kysely, sql } from "kysely";

// A credit hold names the API key or OAuth grant it is for (issue 28 item 4), so that a key's or
// grant's drafts in flight count against its spending caps when the next hold is placed: under the
// workspace lock, a key with 1 credit left under its cap gets one hold, and the model is asked
// once, however many drafts it starts at the same time. Console members' holds name neither.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table credit_holds
    add column api_key_id uuid references api_keys (id) on delete cascade,
    add column grant_id uuid references oauth_grants (id) on delete cascade`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table credit_holds drop column api_key_id, drop column grant_id`.execute(db);
}
