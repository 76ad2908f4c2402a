import { type Kysely, sql } from "kysely";

// Spending caps (issue 28): each API key and each OAuth grant may cap what it spends per UTC day
// and in total. Every credit a key or grant spends is one row of credit_spends, written in the
// transaction that charges it (under the workspace lock), so the caps are checked against what is
// committed and two charges can never pass a cap together. Console members spend no row: they are
// not capped.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table api_keys
    add column daily_credit_cap integer check (daily_credit_cap >= 0),
    add column total_credit_cap integer check (total_credit_cap >= 0)`.execute(db);
  await sql`alter table oauth_grants
    add column daily_credit_cap integer check (daily_credit_cap >= 0),
    add column total_credit_cap integer check (total_credit_cap >= 0)`.execute(db);
  await sql`create table credit_spends (
    id uuid primary key default gen_random_uuid(),
    workspace_id uuid not null references workspaces (id) on delete cascade,
    api_key_id uuid references api_keys (id) on delete cascade,
    grant_id uuid references oauth_grants (id) on delete cascade,
    credits integer not null check (credits > 0),
    spent_at timestamptz not null default now(),
    check ((api_key_id is null) <> (grant_id is null))
  )`.execute(db);
  await sql`create index credit_spends_api_key on credit_spends (api_key_id, spent_at) where api_key_id is not null`.execute(
    db,
  );
  await sql`create index credit_spends_grant on credit_spends (grant_id, spent_at) where grant_id is not null`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table credit_spends`.execute(db);
  await sql`alter table oauth_grants drop column daily_credit_cap, drop column total_credit_cap`.execute(db);
  await sql`alter table api_keys drop column daily_credit_cap, drop column total_credit_cap`.execute(db);
}
