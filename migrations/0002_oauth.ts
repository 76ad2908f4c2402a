import { type Kysely, sql } from "kysely";

// OAuth 2.0 authorization server for assistant clients. Secrets (codes, tokens, the consent
// page's CSRF token and browser binding) are stored as SHA-256 hex digests only.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  // Public clients registered through RFC 7591 dynamic registration.
  await sql`
    create table oauth_clients (
      id text primary key,
      client_name text not null,
      redirect_uris jsonb not null,
      scope text not null,
      created_at timestamptz(3) not null default now()
    )`.execute(db);

  // One authorization request shown on the consent page, waiting for Approve or Deny.
  await sql`
    create table oauth_authorization_requests (
      id uuid primary key default gen_random_uuid(),
      client_id text not null references oauth_clients (id),
      redirect_uri text not null,
      scope text not null,
      state text,
      code_challenge text not null,
      resource text,
      csrf_token_hash text not null,
      browser_binding_hash text not null,
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null,
      completed_at timestamptz(3)
    )`.execute(db);
  await sql`create index oauth_authorization_requests_expiry on oauth_authorization_requests (expires_at)`.execute(
    db,
  );

  // What a member approved: one client's access to one workspace. Every code and token issued
  // from it belongs to it, so revoking the grant revokes them all (the token family).
  await sql`
    create table oauth_grants (
      id uuid primary key default gen_random_uuid(),
      client_id text not null references oauth_clients (id),
      workspace_id uuid not null references workspaces (id),
      approved_with_api_key_id uuid not null references api_keys (id),
      scope text not null,
      resource text,
      created_at timestamptz(3) not null default now(),
      revoked_at timestamptz(3)
    )`.execute(db);
  await sql`create index oauth_grants_workspace on oauth_grants (workspace_id, created_at)`.execute(db);
  await sql`create index oauth_grants_api_key on oauth_grants (approved_with_api_key_id)`.execute(db);

  await sql`
    create table oauth_authorization_codes (
      code_hash text primary key,
      grant_id uuid not null references oauth_grants (id),
      redirect_uri text not null,
      code_challenge text not null,
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null,
      used_at timestamptz(3)
    )`.execute(db);
  await sql`create index oauth_authorization_codes_expiry on oauth_authorization_codes (expires_at)`.execute(
    db,
  );

  // Access and refresh tokens. A refresh token's used_at is set when it is rotated.
  await sql`
    create table oauth_tokens (
      token_hash text primary key,
      grant_id uuid not null references oauth_grants (id),
      kind text not null check (kind in ('access', 'refresh')),
      scope text not null,
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null,
      used_at timestamptz(3)
    )`.execute(db);
  await sql`create index oauth_tokens_grant on oauth_tokens (grant_id)`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "oauth_tokens",
    "oauth_authorization_codes",
    "oauth_grants",
    "oauth_authorization_requests",
    "oauth_clients",
  ]) {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
  }
}
