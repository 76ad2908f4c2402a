/**
 * Places provider reading a JSON file: offline demos and tests without a Google key.
 * Format and matching rule: docs/places-fixture.md (example: fixtures/places.example.json).
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import {
  MAX_PAGES_PER_QUERY,
  MAX_PLACES_PER_QUERY,
  PLACES_PAGE_SIZE,
  type PlaceCandidate,
  type PlacesProvider,
  type SearchTextOptions,
  type TextSearchQuery,
} from "./types.ts";

const nonBlank = z.string().trim().min(1, "must not be empty");

const fixturePlaceSchema = z.strictObject({
  place_id: nonBlank,
  name: nonBlank,
  category: nonBlank.nullable(),
  address: nonBlank.nullable(),
  website: z.url({ protocol: /^https?$/, error: "must be an http(s) URL or null" }).nullable(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code in upper case (CA, FR) or null")
    .nullable(),
  rating: z.number().min(0).max(5).nullable(),
  user_rating_count: z.number().int().nonnegative(),
  queries: z.array(nonBlank).min(1, "must list at least one query, or be left out").optional(),
  phone: nonBlank.nullable().optional(),
  business_status: z.enum(["OPERATIONAL", "CLOSED_TEMPORARILY", "CLOSED_PERMANENTLY"]).optional(),
});

const fixtureFileSchema = z.strictObject({ places: z.array(fixturePlaceSchema) });

export type FixturePlace = z.infer<typeof fixturePlaceSchema>;

export class PlacesFixtureError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PlacesFixtureError";
  }
}

/**
 * Reads and validates the file now, so a bad fixture stops the service at start-up rather
 * than on the first search. Throws PlacesFixtureError naming the file and the bad entry.
 */
export function createFixturePlacesProvider(options: { file: string }): PlacesProvider {
  let text: string;
  try {
    text = readFileSync(options.file, "utf8");
  } catch (error) {
    throw new PlacesFixtureError(`Places fixture ${options.file}: cannot read the file`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PlacesFixtureError(
      `Places fixture ${options.file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  return createFixturePlacesProviderFromData(json, options.file);
}

/** Same as createFixturePlacesProvider, from already parsed JSON; `source` names it in errors. */
export function createFixturePlacesProviderFromData(data: unknown, source: string): PlacesProvider {
  const places = parsePlacesFixture(data, source);

  async function* searchText(
    query: TextSearchQuery,
    options?: SearchTextOptions,
  ): AsyncGenerator<PlaceCandidate[], void, undefined> {
    const minRating = query.minRating;
    if (minRating !== undefined && !(minRating >= 0 && minRating <= 5)) {
      throw new RangeError(`minRating must be between 0 and 5, got ${minRating}`);
    }
    const matches = places
      .filter((place) => fixturePlaceMatches(place, query.textQuery))
      .filter((place) => minRating === undefined || (place.rating !== null && place.rating >= minRating))
      .slice(0, MAX_PLACES_PER_QUERY)
      .map(toPlaceCandidate);
    for (let pageIndex = 0; pageIndex < MAX_PAGES_PER_QUERY; pageIndex++) {
      options?.signal?.throwIfAborted();
      const page = matches.slice(pageIndex * PLACES_PAGE_SIZE, (pageIndex + 1) * PLACES_PAGE_SIZE);
      if (page.length === 0) {
        return;
      }
      yield page;
    }
  }

  return { name: "fixture", searchText };
}

/** Validates fixture JSON; exported for tests and for tools that check a fixture file. */
function parsePlacesFixture(data: unknown, source: string): FixturePlace[] {
  const parsed = fixtureFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path ?? [];
    throw new PlacesFixtureError(
      `Places fixture ${source}: ${describeEntry(data, path)}${describeField(path)}${issue?.message ?? "invalid"}`,
    );
  }
  const indexById = new Map<string, number>();
  for (const [index, place] of parsed.data.places.entries()) {
    const firstIndex = indexById.get(place.place_id);
    if (firstIndex !== undefined) {
      throw new PlacesFixtureError(
        `Places fixture ${source}: places[${index}] (place_id "${place.place_id}"): place_id already used by places[${firstIndex}]`,
      );
    }
    indexById.set(place.place_id, index);
  }
  return parsed.data.places;
}

/**
 * The matching rule (docs/places-fixture.md). Text is compared case-insensitively with
 * whitespace collapsed.
 * - A place that lists `queries` matches exactly those text queries, nothing else.
 * - A place without `queries` matches `<category> in <location>` (the form toTextQuery builds)
 *   when `<category>` equals the place's category and `<location>` appears in its address.
 *   The query is split at its last " in ", so "bed and breakfast in Lyon" works.
 */
export function fixturePlaceMatches(
  place: Pick<FixturePlace, "category" | "address" | "queries">,
  textQuery: string,
): boolean {
  const query = normalise(textQuery);
  if (place.queries !== undefined) {
    return place.queries.some((listed) => normalise(listed) === query);
  }
  const separator = query.lastIndexOf(" in ");
  if (separator <= 0 || place.category === null || place.address === null) {
    return false;
  }
  const category = query.slice(0, separator);
  const location = query.slice(separator + " in ".length);
  return (
    location !== "" && category === normalise(place.category) && normalise(place.address).includes(location)
  );
}

function normalise(text: string): string {
  return text.normalize("NFC").trim().replace(/\s+/g, " ").toLocaleLowerCase("und");
}

function toPlaceCandidate(place: FixturePlace): PlaceCandidate {
  return {
    placeId: place.place_id,
    name: place.name,
    category: place.category,
    address: place.address,
    website: place.website,
    phone: place.phone ?? null,
    permanentlyClosed: place.business_status === "CLOSED_PERMANENTLY",
    country: place.country,
    rating: place.rating,
    userRatingCount: place.user_rating_count,
  };
}

/** `places[3] (place_id "ott-plumber-04")` for an issue inside an entry, "" otherwise. */
function describeEntry(data: unknown, path: readonly PropertyKey[]): string {
  const [root, index] = path;
  if (root !== "places" || typeof index !== "number") {
    return "";
  }
  const entries = (data as { places?: unknown }).places;
  const entry: unknown = Array.isArray(entries) ? entries[index] : undefined;
  const record = typeof entry === "object" && entry !== null ? (entry as Record<string, unknown>) : {};
  const label =
    typeof record.place_id === "string"
      ? ` (place_id "${record.place_id}")`
      : typeof record.name === "string"
        ? ` (name "${record.name}")`
        : "";
  return `places[${index}]${label}: `;
}

function describeField(path: readonly PropertyKey[]): string {
  const field = path.slice(2).map(String).join(".");
  if (path[0] === "places" && typeof path[1] === "number") {
    return field === "" ? "" : `${field}: `;
  }
  const whole = path.map(String).join(".");
  return whole === "" ? "" : `${whole}: `;
}
