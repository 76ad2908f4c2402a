import type { Db } from "../../shared/db/database.ts";

export interface SeedPlace {
  place_id: string;
  name?: string;
  category?: string;
  address?: string | null;
  website?: string | null;
  phone?: string | null;
  country?: string | null;
  user_rating_count?: number;
}

/** Saves leads straight into the tables (for read-route tests that must control timestamps). */
export async function seedLeads(
  db: Db,
  workspaceId: string,
  places: SeedPlace[],
  addedAt: Date | ((index: number) => Date) = new Date(),
): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, place] of places.entries()) {
    await db
      .insertInto("places")
      .values({
        place_id: place.place_id,
        name: place.name ?? `Business ${place.place_id}`,
        category: place.category ?? "Plumber",
        address: place.address ?? null,
        website: place.website === undefined ? `https://${place.place_id}.example` : place.website,
        phone: place.phone ?? null,
        country: place.country ?? null,
        rating: 4.2,
        user_rating_count: place.user_rating_count ?? 25,
      })
      .onConflict((oc) => oc.column("place_id").doNothing())
      .execute();
    const lead = await db
      .insertInto("leads")
      .values({
        workspace_id: workspaceId,
        place_id: place.place_id,
        added_at: typeof addedAt === "function" ? addedAt(index) : addedAt,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    ids.push(lead.id);
  }
  return ids;
}
