import { sql, type Transaction } from "kysely";
import type { Database, PlacesTable } from "../db/schema.ts";

/** The `places` table: one row per business, shared by every workspace that found it. */

/** What a provider tells us about a place: every column but the key's bookkeeping. */
export type PlaceData = Omit<PlacesTable, "updated_at">;

/** The data columns, written once: the upsert's insert, update and "did anything change" use them. */
const DATA_COLUMNS = [
  "name",
  "category",
  "address",
  "website",
  "phone",
  "country",
  "rating",
  "user_rating_count",
] as const satisfies readonly (keyof PlaceData)[];

/** The same columns qualified for a select that joins `places`. */
export const PLACE_DATA_SELECTION = DATA_COLUMNS.map((column) => `places.${column}` as const);

/** True when `stored` already holds exactly `incoming`'s data (a repeated search writes nothing). */
export function samePlaceData(stored: PlaceData, incoming: PlaceData): boolean {
  return DATA_COLUMNS.every((column) => stored[column] === incoming[column]);
}

/**
 * Inserts new places and refreshes changed ones; rows whose data did not change are left alone (no
 * write, no dead tuple). Callers sort by place_id so that concurrent transactions lock in one order.
 */
export async function upsertPlaces(trx: Transaction<Database>, places: readonly PlaceData[]): Promise<void> {
  if (places.length === 0) return;
  const stored = sql.join(DATA_COLUMNS.map((column) => sql.ref(`places.${column}`)));
  const incoming = sql.join(DATA_COLUMNS.map((column) => sql.ref(`excluded.${column}`)));
  await trx
    .insertInto("places")
    .values([...places])
    .onConflict((oc) =>
      oc
        .column("place_id")
        .doUpdateSet((eb) => ({
          ...Object.fromEntries(DATA_COLUMNS.map((column) => [column, eb.ref(`excluded.${column}`)])),
          updated_at: sql<Date>`now()`,
        }))
        .where(sql<boolean>`(${stored}) is distinct from (${incoming})`),
    )
    .execute();
}
