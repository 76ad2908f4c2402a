/**
 * The credit history of the console's Credits page: every movement of the balance, newest first,
 * read from the ledger's own tables, so that its lines add up to the balance: the starting free
 * credits, purchases (the operator's and Stripe's), refunds and disputes, search charges, drafts.
 */
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { STARTING_CREDITS } from "../workspaces/workspaces.ts";

type LedgerEntryKind =
  | "free_credits"
  | "operator_purchase"
  | "stripe_purchase"
  | "refund"
  | "dispute"
  | "search_charge"
  | "draft";

export interface LedgerEntry {
  kind: LedgerEntryKind;
  /** What the line did to the balance: + added, - taken. */
  credits: number;
  at: Date;
  /** The place's name (a charge, a draft); null otherwise. */
  subject: string | null;
  /** A Stripe purchase: what was paid, in the currency's smallest unit; a reversal: the amount refunded or disputed. */
  amount: number | null;
  currency: string | null;
  /** A reversal: the credits of the pack it reverses, and those it could not take back (already spent). */
  pack: number | null;
  shortfall: number;
}

export interface CreditHistory {
  /** The newest lines, newest first. */
  entries: LedgerEntry[];
  /** The lines older than those shown, summed into one; null when every line is shown. */
  earlier: { lines: number; credits: number } | null;
  /** Every line summed: the balance, when every movement went through the ledger. */
  total: number;
}

const HISTORY_LIMIT = 200;

type Row = Omit<LedgerEntry, "at"> & { at: Date | string };

/** Every movement of one workspace's balance, as one `union all` (each branch its own table). */
const movements = (workspaceId: string) => sql<Row>`
  (select 'free_credits' as kind, ${STARTING_CREDITS}::int as credits, created_at as at, null::text as subject,
          null::int as amount, null::text as currency, null::int as pack, 0 as shortfall
     from workspaces where id = ${workspaceId})
  union all
  (select case source when 'stripe' then 'stripe_purchase' else 'operator_purchase' end, credits, created_at, null,
          amount, currency, credits, 0
     from credit_purchases where workspace_id = ${workspaceId})
  union all
  (select r.kind, -r.credits, r.applied_at, null, r.amount, p.currency, p.credits, r.shortfall
     from credit_reversals r join credit_purchases p on p.id = r.purchase_id
    where r.workspace_id = ${workspaceId})
  union all
  (select 'search_charge', -1, search_charges.charged_at, places.name, null, null, null, 0
     from search_charges join places on places.place_id = search_charges.place_id
    where search_charges.workspace_id = ${workspaceId})
  union all
  (select 'draft', -1, drafts.created_at, places.name, null, null, null, 0
     from drafts join leads on leads.id = drafts.lead_id join places on places.place_id = leads.place_id
    where drafts.workspace_id = ${workspaceId})`;

export async function readCreditHistory(db: Db, workspaceId: string): Promise<CreditHistory> {
  const [shown, all] = await Promise.all([
    sql<Row>`select * from (${movements(workspaceId)}) m order by at desc, kind limit ${HISTORY_LIMIT + 1}`.execute(
      db,
    ),
    sql<{ lines: string | number; credits: string | number | null }>`
      select count(*) as lines, sum(credits) as credits from (${movements(workspaceId)}) m`.execute(db),
  ]);
  const entries = shown.rows.slice(0, HISTORY_LIMIT).map((row) => ({
    ...row,
    credits: Number(row.credits),
    amount: row.amount === null ? null : Number(row.amount),
    pack: row.pack === null ? null : Number(row.pack),
    shortfall: Number(row.shortfall),
    at: new Date(row.at),
  }));
  const total = Number(all.rows[0]?.credits ?? 0);
  const lines = Number(all.rows[0]?.lines ?? 0);
  const shownCredits = entries.reduce((sum, entry) => sum + entry.credits, 0);
  return {
    entries,
    earlier: lines > entries.length ? { lines: lines - entries.length, credits: total - shownCredits } : null,
    total,
  };
}
