import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  createFixturePlacesProvider,
  createFixturePlacesProviderFromData,
  type FixturePlace,
  fixturePlaceMatches,
  PlacesFixtureError,
} from "../../../shared/places/fixture-places.ts";
import { type PlaceCandidate, type PlacesProvider, toTextQuery } from "../../../shared/places/types.ts";

const EXAMPLE_FILE = fileURLToPath(new URL("../../../fixtures/places.example.json", import.meta.url));
const scratchDir = mkdtempSync(join(tmpdir(), "places-fixture-"));
afterAll(() => rmSync(scratchDir, { recursive: true, force: true }));

function writeFixture(name: string, content: unknown): string {
  const file = join(scratchDir, name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

function fixturePlace(overrides: Partial<FixturePlace> & { place_id: string }): FixturePlace {
  return {
    name: `Business ${overrides.place_id}`,
    category: "Plumber",
    address: "1 Main St, Ottawa, ON K1A 0A1, Canada",
    website: null,
    country: "CA",
    rating: 4,
    user_rating_count: 12,
    ...overrides,
  };
}

async function collectPages(
  provider: PlacesProvider,
  textQuery: string,
  minRating?: number,
): Promise<PlaceCandidate[][]> {
  const pages: PlaceCandidate[][] = [];
  const query = minRating === undefined ? { textQuery } : { textQuery, minRating };
  for await (const page of provider.searchText(query)) {
    pages.push(page);
  }
  return pages;
}

describe("toTextQuery", () => {
  it("builds '<category> in <location>' with whitespace tidied", () => {
    expect(toTextQuery({ category: "  plumber ", location: "Ottawa,   ON" })).toBe("plumber in Ottawa, ON");
  });
});

describe("fixture matching rule", () => {
  const byCategoryAndAddress = { category: "Plumber", address: "412 Bank St, Ottawa, ON K2P 1Y4, Canada" };

  it("matches category (exactly) and a location found in the address, ignoring case and spacing", () => {
    expect(fixturePlaceMatches(byCategoryAndAddress, "plumber in Ottawa")).toBe(true);
    expect(fixturePlaceMatches(byCategoryAndAddress, "  PLUMBER   in   ottawa ")).toBe(true);
    expect(fixturePlaceMatches(byCategoryAndAddress, "plumber in K2P 1Y4")).toBe(true);
    expect(fixturePlaceMatches(byCategoryAndAddress, "plumber in Lyon")).toBe(false);
    expect(fixturePlaceMatches(byCategoryAndAddress, "plumbers in Ottawa")).toBe(false);
    expect(fixturePlaceMatches(byCategoryAndAddress, "emergency plumber in Ottawa")).toBe(false);
    expect(fixturePlaceMatches(byCategoryAndAddress, "plumber Ottawa")).toBe(false);
    expect(fixturePlaceMatches(byCategoryAndAddress, "plumber in ")).toBe(false);
  });

  it("splits at the last ' in ', so a category may itself contain 'in'", () => {
    const place = { category: "Drop in clinic", address: "5 Rue X, 69002 Lyon, France" };
    expect(fixturePlaceMatches(place, "drop in clinic in Lyon")).toBe(true);
  });

  it("compares accented text whatever its Unicode form", () => {
    const place = { category: "Bakery", address: "1 Rue Y, Montréal, QC, Canada" };
    expect(fixturePlaceMatches(place, "bakery in Montre\u0301al")).toBe(true);
  });

  it("uses only the listed queries when a place has some", () => {
    const place = { ...byCategoryAndAddress, queries: ["Drain cleaning in Ottawa"] };
    expect(fixturePlaceMatches(place, "drain cleaning in ottawa")).toBe(true);
    expect(fixturePlaceMatches(place, "plumber in Ottawa")).toBe(false);
  });

  it("never matches by rule 2 without a category or an address", () => {
    expect(fixturePlaceMatches({ category: null, address: "Ottawa" }, "plumber in Ottawa")).toBe(false);
    expect(fixturePlaceMatches({ category: "Plumber", address: null }, "plumber in Ottawa")).toBe(false);
  });
});

describe("fixture provider", () => {
  it("maps every field of an entry to a place candidate", async () => {
    const provider = createFixturePlacesProviderFromData(
      {
        places: [
          {
            place_id: "p1",
            name: "Rideau Plumbing",
            category: "Plumber",
            address: "412 Bank St, Ottawa, ON K2P 1Y4, Canada",
            website: "https://rideau.example",
            country: "CA",
            rating: 4.5,
            user_rating_count: 3,
          },
        ],
      },
      "inline",
    );
    expect(provider.name).toBe("fixture");
    expect(await collectPages(provider, "plumber in Ottawa")).toEqual([
      [
        {
          placeId: "p1",
          name: "Rideau Plumbing",
          category: "Plumber",
          address: "412 Bank St, Ottawa, ON K2P 1Y4, Canada",
          website: "https://rideau.example",
          phone: null,
          permanentlyClosed: false,
          country: "CA",
          rating: 4.5,
          userRatingCount: 3,
        },
      ],
    ]);
  });

  it("reads the optional phone and business status (a permanently closed place is flagged)", async () => {
    const provider = createFixturePlacesProviderFromData(
      {
        places: [
          fixturePlace({ place_id: "open", phone: "(613) 555-0134", business_status: "OPERATIONAL" }),
          fixturePlace({ place_id: "closed", business_status: "CLOSED_PERMANENTLY" }),
        ],
      },
      "inline",
    );
    const [page] = await collectPages(provider, "plumber in Ottawa");
    expect(
      page?.map(({ placeId, phone, permanentlyClosed }) => ({ placeId, phone, permanentlyClosed })),
    ).toEqual([
      { placeId: "open", phone: "(613) 555-0134", permanentlyClosed: false },
      { placeId: "closed", phone: null, permanentlyClosed: true },
    ]);
    expect(() =>
      createFixturePlacesProviderFromData(
        { places: [fixturePlace({ place_id: "gone", business_status: "GONE" } as unknown as FixturePlace)] },
        "inline",
      ),
    ).toThrow(/business_status/);
  });

  it("pages by 20 and stops at 60 places over 3 pages", async () => {
    const places = Array.from({ length: 75 }, (_, index) => fixturePlace({ place_id: `p${index + 1}` }));
    const provider = createFixturePlacesProviderFromData({ places }, "inline");
    const pages = await collectPages(provider, "plumber in Ottawa");
    expect(pages.map((page) => page.length)).toEqual([20, 20, 20]);
    expect(pages.flat().map((place) => place.placeId)).toEqual(
      places.slice(0, 60).map((place) => place.place_id),
    );
  });

  it("ends with a short page, and yields nothing for no match", async () => {
    const places = Array.from({ length: 23 }, (_, index) => fixturePlace({ place_id: `p${index + 1}` }));
    const provider = createFixturePlacesProviderFromData({ places }, "inline");
    expect((await collectPages(provider, "plumber in Ottawa")).map((page) => page.length)).toEqual([20, 3]);
    expect(await collectPages(provider, "bakery in Ottawa")).toEqual([]);
  });

  it("computes the next page only when asked: a consumer can stop after the first", async () => {
    const places = Array.from({ length: 45 }, (_, index) => fixturePlace({ place_id: `p${index + 1}` }));
    const provider = createFixturePlacesProviderFromData({ places }, "inline");
    const iterator = provider.searchText({ textQuery: "plumber in Ottawa" })[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    await iterator.return?.();
    expect((await iterator.next()).done).toBe(true);
  });

  it("applies minRating inclusively and leaves unrated places out", async () => {
    const places = [
      fixturePlace({ place_id: "below", rating: 3.9 }),
      fixturePlace({ place_id: "equal", rating: 4.2 }),
      fixturePlace({ place_id: "above", rating: 4.8 }),
      fixturePlace({ place_id: "unrated", rating: null, user_rating_count: 0 }),
    ];
    const provider = createFixturePlacesProviderFromData({ places }, "inline");
    const ids = (await collectPages(provider, "plumber in Ottawa", 4.2)).flat().map((place) => place.placeId);
    expect(ids).toEqual(["equal", "above"]);
    const all = (await collectPages(provider, "plumber in Ottawa")).flat().map((place) => place.placeId);
    expect(all).toEqual(["below", "equal", "above", "unrated"]);
  });

  it("applies the 60 cap after minRating, as Google does", async () => {
    const places = Array.from({ length: 100 }, (_, index) =>
      fixturePlace({ place_id: `p${index + 1}`, rating: index % 2 === 0 ? 4.5 : 2 }),
    );
    const provider = createFixturePlacesProviderFromData({ places }, "inline");
    const found = (await collectPages(provider, "plumber in Ottawa", 4)).flat();
    expect(found).toHaveLength(50);
    expect(found.every((place) => place.rating === 4.5)).toBe(true);
  });

  it("stops when the signal aborts", async () => {
    const places = Array.from({ length: 45 }, (_, index) => fixturePlace({ place_id: `p${index + 1}` }));
    const provider = createFixturePlacesProviderFromData({ places }, "inline");
    const controller = new AbortController();
    const seen: number[] = [];
    const run = async () => {
      for await (const page of provider.searchText(
        { textQuery: "plumber in Ottawa" },
        { signal: controller.signal },
      )) {
        seen.push(page.length);
        controller.abort(new Error("caller gave up"));
      }
    };
    await expect(run()).rejects.toThrow("caller gave up");
    expect(seen).toEqual([20]);
  });
});

describe("fixture file validation", () => {
  it("names the file, the entry and the field of a bad value", () => {
    const file = writeFixture("bad-rating.json", {
      places: [fixturePlace({ place_id: "ok-1" }), fixturePlace({ place_id: "ott-04", rating: 7 })],
    });
    expect(() => createFixturePlacesProvider({ file })).toThrow(PlacesFixtureError);
    expect(() => createFixturePlacesProvider({ file })).toThrow(
      new RegExp(`^Places fixture ${escapeRegExp(file)}: places\\[1\\] \\(place_id "ott-04"\\): rating: `),
    );
  });

  it("rejects a missing field, an unknown field, a lower-case country and a non-http website", () => {
    const { country: _dropped, ...withoutCountry } = fixturePlace({ place_id: "a" });
    expect(() => createFixturePlacesProviderFromData({ places: [withoutCountry] }, "f.json")).toThrow(
      /places\[0\] \(place_id "a"\): country: /,
    );
    expect(() =>
      createFixturePlacesProviderFromData(
        { places: [{ ...fixturePlace({ place_id: "b" }), ratng: 4 }] },
        "f.json",
      ),
    ).toThrow(/places\[0\] \(place_id "b"\): .*ratng/);
    expect(() =>
      createFixturePlacesProviderFromData(
        { places: [fixturePlace({ place_id: "c", country: "ca" })] },
        "f.json",
      ),
    ).toThrow(/places\[0\] \(place_id "c"\): country: must be an ISO 3166-1 alpha-2 code/);
    expect(() =>
      createFixturePlacesProviderFromData(
        { places: [fixturePlace({ place_id: "d", website: "ftp://files.example" })] },
        "f.json",
      ),
    ).toThrow(/places\[0\] \(place_id "d"\): website: must be an http\(s\) URL or null/);
  });

  it("names an entry by its name when its place_id is what is wrong", () => {
    const entry = { ...fixturePlace({ place_id: "x" }), place_id: 12, name: "Numbered Plumbing" };
    expect(() => createFixturePlacesProviderFromData({ places: [entry] }, "f.json")).toThrow(
      /places\[0\] \(name "Numbered Plumbing"\): place_id: /,
    );
  });

  it("rejects a duplicate place_id, naming both entries", () => {
    const places = [
      fixturePlace({ place_id: "same" }),
      fixturePlace({ place_id: "other" }),
      fixturePlace({ place_id: "same" }),
    ];
    expect(() => createFixturePlacesProviderFromData({ places }, "f.json")).toThrow(
      'Places fixture f.json: places[2] (place_id "same"): place_id already used by places[0]',
    );
  });

  it("rejects a file without a places array, invalid JSON and a missing file", () => {
    expect(() => createFixturePlacesProviderFromData({ businesses: [] }, "f.json")).toThrow(
      /^Places fixture f\.json: /,
    );
    const notJson = writeFixture("not-json.json", "{ places: [");
    expect(() => createFixturePlacesProvider({ file: notJson })).toThrow(
      new RegExp(`^Places fixture ${escapeRegExp(notJson)}: not valid JSON`),
    );
    const missing = join(scratchDir, "missing.json");
    expect(() => createFixturePlacesProvider({ file: missing })).toThrow(
      `Places fixture ${missing}: cannot read the file`,
    );
  });
});

describe("fixtures/places.example.json", () => {
  const provider = createFixturePlacesProvider({ file: EXAMPLE_FILE });

  it("loads and answers the demo queries of both cities", async () => {
    const count = async (category: string, location: string) =>
      (await collectPages(provider, toTextQuery({ category, location }))).flat().length;
    expect(await count("plumber", "Ottawa")).toBe(8);
    expect(await count("bakery", "Ottawa")).toBe(7);
    expect(await count("plumber", "Lyon")).toBe(7);
    expect(await count("bakery", "Lyon")).toBe(8);
    expect(await count("boulangerie", "Lyon")).toBe(8);
    expect(await count("dentist", "Ottawa")).toBe(0);
  });

  it("has the cases demos need: no website, few reviews, unrated, both countries", async () => {
    const everyPlace = (
      await Promise.all(
        ["plumber in Ottawa", "bakery in Ottawa", "plumber in Lyon", "bakery in Lyon"].map((textQuery) =>
          collectPages(provider, textQuery),
        ),
      )
    )
      .flat(2)
      .filter((place, index, all) => all.findIndex((other) => other.placeId === place.placeId) === index);
    expect(everyPlace).toHaveLength(30);
    expect(new Set(everyPlace.map((place) => place.country))).toEqual(new Set(["CA", "FR"]));
    expect(everyPlace.some((place) => place.website === null)).toBe(true);
    expect(everyPlace.some((place) => place.userRatingCount > 0 && place.userRatingCount < 10)).toBe(true);
    expect(everyPlace.some((place) => place.rating === null)).toBe(true);
    for (const place of everyPlace) {
      if (place.website !== null) {
        expect(new URL(place.website).hostname).toMatch(/\.example$/);
      }
    }
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
