import type { ColumnType, Generated, Insertable, Selectable } from "kysely";
import type { AuditEvidence, AuditSignals } from "../audit/types.ts";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string, string>;

export type Language = "en" | "fr";
export type OutreachStatus = "new" | "drafted" | "sent" | "skipped";

export interface WorkspacesTable {
  id: Generated<string>;
  name: string;
  language: ColumnType<Language, Language | undefined, Language>;
  balance: ColumnType<number, number | undefined, number>;
  free_trial: ColumnType<boolean, boolean | undefined, boolean>;
  sender_name: string | null;
  sender_company: string | null;
  offer: string | null;
  created_at: Timestamp;
}

export interface MembersTable {
  id: Generated<string>;
  workspace_id: string;
  email: string;
  name: string | null;
  created_at: Timestamp;
  removed_at: NullableTimestamp;
}

export interface ApiKeysTable {
  id: Generated<string>;
  workspace_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  created_by: string;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface PlacesTable {
  place_id: string;
  name: string;
  category: string;
  address: string | null;
  website: string | null;
  country: string | null;
  rating: number | null;
  user_rating_count: number;
  updated_at: Timestamp;
}

export interface LeadsTable {
  id: Generated<string>;
  workspace_id: string;
  place_id: string;
  email: string | null;
  outreach_status: ColumnType<OutreachStatus, OutreachStatus | undefined, OutreachStatus>;
  added_at: Timestamp;
}

export interface SearchChargesTable {
  workspace_id: string;
  place_id: string;
  charged_at: Timestamp;
}

export interface CreditPurchasesTable {
  id: Generated<string>;
  workspace_id: string;
  credits: number;
  created_at: Timestamp;
}

export interface SiteAuditsTable {
  place_id: string;
  url: string;
  outcome: "ok" | "failed";
  failure: string | null;
  signals: Json<AuditSignals>;
  evidence: Json<AuditEvidence>;
  audited_at: Timestamp;
}

export interface DraftsTable {
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

export interface Database {
  workspaces: WorkspacesTable;
  members: MembersTable;
  api_keys: ApiKeysTable;
  places: PlacesTable;
  leads: LeadsTable;
  search_charges: SearchChargesTable;
  credit_purchases: CreditPurchasesTable;
  site_audits: SiteAuditsTable;
  drafts: DraftsTable;
}

export type Workspace = Selectable<WorkspacesTable>;
export type Member = Selectable<MembersTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type Place = Selectable<PlacesTable>;
export type NewPlace = Insertable<PlacesTable>;
export type Lead = Selectable<LeadsTable>;
