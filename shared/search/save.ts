import { sql } from "kysely";
import { chargeNewPlaces, lockWorkspaceBalance } from "../credits/ledger.ts";
import type { Db } from "../db/database.ts";
import type { OutreachStatus } from "../db/schema.ts";
import type { ScannedPlace } from "./scan.ts";

export interface SavedLead {
  id: string;
  place_id: string;
  email: string | null;
  outreach_status: OutreachStatus;
  added_at: Date;
}

/**
 * Charges and saves in one transaction holding the workspace's balance row: only places not yet
 * in the workspace's ledger cost 1 credit each; if the balance cannot cover them the transaction
 * rolls back (402) and nothing is saved. A place found again keeps its lead (same id, same added_at)
 * while its name, address and website are refreshed.
 */
export async function chargeAndSaveLeads(
  db: Db,
  workspaceId: string,
  places: readonly ScannedPlace[],
): Promise<{ leads: Map<string, SavedLead>; creditsSpent: number }> {
  if (places.length === 0) return { leads: new Map(), creditsSpent: 0 };
  // One lock order for every transaction (workspace, then places by id) so concurrent searches never deadlock.
  const sorted = [...places].sort((a, b) => (a.candidate.placeId < b.candidate.placeId ? -1 : 1));
  const placeIds = sorted.map((place) => place.candidate.placeId);

  // A repeated search (every place already a lead, its data unchanged) needs no write at all.
  const unchanged = await findUnchangedLeads(db, workspaceId, sorted);
  if (unchanged) return { leads: unchanged, creditsSpent: 0 };

  return db.transaction().execute(async (trx) => {
    await lockWorkspaceBalance(trx, workspaceId);

    await trx
      .insertInto("places")
      .values(
        sorted.map(({ candidate, category }) => ({
          place_id: candidate.placeId,
          name: candidate.name,
          category,
          address: candidate.address,
          website: candidate.website,
          country: candidate.country,
          rating: candidate.rating,
          user_rating_count: candidate.userRatingCount,
        })),
      )
      .onConflict((oc) =>
        oc
          .column("place_id")
          .doUpdateSet((eb) => ({
            name: eb.ref("excluded.name"),
            category: eb.ref("excluded.category"),
            address: eb.ref("excluded.address"),
            website: eb.ref("excluded.website"),
            country: eb.ref("excluded.country"),
            rating: eb.ref("excluded.rating"),
            user_rating_count: eb.ref("excluded.user_rating_count"),
            updated_at: sql<Date>`now()`,
          }))
          // Rows whose data did not change are left alone (no write, no dead tuple).
          .where(
            sql<boolean>`(places.name, places.category, places.address, places.website, places.country, places.rating, places.user_rating_count)
              is distinct from (excluded.name, excluded.category, excluded.address, excluded.website, excluded.country, excluded.rating, excluded.user_rating_count)`,
          ),
      )
      .execute();

    // Charging comes before saving the leads; a 402 here rolls back the place rows too.
    const charged = await chargeNewPlaces(trx, workspaceId, placeIds);

    await trx
      .insertInto("leads")
      .values(placeIds.map((placeId) => ({ workspace_id: workspaceId, place_id: placeId })))
      .onConflict((oc) => oc.columns(["workspace_id", "place_id"]).doNothing())
      .execute();

    const rows = await trx
      .selectFrom("leads")
      .select(["id", "place_id", "email", "outreach_status", "added_at"])
      .where("workspace_id", "=", workspaceId)
      .where("place_id", "in", placeIds)
      .execute();
    return { leads: new Map(rows.map((row) => [row.place_id, row])), creditsSpent: charged.length };
  });
}

/** The workspace's leads for these places when every one exists and its place data is unchanged; else null. */
async function findUnchangedLeads(
  db: Db,
  workspaceId: string,
  places: readonly ScannedPlace[],
): Promise<Map<string, SavedLead> | null> {
  const rows = await db
    .selectFrom("leads")
    .innerJoin("places", "places.place_id", "leads.place_id")
    .select([
      "leads.id",
      "leads.place_id",
      "leads.email",
      "leads.outreach_status",
      "leads.added_at",
      "places.name",
      "places.category",
      "places.address",
      "places.website",
      "places.country",
      "places.rating",
      "places.user_rating_count",
    ])
    .where("leads.workspace_id", "=", workspaceId)
    .where(
      "leads.place_id",
      "in",
      places.map((place) => place.candidate.placeId),
    )
    .execute();
  if (rows.length !== places.length) return null;
  const byPlace = new Map(rows.map((row) => [row.place_id, row]));
  for (const { candidate, category } of places) {
    const row = byPlace.get(candidate.placeId);
    if (
      !row ||
      row.name !== candidate.name ||
      row.category !== category ||
      row.address !== candidate.address ||
      row.website !== candidate.website ||
      row.country !== candidate.country ||
      row.rating !== candidate.rating ||
      row.user_rating_count !== candidate.userRatingCount
    ) {
      return null;
    }
  }
  return new Map(
    rows.map((row) => [
      row.place_id,
      {
        id: row.id,
        place_id: row.place_id,
        email: row.email,
        outreach_status: row.outreach_status,
        added_at: row.added_at,
      },
    ]),
  );
}
