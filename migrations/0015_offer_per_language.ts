import { type Kysely, sql } from "kysely";

// Drafts a person would send: the workspace's offer per language, so an English draft never
// carries a French offer nor the reverse. The single offer becomes the offer of the workspace's
// language. The old column stays (never read or written from this release on) so that a node of
// the previous release, still running during a rolling deploy, keeps drafting; a later migration
// drops it.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table workspaces add column offer_en text, add column offer_fr text`.execute(db);
  await sql`update workspaces set offer_en = offer where language = 'en' and offer is not null`.execute(db);
  await sql`update workspaces set offer_fr = offer where language = 'fr' and offer is not null`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await sql`update workspaces set offer = case when language = 'fr' then offer_fr else offer_en end`.execute(
    db,
  );
  await sql`alter table workspaces drop column offer_en, drop column offer_fr`.execute(db);
}
