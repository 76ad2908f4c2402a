import { type Kysely, sql } from "kysely";

// Buying credits through Stripe Checkout. A purchase is an operator's (admin API) or a paid Checkout
// Session's; the session id is unique, so however often Stripe delivers its completion the row is
// inserted, and the balance raised, once. A refund or a dispute is a reversal: found by payment
// intent, it takes the purchase's credits back (never below 0; what could not be taken is the
// shortfall). A reversal that arrives before its purchase is kept unlinked until the purchase
// comes, which then credits nothing. Balance = 10 + purchases - applied reversals - charges - drafts.
// Migrations never import application code and never change once landed.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever the schema was at the time.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table credit_purchases
      add column source text not null default 'operator' check (source in ('operator', 'stripe')),
      add column checkout_session_id text unique,
      add column payment_intent_id text unique,
      add column amount integer check (amount > 0),
      add column currency text,
      add column reversed_credits integer not null default 0,
      add column shortfall_credits integer not null default 0,
      add constraint credit_purchases_stripe_session check ((source = 'stripe') = (checkout_session_id is not null)),
      add constraint credit_purchases_reversed check (reversed_credits between 0 and credits),
      add constraint credit_purchases_shortfall check (shortfall_credits between 0 and reversed_credits)`.execute(
    db,
  );
  await sql`create index credit_purchases_workspace on credit_purchases (workspace_id, created_at)`.execute(
    db,
  );
  await sql`
    create table credit_reversals (
      id uuid primary key default gen_random_uuid(),
      payment_intent_id text not null,
      kind text not null check (kind in ('refund', 'dispute')),
      reference text not null,
      amount integer not null check (amount >= 0),
      purchase_id uuid references credit_purchases (id),
      workspace_id uuid references workspaces (id),
      credits integer not null default 0 check (credits >= 0),
      shortfall integer not null default 0 check (shortfall >= 0),
      created_at timestamptz(3) not null default now(),
      applied_at timestamptz(3),
      unique (payment_intent_id, kind, reference),
      check ((purchase_id is null) = (applied_at is null))
    )`.execute(db);
  await sql`create index credit_reversals_workspace on credit_reversals (workspace_id, applied_at)`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists credit_reversals`.execute(db);
  await sql`drop index if exists credit_purchases_workspace`.execute(db);
  await sql`
    alter table credit_purchases
      drop column source, drop column checkout_session_id, drop column payment_intent_id, drop column amount,
      drop column currency, drop column reversed_credits, drop column shortfall_credits`.execute(db);
}
