import type { ColumnType, Generated, Selectable } from "kysely";
import type { Language } from "../languages.ts";
import type { AuditEvidence, AuditSignals } from "./site-audit-json.ts";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string, string>;

export type OutreachStatus = "new" | "drafted" | "sent" | "skipped";

interface WorkspacesTable {
  id: Generated<string>;
  name: string;
  language: ColumnType<Language, Language | undefined, Language>;
  balance: ColumnType<number, number | undefined, number>;
  free_trial: ColumnType<boolean, boolean | undefined, boolean>;
  sender_name: string | null;
  sender_company: string | null;
  /**
   * Never read or written since migration 0015 (the offer per language below): kept until every
   * running node has stopped selecting it, then dropped.
   */
  offer: ColumnType<string | null, string | null | undefined, string | null>;
  /** The offer written into English drafts; null: English drafts carry no offer. */
  offer_en: ColumnType<string | null, string | null | undefined, string | null>;
  /** The offer written into French drafts; null: French drafts carry no offer. */
  offer_fr: ColumnType<string | null, string | null | undefined, string | null>;
  /** Ends every draft (CASL, CAN-SPAM); null: the draft shows a placeholder. */
  postal_address: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export type SuppressionKind = "email" | "domain" | "place";

/** Who must not be contacted; see shared/suppressions/suppressions.ts. */
interface SuppressionsTable {
  id: Generated<string>;
  workspace_id: string;
  kind: SuppressionKind;
  /** A lower-cased email address or domain, or a place id as the provider spells it. */
  value: string;
  reason: string | null;
  /** The member who added it; null: the operator (admin API). */
  added_by_member_id: string | null;
  created_at: Timestamp;
}

interface MembersTable {
  id: Generated<string>;
  workspace_id: string;
  email: string;
  name: string | null;
  created_at: Timestamp;
  removed_at: NullableTimestamp;
  /** The person holding this membership; null for a member added by the operator who never signed in. */
  account_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A person who signs in to the console; one account, memberships in several workspaces. */
interface AccountsTable {
  id: Generated<string>;
  email: string;
  name: string;
  /** scrypt, with its parameters and salt (see shared/accounts/passwords.ts). */
  password_hash: string;
  language: ColumnType<Language, Language | undefined, Language>;
  created_at: Timestamp;
  password_changed_at: Timestamp;
}

/** A single-use, expiring link that lets a person join a workspace. */
interface InvitesTable {
  id: Generated<string>;
  workspace_id: string;
  email: string;
  name: string | null;
  token_hash: string;
  invited_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  member_id: string | null;
  /** Set when a member cancels it: the link stops working at once. */
  cancelled_at: NullableTimestamp;
}

/** A single-use password reset link (1 hour), mailed or printed for the operator. */
interface PasswordResetsTable {
  id: Generated<string>;
  account_id: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

/** A self-serve sign-up waiting for its mailed link: nothing else exists until it is confirmed. */
interface SignUpsTable {
  id: Generated<string>;
  email: string;
  name: string;
  agency_name: string;
  /** Null: the password is chosen at confirmation (a sign-up of before that change kept one here, unused). */
  password_hash: string | null;
  language: Language;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  confirmed_at: NullableTimestamp;
  account_id: string | null;
}

/** A signed-in browser: the cookie's opaque token, stored as a hash. */
interface SessionsTable {
  token_hash: string;
  account_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

interface ApiKeysTable {
  id: Generated<string>;
  workspace_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  created_by: string;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  /** Spending caps (migration 0016): credits per UTC day and in all; null: not capped. */
  daily_credit_cap: ColumnType<number | null, number | null | undefined, number | null>;
  total_credit_cap: ColumnType<number | null, number | null | undefined, number | null>;
}

/** One charge made by an API key or an OAuth grant (console members spend none): what caps count. */
interface CreditSpendsTable {
  id: Generated<string>;
  workspace_id: string;
  api_key_id: string | null;
  grant_id: string | null;
  credits: number;
  spent_at: Timestamp;
}

export interface PlacesTable {
  place_id: string;
  name: string;
  category: string;
  address: string | null;
  website: string | null;
  /** The provider's national phone number (migration 0013); null when it gives none. */
  phone: string | null;
  country: string | null;
  rating: number | null;
  user_rating_count: number;
  updated_at: Timestamp;
}

interface LeadsTable {
  id: Generated<string>;
  workspace_id: string;
  place_id: string;
  /**
   * Never read or written: a lead's email is derived from its current website's audit
   * (`contactEmailOf`). Kept until every running node has stopped selecting it, then dropped.
   */
  email: string | null;
  outreach_status: ColumnType<OutreachStatus, OutreachStatus | undefined, OutreachStatus>;
  added_at: Timestamp;
}

interface SearchChargesTable {
  workspace_id: string;
  place_id: string;
  charged_at: Timestamp;
}

/** Credits set aside for work in flight; see shared/credits/holds.ts. */
interface CreditHoldsTable {
  id: Generated<string>;
  workspace_id: string;
  credits: number;
  /** What the hold is for ("draft"), for logs and investigations. */
  purpose: string;
  created_at: Timestamp;
  /** Past this the hold no longer counts: a crashed process's hold lapses by itself. */
  expires_at: Timestamp;
  /** The API key or OAuth grant the hold is for (migration 0018), so it counts against its caps; null for a member. */
  api_key_id: ColumnType<string | null, string | null | undefined, string | null>;
  grant_id: ColumnType<string | null, string | null | undefined, string | null>;
}

type PurchaseSource = "operator" | "stripe";

/** Credits bought: by the operator (admin API) or through Stripe Checkout; see shared/credits/purchases.ts. */
interface CreditPurchasesTable {
  id: Generated<string>;
  workspace_id: string;
  /** The credits bought (the pack's), added to the balance when the purchase was recorded. */
  credits: number;
  created_at: Timestamp;
  source: ColumnType<PurchaseSource, PurchaseSource | undefined, PurchaseSource>;
  /** Stripe only: the Checkout Session (unique: a purchase is credited once) and its payment intent. */
  checkout_session_id: ColumnType<string | null, string | null | undefined, string | null>;
  payment_intent_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Stripe only: what was paid, in the currency's smallest unit, and the currency (lower case). */
  amount: ColumnType<number | null, number | null | undefined, number | null>;
  currency: ColumnType<string | null, string | null | undefined, string | null>;
  /** Credits that refunds and disputes took back, or were owed and could not (the shortfall). */
  reversed_credits: ColumnType<number, number | undefined, number>;
  /** Of `reversed_credits`, those the balance could not give back (it never goes below 0). */
  shortfall_credits: ColumnType<number, number | undefined, number>;
}

/**
 * A refund or a dispute of a Stripe payment, found by payment intent; see shared/credits/reversals.ts.
 * Unlinked (no purchase, no workspace) while its purchase has not been recorded.
 */
interface CreditReversalsTable {
  id: Generated<string>;
  payment_intent_id: string;
  kind: "refund" | "dispute";
  /** The dispute's id; for a refund, the charge's running total refunded (each event carries it). */
  reference: string;
  /** The amount refunded so far, or disputed, in the currency's smallest unit. */
  amount: number;
  purchase_id: string | null;
  workspace_id: string | null;
  /** Credits this reversal took from the balance. */
  credits: ColumnType<number, number | undefined, number>;
  /** Credits it was owed and could not take (the balance stops at 0). */
  shortfall: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  /** When it was applied to its purchase (at once, or when the purchase arrived after it). */
  applied_at: NullableTimestamp;
}

interface SiteAuditsTable {
  place_id: string;
  url: string;
  outcome: "ok" | "failed";
  failure: string | null;
  signals: Json<AuditSignals>;
  evidence: Json<AuditEvidence>;
  audited_at: Timestamp;
}

interface DraftsTable {
  id: Generated<string>;
  workspace_id: string;
  lead_id: string;
  locale: Language;
  generator: string;
  subject: string;
  body: string;
  facts_used: Json<string[]>;
  created_at: Timestamp;
}

/** An RFC 7591 dynamically registered public client (no secret). */
interface OAuthClientsTable {
  id: string;
  client_name: string;
  redirect_uris: Json<string[]>;
  scope: string;
  created_at: Timestamp;
}

/** An authorization request waiting on the consent page; only hashes of its secrets are kept. */
interface OAuthAuthorizationRequestsTable {
  id: Generated<string>;
  client_id: string;
  redirect_uri: string;
  scope: string;
  state: string | null;
  code_challenge: string;
  resource: string | null;
  csrf_token_hash: string;
  browser_binding_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  completed_at: NullableTimestamp;
}

/** One client's approved access to one workspace: the family of its codes and tokens. */
interface OAuthGrantsTable {
  id: Generated<string>;
  client_id: string;
  workspace_id: string;
  /** Grants approved by pasting an API key (before the console); null for a member's approval. */
  approved_with_api_key_id: string | null;
  /** The member who approved in the console; their removal ends the grant's tokens. */
  approved_by_member_id: ColumnType<string | null, string | null | undefined, string | null>;
  scope: string;
  resource: string | null;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
  /** Spending caps (migration 0016): credits per UTC day and in all; null: not capped. */
  daily_credit_cap: ColumnType<number | null, number | null | undefined, number | null>;
  total_credit_cap: ColumnType<number | null, number | null | undefined, number | null>;
}

interface OAuthAuthorizationCodesTable {
  code_hash: string;
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

interface OAuthTokensTable {
  token_hash: string;
  grant_id: string;
  kind: "access" | "refresh";
  scope: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** Set on a refresh token when it is rotated; presenting it again revokes the grant. */
  used_at: NullableTimestamp;
}

export interface Database {
  workspaces: WorkspacesTable;
  members: MembersTable;
  accounts: AccountsTable;
  invites: InvitesTable;
  password_resets: PasswordResetsTable;
  sign_ups: SignUpsTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  places: PlacesTable;
  leads: LeadsTable;
  search_charges: SearchChargesTable;
  credit_purchases: CreditPurchasesTable;
  credit_reversals: CreditReversalsTable;
  credit_holds: CreditHoldsTable;
  credit_spends: CreditSpendsTable;
  site_audits: SiteAuditsTable;
  drafts: DraftsTable;
  suppressions: SuppressionsTable;
  oauth_clients: OAuthClientsTable;
  oauth_authorization_requests: OAuthAuthorizationRequestsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_authorization_codes: OAuthAuthorizationCodesTable;
  oauth_tokens: OAuthTokensTable;
}

export type Workspace = Selectable<WorkspacesTable>;
export type Member = Selectable<MembersTable>;
export type Account = Selectable<AccountsTable>;
