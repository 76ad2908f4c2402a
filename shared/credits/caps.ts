import type { Transaction } from "kysely";
import type { Spender } from "../auth.ts";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";
import { ApiError } from "../errors.ts";

/** The most a cap may be set to (the most credits one purchase can add is 100,000). */
export const MAX_CREDIT_CAP = 10_000_000;

/** What a key or grant may spend (null: not capped) and has spent, today (UTC) and in all. */
interface SpendingCaps {
  daily_credit_cap: number | null;
  total_credit_cap: number | null;
}
export interface Spending {
  spent_today: number;
  spent_total: number;
}

/** Midnight UTC of `now`'s day: daily caps count from it and reset at the next one. */
function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

const DAY_MS = 86_400_000;

function columnOf(spender: Spender): "api_key_id" | "grant_id" {
  return spender.kind === "api_key" ? "api_key_id" : "grant_id";
}

async function readCaps(db: Db | Transaction<Database>, spender: Spender): Promise<SpendingCaps | null> {
  const table = spender.kind === "api_key" ? "api_keys" : "oauth_grants";
  const row = await db
    .selectFrom(table)
    .select(["daily_credit_cap", "total_credit_cap"])
    .where("id", "=", spender.id)
    .executeTakeFirst();
  return row ?? null;
}

async function readSpending(
  db: Db | Transaction<Database>,
  spender: Spender,
  now: Date = new Date(),
): Promise<Spending> {
  const dayStart = startOfUtcDay(now);
  const row = await db
    .selectFrom("credit_spends")
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>("credits"), eb.lit(0)).as("spent_total"),
      eb.fn
        .coalesce(
          eb.fn.sum<number>(eb.case().when("spent_at", ">=", dayStart).then(eb.ref("credits")).else(0).end()),
          eb.lit(0),
        )
        .as("spent_today"),
    ])
    .where(columnOf(spender), "=", spender.id)
    .executeTakeFirstOrThrow();
  return { spent_today: Number(row.spent_today), spent_total: Number(row.spent_total) };
}

/** What each of these keys (or grants) has spent, by id (one statement; an id with no spend reads 0). */
export async function readSpendingByKey(
  db: Db,
  kind: Spender["kind"],
  ids: readonly string[],
  now: Date = new Date(),
): Promise<Map<string, Spending>> {
  const spending = new Map<string, Spending>(ids.map((id) => [id, { spent_today: 0, spent_total: 0 }]));
  if (ids.length === 0) return spending;
  const column = kind === "api_key" ? "api_key_id" : "grant_id";
  const dayStart = startOfUtcDay(now);
  const rows = await db
    .selectFrom("credit_spends")
    .select((eb) => [
      eb.ref(column).as("spender_id"),
      eb.fn.sum<number>("credits").as("spent_total"),
      eb.fn
        .sum<number>(eb.case().when("spent_at", ">=", dayStart).then(eb.ref("credits")).else(0).end())
        .as("spent_today"),
    ])
    .where(column, "in", ids)
    .groupBy(column)
    .execute();
  for (const row of rows) {
    if (row.spender_id === null) continue;
    spending.set(row.spender_id, {
      spent_today: Number(row.spent_today),
      spent_total: Number(row.spent_total),
    });
  }
  return spending;
}

/** Each key (or grant) with what it has spent today (UTC) and in all, beside its own fields. */
export async function withSpending<Row>(
  db: Db,
  kind: Spender["kind"],
  rows: readonly Row[],
  idOf: (row: Row) => string,
): Promise<(Row & Spending)[]> {
  const spending = await readSpendingByKey(db, kind, rows.map(idOf));
  return rows.map((row) => ({ ...row, ...(spending.get(idOf(row)) ?? { spent_today: 0, spent_total: 0 }) }));
}

/** Where a key or grant stands against its caps: what each still allows, and when the daily one resets. */
export interface CapStanding {
  daily: { cap: number; spent_today: number; remaining: number; resets_at: Date } | null;
  total: { cap: number; spent_total: number; remaining: number } | null;
}

export async function readCapStanding(
  db: Db | Transaction<Database>,
  spender: Spender,
  now: Date = new Date(),
): Promise<CapStanding> {
  const caps = await readCaps(db, spender);
  if (!caps || (caps.daily_credit_cap === null && caps.total_credit_cap === null)) {
    return { daily: null, total: null };
  }
  const spent = await readSpending(db, spender, now);
  return {
    daily:
      caps.daily_credit_cap === null
        ? null
        : {
            cap: caps.daily_credit_cap,
            spent_today: spent.spent_today,
            remaining: Math.max(0, caps.daily_credit_cap - spent.spent_today),
            resets_at: nextUtcMidnight(now),
          },
    total:
      caps.total_credit_cap === null
        ? null
        : {
            cap: caps.total_credit_cap,
            spent_total: spent.spent_total,
            remaining: Math.max(0, caps.total_credit_cap - spent.spent_total),
          },
  };
}

/** The next midnight UTC after `now`: when a daily cap starts counting again from 0. */
function nextUtcMidnight(now: Date): Date {
  return new Date(startOfUtcDay(now).getTime() + DAY_MS);
}

/**
 * Refuses (402) a charge of `credits` that would take the key or grant past one of its caps, then
 * records the spend. Runs in the charge's transaction, which holds the workspace lock: charges of
 * one workspace are applied one at a time, so two cannot pass a cap together.
 */
export async function spendWithinCaps(
  trx: Transaction<Database>,
  workspaceId: string,
  spender: Spender,
  credits: number,
  now: Date = new Date(),
  suggest?: SuggestUnderCap,
): Promise<void> {
  await refuseOverCap(trx, spender, credits, now, 0, suggest);
  await trx
    .insertInto("credit_spends")
    .values({
      workspace_id: workspaceId,
      api_key_id: spender.kind === "api_key" ? spender.id : null,
      grant_id: spender.kind === "oauth_grant" ? spender.id : null,
      credits,
      spent_at: now,
    })
    .execute();
}

/** What a refused caller could do within what its caps still allow (a search: a lower max_results). */
export type SuggestUnderCap = (remaining: number) => string;

/**
 * 402 when `credits` more would take the key or grant past a cap (names the cap and its reset).
 * `held`: credits its holds already set aside (drafts being written), counted as spent.
 * `suggest`: a way out within what both caps still allow, added when that is more than 0.
 */
export async function refuseOverCap(
  db: Db | Transaction<Database>,
  spender: Spender,
  credits: number,
  now: Date = new Date(),
  held = 0,
  suggest?: SuggestUnderCap,
): Promise<void> {
  const caps = await readCaps(db, spender);
  if (caps && (caps.daily_credit_cap !== null || caps.total_credit_cap !== null)) {
    const spent = await readSpending(db, spender, now);
    const remaining = Math.max(
      0,
      Math.min(
        caps.daily_credit_cap === null
          ? Number.POSITIVE_INFINITY
          : caps.daily_credit_cap - spent.spent_today - held,
        caps.total_credit_cap === null
          ? Number.POSITIVE_INFINITY
          : caps.total_credit_cap - spent.spent_total - held,
      ),
    );
    const wayOut = suggest && remaining > 0 ? ` ${suggest(remaining)}` : "";
    const who = spender.kind === "api_key" ? "This API key" : "This connected app";
    const needs = `this needs ${credits} credit${credits === 1 ? "" : "s"}${held > 0 ? ` and ${held} more ${held === 1 ? "is" : "are"} held by its drafts being written` : ""}`;
    if (caps.total_credit_cap !== null && spent.spent_total + held + credits > caps.total_credit_cap) {
      throw new ApiError(
        "insufficient_credits",
        `${who} has a total credit cap of ${caps.total_credit_cap} and has spent ${spent.spent_total}; ${needs}. Nothing was saved or charged. A total cap never resets: a member can raise or clear it.${wayOut}`,
      );
    }
    if (caps.daily_credit_cap !== null && spent.spent_today + held + credits > caps.daily_credit_cap) {
      const resets = nextUtcMidnight(now).toISOString();
      throw new ApiError(
        "insufficient_credits",
        `${who} has a daily credit cap of ${caps.daily_credit_cap} and has spent ${spent.spent_today} today (UTC); ${needs}. Nothing was saved or charged. The cap resets at ${resets}.${wayOut}`,
      );
    }
  }
}
