import { type Kysely, sql } from "kysely";

// Lawful outreach: the workspace's postal address (every draft ends with it), and the workspace's
// suppression list: email addresses, email domains (covering their subdomains) and places that
// must not be contacted, each with who added it (a member, or the operator when null), when and
// why. Values compare case-insensitively: one entry per workspace, kind and lower-cased value.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table workspaces add column postal_address text`.execute(db);
  await sql`
    create table suppressions (
      id uuid primary key default gen_random_uuid(),
      workspace_id uuid not null references workspaces (id),
      kind text not null check (kind in ('email', 'domain', 'place')),
      value text not null,
      reason text,
      added_by_member_id uuid references members (id),
      created_at timestamptz(3) not null default now()
    )`.execute(db);
  await sql`create unique index suppressions_entry on suppressions (workspace_id, kind, lower(value))`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists suppressions`.execute(db);
  await sql`alter table workspaces drop column if exists postal_address`.execute(db);
}
