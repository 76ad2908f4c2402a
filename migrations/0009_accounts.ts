import { type Kysely, sql } from "kysely";

// The member console: people sign in with one account and may belong to several workspaces.
// A `members` row stays the per-workspace membership (keys name it as their creator); it now
// points at the account of the person who holds it. Secrets (invite tokens, session tokens)
// are stored as SHA-256 hex digests only; passwords as scrypt hashes.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table accounts (
      id uuid primary key default gen_random_uuid(),
      email text not null,
      name text not null,
      password_hash text not null,
      language text not null default 'en' check (language in ('en', 'fr')),
      created_at timestamptz(3) not null default now(),
      password_changed_at timestamptz(3) not null default now()
    )`.execute(db);
  await sql`create unique index accounts_email on accounts (lower(email))`.execute(db);

  await sql`alter table members add column account_id uuid references accounts (id)`.execute(db);
  // One active membership per person and workspace.
  await sql`create unique index members_account_workspace on members (account_id, workspace_id) where removed_at is null and account_id is not null`.execute(
    db,
  );

  // Single-use, expiring invite links; the link's token is shown once and stored hashed.
  await sql`
    create table invites (
      id uuid primary key default gen_random_uuid(),
      workspace_id uuid not null references workspaces (id),
      email text not null,
      name text,
      token_hash text not null unique,
      invited_by uuid references members (id),
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null,
      used_at timestamptz(3),
      member_id uuid references members (id)
    )`.execute(db);
  await sql`create index invites_workspace on invites (workspace_id, created_at)`.execute(db);

  // Server-side sessions: the cookie holds an opaque token, only its hash is stored here.
  await sql`
    create table sessions (
      token_hash text primary key,
      account_id uuid not null references accounts (id),
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null
    )`.execute(db);
  await sql`create index sessions_account on sessions (account_id)`.execute(db);
  await sql`create index sessions_expiry on sessions (expires_at)`.execute(db);

  // OAuth consent is given by a signed-in member now: the grant names the member (and through
  // it the person and the workspace). Grants approved with an API key before keep that key.
  await sql`alter table oauth_grants alter column approved_with_api_key_id drop not null`.execute(db);
  await sql`alter table oauth_grants add column approved_by_member_id uuid references members (id)`.execute(
    db,
  );
  await sql`
    alter table oauth_grants add constraint oauth_grants_approver
      check (approved_with_api_key_id is not null or approved_by_member_id is not null)`.execute(db);
  await sql`create index oauth_grants_member on oauth_grants (approved_by_member_id)`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from oauth_tokens where grant_id in (select id from oauth_grants where approved_with_api_key_id is null)`.execute(
    db,
  );
  await sql`delete from oauth_authorization_codes where grant_id in (select id from oauth_grants where approved_with_api_key_id is null)`.execute(
    db,
  );
  await sql`delete from oauth_grants where approved_with_api_key_id is null`.execute(db);
  await sql`alter table oauth_grants drop constraint if exists oauth_grants_approver`.execute(db);
  await sql`alter table oauth_grants drop column if exists approved_by_member_id`.execute(db);
  await sql`alter table oauth_grants alter column approved_with_api_key_id set not null`.execute(db);
  await sql`drop table if exists sessions`.execute(db);
  await sql`drop table if exists invites`.execute(db);
  await sql`drop index if exists members_account_workspace`.execute(db);
  await sql`alter table members drop column if exists account_id`.execute(db);
  await sql`drop table if exists accounts`.execute(db);
}
