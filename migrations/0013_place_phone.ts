import { type Kysely, sql } from "kysely";

// Pitch facts: a place's phone number (the provider's national format), shown on every lead.
// And a place's website is an http(s) URL or nothing: earlier releases stored whatever the provider
// listed, `javascript:` and `data:` links included, and handed them to clients as websites.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table places add column phone text`.execute(db);
  await sql`update places set website = null where website is not null and website !~* '^https?://'`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table places drop column phone`.execute(db);
}
