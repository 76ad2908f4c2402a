import { type Kysely, sql } from "kysely";

/** The password of a sign-up is chosen when its mailed link is opened: the form keeps none. */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against no schema type.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table sign_ups alter column password_hash drop not null`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from sign_ups where password_hash is null`.execute(db);
  await sql`alter table sign_ups alter column password_hash set not null`.execute(db);
}
