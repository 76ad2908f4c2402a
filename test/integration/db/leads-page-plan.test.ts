/**
 * The lead list reads only the leads of its page, even when the planner has no statistics: right
 * after a bulk insert, with autovacuum off so that no ANALYZE runs, EXPLAIN ANALYZE of the list
 * query as the app runs it shows at most `limit` rows read from leads in all. A plan that reads the
 * whole workspace and sorts it (what a plain join or a LIMIT subquery got here) reads 2,000.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leadPageQuery } from "../../../shared/leads/leads.ts";
import { createWorkspace } from "../../../shared/workspaces/workspaces.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";

const LEADS = 2_000;

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  Plans?: PlanNode[];
}

/** Rows that scans of `relation` returned, over all their loops. */
function rowsReadFrom(node: PlanNode, relation: string): number {
  const own = node["Relation Name"] === relation ? node["Actual Rows"] * node["Actual Loops"] : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsReadFrom(child, relation), 0);
}

let database: TestDatabase;
let workspaceId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const { db } = database;
  workspaceId = (await createWorkspace(db, { name: "Plan" })).id;
  // Another workspace's leads, so that the index holds more than the one being paged.
  const other = (await createWorkspace(db, { name: "Other" })).id;
  await sql`alter table leads set (autovacuum_enabled = off)`.execute(db);
  await sql`alter table places set (autovacuum_enabled = off)`.execute(db);
  await sql`
    insert into places (place_id, name, category, website, rating, user_rating_count)
    select 'plan-' || i, 'Business ' || i, 'Plumber', 'https://plan-' || i || '.example', 4.2, 25
    from generate_series(1, ${2 * LEADS}) as i`.execute(db);
  // 25 leads per timestamp, as one search saves them: ties that the id must break.
  await sql`
    insert into leads (workspace_id, place_id, added_at)
    select case when i <= ${LEADS} then ${workspaceId}::uuid else ${other}::uuid end, 'plan-' || i,
           timestamptz '2026-01-01 00:00:00+00' + make_interval(mins => i / 25)
    from generate_series(1, ${2 * LEADS}) as i`.execute(db);
});

afterAll(async () => {
  await database?.close();
});

async function leadsRead(page: Parameters<typeof leadPageQuery>[1]): Promise<number> {
  const compiled = leadPageQuery(workspaceId, page).compile(database.db);
  const explained = await database.db.executeQuery<{ "QUERY PLAN": [{ Plan: PlanNode }] | string }>({
    ...compiled,
    sql: `explain (analyze, format json) ${compiled.sql}`,
  });
  const raw = explained.rows[0]?.["QUERY PLAN"];
  const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }];
  return rowsReadFrom(plan[0].Plan, "leads");
}

describe("the lead list query without planner statistics", () => {
  it("reads only the first page's leads", async () => {
    expect(await leadsRead({ limit: 26, after: null })).toBeLessThanOrEqual(26);
  });

  it("reads only the next page's leads after a cursor deep in the list", async () => {
    const { rows } = await leadPageQuery(workspaceId, { limit: 1_000, after: null }).execute(database.db);
    const last = rows.at(-1);
    expect(rows).toHaveLength(1_000);
    expect(
      await leadsRead({ limit: 26, after: { addedAt: last!.added_at, leadId: last!.id } }),
    ).toBeLessThanOrEqual(26);
  });

  it("returns the page in order, newest first, ties broken by id descending", async () => {
    const { rows } = await leadPageQuery(workspaceId, { limit: 60, after: null }).execute(database.db);
    expect(rows).toHaveLength(60);
    const key = (row: (typeof rows)[number]) => `${row.added_at.toISOString()}|${row.id}`;
    expect(rows.map(key)).toEqual(rows.map(key).sort().reverse());
    expect(new Set(rows.map((row) => row.place_id)).size).toBe(60);
    expect(rows.every((row) => row.name.startsWith("Business "))).toBe(true);
  });
});
