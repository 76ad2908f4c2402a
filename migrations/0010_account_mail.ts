import { type Kysely, sql } from "kysely";

// Account mail: password reset links, self-serve sign-ups waiting for their mailed confirmation,
// and invites a member can cancel. Every link's secret is stored as a SHA-256 hex digest only.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  // A cancelled invite's link stops working at once; the row stays as a record.
  await sql`alter table invites add column cancelled_at timestamptz(3)`.execute(db);

  // Single-use reset links (1 hour), mailed to the account's address or printed for the operator.
  await sql`
    create table password_resets (
      id uuid primary key default gen_random_uuid(),
      account_id uuid not null references accounts (id),
      token_hash text not null unique,
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null,
      used_at timestamptz(3)
    )`.execute(db);
  await sql`create index password_resets_account on password_resets (account_id)`.execute(db);

  // A sign-up is only a request until its mailed link is opened: no account, no workspace before.
  // The chosen password is kept as its scrypt hash until then.
  await sql`
    create table sign_ups (
      id uuid primary key default gen_random_uuid(),
      email text not null,
      name text not null,
      agency_name text not null,
      password_hash text not null,
      language text not null check (language in ('en', 'fr')),
      token_hash text not null unique,
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null,
      confirmed_at timestamptz(3),
      account_id uuid references accounts (id)
    )`.execute(db);
  await sql`create index sign_ups_expiry on sign_ups (expires_at)`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists sign_ups`.execute(db);
  await sql`drop table if exists password_resets`.execute(db);
  await sql`alter table invites drop column if exists cancelled_at`.execute(db);
}
