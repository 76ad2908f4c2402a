import { type Kysely, sql } from "kysely";

// Credit holds: a credit set aside for work in flight (a draft while the model writes it), so that
// concurrent requests cannot all start paid work on the same last credit. A hold is not a charge:
// it is settled (deleted and debited in one transaction) or released (deleted), and a hold whose
// process died lapses by itself at expires_at. Every balance check counts the live holds.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table credit_holds (
      id uuid primary key default gen_random_uuid(),
      workspace_id uuid not null references workspaces (id),
      credits integer not null check (credits > 0),
      purpose text not null,
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null
    )`.execute(db);
  await sql`create index credit_holds_workspace on credit_holds (workspace_id, expires_at)`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists credit_holds`.execute(db);
}
