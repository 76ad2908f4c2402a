import { type Kysely, sql } from "kysely";

// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table workspaces (
      id uuid primary key default gen_random_uuid(),
      name text not null,
      language text not null default 'en' check (language in ('en', 'fr')),
      balance integer not null default 10 check (balance >= 0),
      free_trial boolean not null default true,
      sender_name text,
      sender_company text,
      offer text,
      created_at timestamptz(3) not null default now()
    )`.execute(db);

  await sql`
    create table members (
      id uuid primary key default gen_random_uuid(),
      workspace_id uuid not null references workspaces (id),
      email text not null,
      name text,
      created_at timestamptz(3) not null default now(),
      removed_at timestamptz(3)
    )`.execute(db);
  await sql`create unique index members_active_email on members (workspace_id, lower(email)) where removed_at is null`.execute(
    db,
  );

  await sql`
    create table api_keys (
      id uuid primary key default gen_random_uuid(),
      workspace_id uuid not null references workspaces (id),
      name text not null,
      key_hash text not null unique,
      key_prefix text not null,
      created_by uuid not null references members (id),
      created_at timestamptz(3) not null default now(),
      last_used_at timestamptz(3),
      revoked_at timestamptz(3)
    )`.execute(db);
  await sql`create index api_keys_workspace on api_keys (workspace_id, created_at)`.execute(db);

  await sql`
    create table places (
      place_id text primary key,
      name text not null,
      category text not null,
      address text,
      website text,
      country text,
      rating double precision,
      user_rating_count integer not null default 0,
      updated_at timestamptz(3) not null default now()
    )`.execute(db);

  await sql`
    create table leads (
      id uuid primary key default gen_random_uuid(),
      workspace_id uuid not null references workspaces (id),
      place_id text not null references places (place_id),
      email text,
      outreach_status text not null default 'new' check (outreach_status in ('new', 'drafted', 'sent', 'skipped')),
      added_at timestamptz(3) not null default now(),
      unique (workspace_id, place_id)
    )`.execute(db);
  await sql`create index leads_page on leads (workspace_id, added_at desc, id desc)`.execute(db);

  await sql`
    create table search_charges (
      workspace_id uuid not null references workspaces (id),
      place_id text not null references places (place_id),
      charged_at timestamptz(3) not null default now(),
      primary key (workspace_id, place_id)
    )`.execute(db);

  await sql`
    create table credit_purchases (
      id uuid primary key default gen_random_uuid(),
      workspace_id uuid not null references workspaces (id),
      credits integer not null check (credits > 0),
      created_at timestamptz(3) not null default now()
    )`.execute(db);

  await sql`
    create table site_audits (
      place_id text primary key,
      url text not null,
      outcome text not null check (outcome in ('ok', 'failed')),
      failure text,
      signals jsonb not null,
      evidence jsonb not null,
      audited_at timestamptz(3) not null default now()
    )`.execute(db);

  await sql`
    create table drafts (
      id uuid primary key default gen_random_uuid(),
      workspace_id uuid not null references workspaces (id),
      lead_id uuid not null references leads (id),
      locale text not null check (locale in ('en', 'fr')),
      generator text not null,
      subject text not null,
      body text not null,
      facts_used jsonb not null,
      created_at timestamptz(3) not null default now()
    )`.execute(db);
  await sql`create index drafts_lead on drafts (lead_id, created_at)`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "drafts",
    "site_audits",
    "credit_purchases",
    "search_charges",
    "leads",
    "places",
    "api_keys",
    "members",
    "workspaces",
  ]) {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
  }
}
