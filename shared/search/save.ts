import type { SiteAudit } from "../audit/types.ts";
import type { Spender } from "../auth.ts";
import { chargeNewPlaces, lockWorkspaceBalance } from "../credits/ledger.ts";
import { CREDITS_PER_NEW_PLACE } from "../credits/prices.ts";
import type { Db } from "../db/database.ts";
import { findLeadsOfPlaces, findLeadsWithPlaces, insertLeads, type SavedLead } from "../leads/leads.ts";
import { type PlaceData, samePlaceData, upsertPlaces } from "../places/places-repository.ts";
import type { ScannedPlace } from "./scan.ts";

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
  spender?: Spender,
): Promise<{
  leads: Map<string, SavedLead>;
  creditsSpent: number;
  /** A repeated search's current audits of its places, read with its leads; absent after a write. */
  currentAudits?: Map<string, SiteAudit>;
}> {
  if (places.length === 0) return { leads: new Map(), creditsSpent: 0, currentAudits: new Map() };
  // One lock order for every transaction (workspace, then places by id) so concurrent searches never deadlock.
  const rows = places.map(placeDataOf).sort((a, b) => (a.place_id < b.place_id ? -1 : 1));
  const placeIds = rows.map((row) => row.place_id);

  // A repeated search (every place already a lead, its data unchanged) needs no write at all.
  const saved = await findLeadsWithPlaces(db, workspaceId, placeIds);
  if (
    rows.every((row) => {
      const found = saved.get(row.place_id);
      return found && samePlaceData(found.place, row);
    })
  ) {
    const currentAudits = new Map<string, SiteAudit>();
    for (const [placeId, { audit }] of saved) if (audit) currentAudits.set(placeId, audit);
    return {
      leads: new Map([...saved].map(([placeId, { lead }]) => [placeId, lead])),
      creditsSpent: 0,
      currentAudits,
    };
  }

  return db.transaction().execute(async (trx) => {
    await lockWorkspaceBalance(trx, workspaceId);
    await upsertPlaces(trx, rows);
    // Charging comes before saving the leads; a 402 here rolls back the place rows too.
    const charged = await chargeNewPlaces(trx, workspaceId, placeIds, spender);
    await insertLeads(trx, workspaceId, placeIds);
    return {
      leads: await findLeadsOfPlaces(trx, workspaceId, placeIds),
      creditsSpent: charged.length * CREDITS_PER_NEW_PLACE,
    };
  });
}

function placeDataOf({ candidate, category }: ScannedPlace): PlaceData {
  return {
    place_id: candidate.placeId,
    name: candidate.name,
    category,
    address: candidate.address,
    website: candidate.website,
    phone: candidate.phone,
    country: candidate.country,
    rating: candidate.rating,
    user_rating_count: candidate.userRatingCount,
  };
}
