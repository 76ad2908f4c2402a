import { pino } from "pino";
import { request } from "undici";
import { beforeEach, describe, expect, it } from "vitest";
import {
  createGooglePlacesProvider,
  GOOGLE_PLACES_FIELD_MASK,
  type GooglePlacesProviderOptions,
  type PlacesLogger,
} from "../../../shared/places/google-places.ts";
import {
  type PlaceCandidate,
  type PlacesProvider,
  PlacesProviderError,
} from "../../../shared/places/types.ts";
import {
  type FakeGooglePlacesServer,
  type GooglePlaceJson,
  startFakeGooglePlaces,
  syntheticPlaces,
} from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";

interface LogEntry {
  level: "warn" | "error";
  details: Record<string, unknown>;
  message: string;
}

let fake: FakeGooglePlacesServer;
let logEntries: LogEntry[];

test.beforeAll(async ({ googlePlaces }) => {
  fake = googlePlaces;
});
beforeEach(() => {
  fake.reset();
  logEntries = [];
});

const recordingLogger: PlacesLogger = {
  warn: (details, message) => logEntries.push({ level: "warn", details, message }),
  error: (details, message) => logEntries.push({ level: "error", details, message }),
};

function googleProvider(overrides?: Partial<GooglePlacesProviderOptions>): PlacesProvider {
  return createGooglePlacesProvider({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    // Short waits keep the retry tests fast; the backoff itself is checked on its own below.
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 20,
    timeoutMs: 2_000,
    logger: recordingLogger,
    ...overrides,
  });
}

async function collectPages(
  provider: PlacesProvider,
  textQuery: string,
  minRating?: number,
): Promise<PlaceCandidate[][]> {
  const pages: PlaceCandidate[][] = [];
  for await (const page of provider.searchText(
    minRating === undefined ? { textQuery } : { textQuery, minRating },
  )) {
    pages.push(page);
  }
  return pages;
}

/** The JSON body of the index-th request the fake received. */
function sentBody(index: number): Record<string, unknown> {
  const sent = fake.requests[index];
  if (sent === undefined) {
    throw new Error(`the fake received no request #${index}`);
  }
  return sent.body as Record<string, unknown>;
}

async function searchError(provider: PlacesProvider, textQuery: string): Promise<PlacesProviderError> {
  try {
    await collectPages(provider, textQuery);
  } catch (error) {
    expect(error).toBeInstanceOf(PlacesProviderError);
    return error as PlacesProviderError;
  }
  throw new Error("expected the search to fail");
}

describe("Google Places provider over HTTP", () => {
  it("sends Google's request shape and maps the answer's fields", async () => {
    const complete: GooglePlaceJson = {
      id: "ChIJ-complete",
      name: "places/ChIJ-complete",
      displayName: { text: "Rideau Plumbing", languageCode: "en" },
      formattedAddress: "412 Bank St, Ottawa, ON K2P 1Y4, Canada",
      addressComponents: [
        { longText: "Ottawa", shortText: "Ottawa", types: ["locality", "political"] },
        { longText: "Canada", shortText: "CA", types: ["country", "political"] },
      ],
      websiteUri: "https://rideau.example/",
      rating: 4.6,
      userRatingCount: 7,
      primaryType: "plumber",
      primaryTypeDisplayName: { text: "Plumber", languageCode: "en" },
      businessStatus: "OPERATIONAL",
      nationalPhoneNumber: "(613) 555-0134",
    };
    const sparse: GooglePlaceJson = {
      id: "ChIJ-sparse",
      displayName: { text: "Bank Street Hardware" },
      primaryType: "hardware_store",
    };
    const nameless: GooglePlaceJson = { id: "ChIJ-nameless", formattedAddress: "1 Nowhere Rd" };
    fake.setPlaces("plumber in Ottawa", [complete, sparse, nameless]);

    const pages = await collectPages(googleProvider(), "plumber in Ottawa");

    expect(pages).toEqual([
      [
        {
          placeId: "ChIJ-complete",
          name: "Rideau Plumbing",
          category: "Plumber",
          address: "412 Bank St, Ottawa, ON K2P 1Y4, Canada",
          website: "https://rideau.example/",
          phone: "(613) 555-0134",
          permanentlyClosed: false,
          country: "CA",
          rating: 4.6,
          userRatingCount: 7,
        },
        {
          placeId: "ChIJ-sparse",
          name: "Bank Street Hardware",
          category: "Hardware store",
          address: null,
          website: null,
          phone: null,
          permanentlyClosed: false,
          country: null,
          rating: null,
          userRatingCount: 0,
        },
      ],
    ]);
    expect(logEntries).toContainEqual(
      expect.objectContaining({
        level: "warn",
        details: expect.objectContaining({ placeId: "ChIJ-nameless" }),
      }),
    );
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1/places:searchText");
    expect(sent?.headers["x-goog-api-key"]).toBe(fake.apiKey);
    expect(sent?.headers["x-goog-fieldmask"]).toBe(GOOGLE_PLACES_FIELD_MASK);
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(sent?.body).toEqual({ textQuery: "plumber in Ottawa", pageSize: 20 });
  });

  it("fetches lazily: a consumer that stops after the first page causes exactly one request", async () => {
    fake.setPlaces("bakery in Lyon", syntheticPlaces(45, { prefix: "lyon" }));
    const provider = googleProvider();
    const seen: number[] = [];
    for await (const page of provider.searchText({ textQuery: "bakery in Lyon" })) {
      seen.push(page.length);
      break;
    }
    // Give any eager prefetch a chance to show up before counting.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([20]);
    expect(fake.requests).toHaveLength(1);
  });

  it("stops at 60 places over 3 pages when 70 match", async () => {
    fake.setPlaces("plumber in Ottawa", syntheticPlaces(70, { prefix: "ott" }));
    const pages = await collectPages(googleProvider(), "plumber in Ottawa");

    expect(pages.map((page) => page.length)).toEqual([20, 20, 20]);
    const ids = pages.flat().map((place) => place.placeId);
    expect(new Set(ids).size).toBe(60);
    expect(ids).toEqual(Array.from({ length: 60 }, (_, index) => `ott-${index + 1}`));
    expect(fake.requests).toHaveLength(3);
    const bodies = fake.requests.map((sent) => sent.body as Record<string, unknown>);
    expect(bodies[0]?.pageToken).toBeUndefined();
    expect(typeof bodies[1]?.pageToken).toBe("string");
    expect(typeof bodies[2]?.pageToken).toBe("string");
    expect(bodies[2]?.pageToken).not.toBe(bodies[1]?.pageToken);
  });

  it("never asks for a 4th page, even if the server offers one", async () => {
    // Google stops at 60 by itself; this server does not, so only the provider's own cap holds.
    const generous = await startFakeGooglePlaces({ maxResultsPerQuery: 100 });
    try {
      generous.setPlaces("plumber in Ottawa", syntheticPlaces(90, { prefix: "generous" }));
      const provider = googleProvider({ apiKey: generous.apiKey, baseUrl: generous.baseUrl });
      const pages = await collectPages(provider, "plumber in Ottawa");
      expect(pages.map((page) => page.length)).toEqual([20, 20, 20]);
      expect(generous.requests).toHaveLength(3);
    } finally {
      await generous.close();
    }
  });

  it("forwards minRating and keeps only places rated at least that", async () => {
    const ratings = [4.1, 4.3, 4.5, 4.9, 3.2, undefined];
    fake.setPlaces(
      "bakery in Ottawa",
      syntheticPlaces(ratings.length, { prefix: "rated", ratingOf: (index) => ratings[index] }),
    );

    const onStep = await collectPages(googleProvider(), "bakery in Ottawa", 4.5);
    expect(onStep.flat().map((place) => place.rating)).toEqual([4.5, 4.9]);
    expect(sentBody(0).minRating).toBe(4.5);

    // Google rounds minRating UP to a 0.5 step (4.2 would drop the 4.3): the provider sends 4.0
    // and applies 4.2 itself.
    fake.reset();
    const offStep = await collectPages(googleProvider(), "bakery in Ottawa", 4.2);
    expect(offStep.flat().map((place) => place.rating)).toEqual([4.3, 4.5, 4.9]);
    expect(sentBody(0).minRating).toBe(4);
  });

  it("keeps the same minRating on later pages, as Google requires for a page token", async () => {
    fake.setPlaces("plumber in Lyon", syntheticPlaces(50, { prefix: "lyon-p", ratingOf: () => 4.7 }));
    const pages = await collectPages(googleProvider(), "plumber in Lyon", 4.5);
    expect(pages.map((page) => page.length)).toEqual([20, 20, 10]);
    expect(fake.requests.map((sent) => (sent.body as Record<string, unknown>).minRating)).toEqual([
      4.5, 4.5, 4.5,
    ]);
  });

  it("yields nothing when Google answers {} (no match)", async () => {
    expect(await collectPages(googleProvider(), "unicorn groomer in Ottawa")).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it("retries a 429 and a 503, then succeeds", async () => {
    fake.setPlaces("plumber in Ottawa", syntheticPlaces(3, { prefix: "retry" }));
    fake.failNext(1, 429);
    fake.failNext(1, 503);

    const pages = await collectPages(googleProvider(), "plumber in Ottawa");

    expect(pages.flat()).toHaveLength(3);
    expect(fake.requests).toHaveLength(3);
    const retries = logEntries.filter((entry) => entry.level === "warn");
    expect(retries.map((entry) => entry.details.status)).toEqual([429, 503]);
    expect(logEntries.some((entry) => entry.level === "error")).toBe(false);
  });

  it("gives up with `unavailable` after the retries when Google stays down, in bounded time", async () => {
    fake.failNext(50, 503);
    const startedAt = performance.now();

    const error = await searchError(googleProvider({ retries: 3 }), "plumber in Ottawa");

    expect(error.kind).toBe("unavailable");
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/after 4 attempts: HTTP 503 UNAVAILABLE/);
    expect(fake.requests).toHaveLength(4);
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    expect(logEntries.filter((entry) => entry.level === "warn")).toHaveLength(3);
    expect(logEntries.filter((entry) => entry.level === "error")).toHaveLength(1);
  });

  it("backs off exponentially, capped by retryMaxDelayMs", async () => {
    fake.failNext(50, 500);
    const provider = googleProvider({
      retries: 4,
      retryBaseDelayMs: 10,
      retryMaxDelayMs: 50,
      random: () => 1,
    });
    await searchError(provider, "plumber in Ottawa");
    const delays = logEntries.filter((entry) => entry.level === "warn").map((entry) => entry.details.delayMs);
    expect(delays).toEqual([10, 20, 40, 50]);
  });

  it("treats a request that outlives timeoutMs as a failure, retried, then `unavailable`", async () => {
    fake.setPlaces("plumber in Ottawa", syntheticPlaces(3, { prefix: "slow" }));
    fake.setDelay(1_500);
    const startedAt = performance.now();

    const error = await searchError(googleProvider({ timeoutMs: 100, retries: 1 }), "plumber in Ottawa");

    expect(error.kind).toBe("unavailable");
    expect(error.status).toBeNull();
    expect(error.message).toMatch(/timed out after 100 ms/);
    expect(fake.requests).toHaveLength(2);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });

  it("reports malformed JSON as `bad_response`, without retrying", async () => {
    fake.malformedNext(1, "json");
    const error = await searchError(googleProvider(), "plumber in Ottawa");
    expect(error.kind).toBe("bad_response");
    expect(error.message).toMatch(/not JSON/);
    expect(fake.requests).toHaveLength(1);
  });

  it("reports JSON of the wrong shape as `bad_response`, naming where", async () => {
    fake.malformedNext(1, "shape");
    const error = await searchError(googleProvider(), "plumber in Ottawa");
    expect(error.kind).toBe("bad_response");
    expect(error.message).toMatch(/unexpected shape at places/);
  });

  it("reports an expired page token as `page_token_expired` on the 2nd page, after the 1st was yielded", async () => {
    fake.setPlaces("plumber in Ottawa", syntheticPlaces(45, { prefix: "expiry" }));
    const yielded: PlaceCandidate[][] = [];
    let failure: unknown;
    try {
      for await (const page of googleProvider().searchText({ textQuery: "plumber in Ottawa" })) {
        yielded.push(page);
        fake.expireTokens();
      }
    } catch (error) {
      failure = error;
    }
    expect(yielded.map((page) => page.length)).toEqual([20]);
    expect(failure).toBeInstanceOf(PlacesProviderError);
    expect((failure as PlacesProviderError).kind).toBe("page_token_expired");
    expect((failure as PlacesProviderError).status).toBe(400);
    expect(fake.requests).toHaveLength(2);
  });

  it("reports a wrong API key as `rejected` (Google answers 400 API_KEY_INVALID), without retrying", async () => {
    const error = await searchError(googleProvider({ apiKey: "not-the-right-key" }), "plumber in Ottawa");
    expect(error.kind).toBe("rejected");
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/API key not valid/);
    expect(fake.requests).toHaveLength(1);
  });

  it("keeps a key refusal on a later page `rejected`, not `page_token_expired`", async () => {
    fake.setPlaces("plumber in Ottawa", syntheticPlaces(45, { prefix: "revoked" }));
    let failure: unknown;
    try {
      for await (const _page of googleProvider().searchText({ textQuery: "plumber in Ottawa" })) {
        fake.failNext(1, 400, {
          message: "API key expired. Please renew the API key.",
          reason: "API_KEY_INVALID",
        });
      }
    } catch (error) {
      failure = error;
    }
    expect((failure as PlacesProviderError).kind).toBe("rejected");
  });

  it("reports 403 PERMISSION_DENIED (API not enabled, key restricted) as `rejected`", async () => {
    fake.failNext(1, 403);
    const error = await searchError(googleProvider(), "plumber in Ottawa");
    expect(error.kind).toBe("rejected");
    expect(error.message).toMatch(/HTTP 403 PERMISSION_DENIED/);
    expect(fake.requests).toHaveLength(1);
  });

  it("never writes the API key to logs or error messages, even when Google echoes it", async () => {
    const logLines: string[] = [];
    const pinoLogger = pino({ level: "debug" }, { write: (line: string) => logLines.push(line) });
    const provider = googleProvider({ logger: pinoLogger, retries: 2 });
    fake.failNext(1, 503, { message: `backend error while checking key ${fake.apiKey}` });
    fake.failNext(1, 429, { message: `quota exceeded for ${fake.apiKey}` });
    fake.failNext(1, 403, { message: `Requests with key ${fake.apiKey} are blocked.` });

    const error = await searchError(provider, "plumber in Ottawa");

    // The key really went out (so the assertions below could fail) and the messages came back.
    expect(fake.requests.map((sent) => sent.headers["x-goog-api-key"])).toEqual([
      fake.apiKey,
      fake.apiKey,
      fake.apiKey,
    ]);
    expect(logLines.length).toBeGreaterThanOrEqual(3);
    expect(logLines.join("\n")).toContain("[redacted]");
    expect(logLines.join("\n")).not.toContain(fake.apiKey);
    expect(error.message).toContain("Requests with key [redacted] are blocked.");
    expect(error.message).not.toContain(fake.apiKey);
    expect(JSON.stringify(logEntries)).not.toContain(fake.apiKey);
  });

  it("stops at once when the caller aborts during a backoff wait, with the caller's reason", async () => {
    fake.failNext(50, 503);
    const controller = new AbortController();
    const provider = googleProvider({ retries: 5, retryBaseDelayMs: 5_000, retryMaxDelayMs: 5_000 });
    const startedAt = performance.now();
    setTimeout(() => controller.abort(new Error("search deadline reached")), 100);

    const run = async () => {
      for await (const _page of provider.searchText(
        { textQuery: "plumber in Ottawa" },
        { signal: controller.signal },
      )) {
        // no page expected
      }
    };

    await expect(run()).rejects.toThrow("search deadline reached");
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    expect(fake.requests).toHaveLength(1);
  });

  it("refuses an empty API key or a base URL that is not http(s) when created", () => {
    expect(() => createGooglePlacesProvider({ apiKey: " ", baseUrl: fake.baseUrl })).toThrow(
      /apiKey is empty/,
    );
    expect(() => createGooglePlacesProvider({ apiKey: "k", baseUrl: "ftp://example.com" })).toThrow(
      /baseUrl/,
    );
  });
});

describe("fake Google Places server", () => {
  async function post(headers: Record<string, string>, body: unknown) {
    const response = await request(`${fake.baseUrl}/v1/places:searchText`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
  }

  it("requires a field mask and returns only the requested fields", async () => {
    fake.setPlaces("plumber in Ottawa", syntheticPlaces(25, { prefix: "mask" }));
    const withoutMask = await post({ "x-goog-api-key": fake.apiKey }, { textQuery: "plumber in Ottawa" });
    expect(withoutMask.status).toBe(400);
    expect(withoutMask.json).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });

    const idsOnly = await post(
      { "x-goog-api-key": fake.apiKey, "x-goog-fieldmask": "places.id,places.displayName" },
      { textQuery: "plumber in Ottawa" },
    );
    expect(idsOnly.status).toBe(200);
    expect(idsOnly.json.nextPageToken).toBeUndefined();
    expect((idsOnly.json.places as unknown[])[0]).toEqual({
      id: "mask-1",
      displayName: { text: "mask business 1", languageCode: "en" },
    });

    const typo = await post(
      { "x-goog-api-key": fake.apiKey, "x-goog-fieldmask": "places.id,places.websiteUrl" },
      { textQuery: "plumber in Ottawa" },
    );
    expect(typo.status).toBe(400);
  });

  it("answers a missing key with 403 and a wrong one with 400 API_KEY_INVALID, like Google", async () => {
    const mask = { "x-goog-fieldmask": "places.id" };
    const missing = await post(mask, { textQuery: "plumber in Ottawa" });
    expect(missing).toMatchObject({ status: 403, json: { error: { status: "PERMISSION_DENIED" } } });
    const wrong = await post({ ...mask, "x-goog-api-key": "nope" }, { textQuery: "plumber in Ottawa" });
    expect(wrong).toMatchObject({
      status: 400,
      json: { error: { status: "INVALID_ARGUMENT", details: [{ reason: "API_KEY_INVALID" }] } },
    });
  });

  it("clamps pageSize to 20 and refuses a page token reused with another query", async () => {
    fake.setPlaces("plumber in Ottawa", syntheticPlaces(30, { prefix: "clamp" }));
    const headers = { "x-goog-api-key": fake.apiKey, "x-goog-fieldmask": "places.id,nextPageToken" };
    const first = await post(headers, { textQuery: "plumber in Ottawa", pageSize: 50 });
    expect((first.json.places as unknown[]).length).toBe(20);
    const mismatched = await post(headers, {
      textQuery: "bakery in Ottawa",
      pageSize: 50,
      pageToken: first.json.nextPageToken,
    });
    expect(mismatched.status).toBe(400);
    const second = await post(headers, {
      textQuery: "plumber in Ottawa",
      pageSize: 50,
      pageToken: first.json.nextPageToken,
    });
    expect((second.json.places as unknown[]).length).toBe(10);
    expect(second.json.nextPageToken).toBeUndefined();
  });
});
