/**
 * The ledger's invariants, checked in SQL at the end of a fault test: whatever failed, every
 * workspace's balance is 10 + purchases - credits taken back by refunds and disputes - search charges - drafts, no place is charged twice to a
 * workspace, and every charged place is saved as that workspace's lead.
 */
export type SqlQuery = <T extends Record<string, unknown>>(text: string) => Promise<T[]>;

export interface MoneyViolations {
  balances: { workspace_id: string; balance: number; expected: number }[];
  doubleCharges: { workspace_id: string; place_id: string; charges: number }[];
  chargedWithoutLead: { workspace_id: string; place_id: string }[];
}

export async function moneyInvariantViolations(query: SqlQuery): Promise<MoneyViolations> {
  const balances = await query<{ workspace_id: string; balance: number; expected: number }>(`
    select w.id as workspace_id, w.balance,
           (10 + coalesce((select sum(p.credits) from credit_purchases p where p.workspace_id = w.id), 0)
               - coalesce((select sum(r.credits) from credit_reversals r where r.workspace_id = w.id), 0)
               - (select count(*) from search_charges c where c.workspace_id = w.id)
               - (select count(*) from drafts d where d.workspace_id = w.id))::int as expected
      from workspaces w`);
  const doubleCharges = await query<{ workspace_id: string; place_id: string; charges: number }>(`
    select workspace_id, place_id, count(*)::int as charges
      from search_charges group by workspace_id, place_id having count(*) > 1`);
  const chargedWithoutLead = await query<{ workspace_id: string; place_id: string }>(`
    select c.workspace_id, c.place_id
      from search_charges c
      left join leads l on l.workspace_id = c.workspace_id and l.place_id = c.place_id
     where l.id is null`);
  return {
    balances: balances.filter((row) => Number(row.balance) !== Number(row.expected)),
    doubleCharges,
    chargedWithoutLead,
  };
}
