/**
 * A stand-in for Google Places API (New) Text Search, served over real HTTP on 127.0.0.1 so
 * the provider's whole stack (undici, timeouts, retries, JSON parsing) runs in tests.
 *
 * It behaves like Google where the provider depends on it:
 * - `POST /v1/places:searchText` only; the key comes in `X-Goog-Api-Key`. A wrong key gets what
 *   Google really answers: 400 INVALID_ARGUMENT with an ErrorInfo reason `API_KEY_INVALID`
 *   (not a 401); a missing key gets 403 PERMISSION_DENIED.
 * - `X-Goog-FieldMask` is required (400 without it) and only the requested fields come back;
 *   an unknown field in the mask is a 400, so a typo in the provider's mask fails loudly.
 * - `pageSize` defaults to 20 and is clamped to 20; `minRating` (0..5) is rounded UP to a 0.5
 *   step, then places rated below it (and unrated ones) are left out.
 * - At most 60 results per query, in pages; `nextPageToken` is absent on the last page. A page
 *   token only works with the same textQuery, minRating and pageSize it was issued for.
 * - No match at all is answered with `{}`.
 * Errors use Google's body: `{ error: { code, message, status, details? } }`.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A place in Google's JSON shape (the subset tests use; any other field may be added). */
export interface GooglePlaceJson {
  id: string;
  name?: string;
  displayName?: { text: string; languageCode?: string };
  formattedAddress?: string;
  addressComponents?: Array<{ longText: string; shortText: string; types: string[]; languageCode?: string }>;
  websiteUri?: string;
  rating?: number;
  userRatingCount?: number;
  primaryType?: string;
  primaryTypeDisplayName?: { text: string; languageCode?: string };
  [otherField: string]: unknown;
}

interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names, as node:http gives them. */
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
}

interface FaultOptions {
  /** The `error.message` of the answer; defaults to a Google-like text for the status. */
  message?: string;
  /** Adds an ErrorInfo detail with this reason, as Google does (e.g. "API_KEY_INVALID"). */
  reason?: string;
}

export interface FakeGooglePlacesServer {
  /** e.g. http://127.0.0.1:54321 — pass as the provider's baseUrl. */
  readonly baseUrl: string;
  /** The only key accepted. */
  readonly apiKey: string;
  /** The settings that point an app (or a server or worker process) at this server. */
  readonly env: { GOOGLE_PLACES_API_KEY: string; GOOGLE_PLACES_BASE_URL: string };
  /** Every request received, in order, faults included. */
  readonly requests: readonly RecordedRequest[];
  /** Programs the results for a textQuery (compared case-insensitively, whitespace collapsed). */
  setPlaces(textQuery: string, places: GooglePlaceJson[]): void;
  /** Every page token issued so far now gets 400 INVALID_ARGUMENT. */
  expireTokens(): void;
  /** The next `count` requests get `status` with a Google error body, before any other check. */
  failNext(count: number, status: number, options?: FaultOptions): void;
  /** The next `count` requests get 200 with a body that is not JSON ("json") or not the expected shape ("shape"). */
  malformedNext(count?: number, kind?: "json" | "shape"): void;
  /** Every later request waits this long before being answered (0 to stop). */
  setDelay(ms: number): void;
  /** Forgets requests, faults, delay and tokens; keeps the programmed places. */
  reset(): void;
  close(): Promise<void>;
}

const SEARCH_TEXT_PATH = "/v1/places:searchText";
const MAX_PAGE_SIZE = 20;
const MAX_RESULTS_PER_QUERY = 60;

/** Top-level Place fields the fake accepts in a field mask (a subset of Google's). */
const KNOWN_PLACE_FIELDS = new Set([
  "id",
  "name",
  "displayName",
  "formattedAddress",
  "shortFormattedAddress",
  "addressComponents",
  "websiteUri",
  "rating",
  "userRatingCount",
  "primaryType",
  "primaryTypeDisplayName",
  "types",
  "location",
  "businessStatus",
  "nationalPhoneNumber",
  "internationalPhoneNumber",
  "googleMapsUri",
]);

const GOOGLE_STATUS_BY_HTTP: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

type Fault =
  | { type: "status"; status: number; options: FaultOptions | undefined }
  | { type: "malformed"; kind: "json" | "shape" };

interface IssuedPageToken {
  textQueryKey: string;
  minRating: number | undefined;
  pageSize: number;
  offset: number;
}

export interface FakeGooglePlacesOptions {
  /** The key to accept; default a random one. */
  apiKey?: string;
  /** Results served per query before paging stops. Default 60, as Google; raise it to test a client's own cap. */
  maxResultsPerQuery?: number;
}

export async function startFakeGooglePlaces(
  options?: FakeGooglePlacesOptions,
): Promise<FakeGooglePlacesServer> {
  const apiKey = options?.apiKey ?? `fake-key-${randomBytes(12).toString("hex")}`;
  const maxResultsPerQuery = options?.maxResultsPerQuery ?? MAX_RESULTS_PER_QUERY;
  const placesByQuery = new Map<string, GooglePlaceJson[]>();
  const pageTokens = new Map<string, IssuedPageToken>();
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  const pendingDelays = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  let delayMs = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readAll(req);
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    requests.push({
      method: req.method ?? "",
      path: req.url ?? "",
      headers: { ...req.headers },
      rawBody,
      body,
    });

    if (delayMs > 0) {
      await wait(delayMs);
      if (res.destroyed) {
        return;
      }
    }

    const fault = faults.shift();
    if (fault?.type === "status") {
      const reason = fault.options?.reason;
      sendGoogleError(
        res,
        fault.status,
        fault.options?.message ?? defaultMessage(fault.status),
        reason === undefined ? undefined : [errorInfo(reason)],
      );
      return;
    }
    if (fault?.type === "malformed") {
      res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      res.end(fault.kind === "json" ? '{"places": [{"id": "trunc' : '{"places": {"id": 42}}');
      return;
    }

    if (req.method !== "POST" || (req.url ?? "").split("?")[0] !== SEARCH_TEXT_PATH) {
      sendGoogleError(res, 404, `The requested URL ${req.url ?? ""} was not found on this server.`);
      return;
    }
    const givenKey = req.headers["x-goog-api-key"];
    if (givenKey === undefined || givenKey === "") {
      sendGoogleError(
        res,
        403,
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
      return;
    }
    if (givenKey !== apiKey) {
      sendGoogleError(res, 400, "API key not valid. Please pass a valid API key.", [
        errorInfo("API_KEY_INVALID"),
      ]);
      return;
    }
    const fieldMaskHeader = req.headers["x-goog-fieldmask"];
    if (typeof fieldMaskHeader !== "string" || fieldMaskHeader.trim() === "") {
      sendGoogleError(
        res,
        400,
        "FieldMask is a required parameter. See https://cloud.google.com/apis/docs/system-parameters on how to provide it. As an example, you can set the header 'X-Goog-FieldMask' to value 'places.displayName', 'places.id' to ask for the display name and the place ID of a place. You can also set the value to '*' in manual testing to get all the available response fields.",
      );
      return;
    }
    const mask = parseFieldMask(fieldMaskHeader);
    if (typeof mask === "string") {
      sendGoogleError(res, 400, mask);
      return;
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      sendGoogleError(res, 400, "Invalid JSON payload received.");
      return;
    }
    const request = body as Record<string, unknown>;
    const textQuery = request.textQuery;
    if (typeof textQuery !== "string" || textQuery.trim() === "") {
      sendGoogleError(res, 400, "Empty text_query.");
      return;
    }
    const minRating = request.minRating;
    if (minRating !== undefined && (typeof minRating !== "number" || minRating < 0 || minRating > 5)) {
      sendGoogleError(res, 400, "Invalid min_rating. It must be between 0 and 5 (inclusive).");
      return;
    }
    const requestedPageSize = request.pageSize;
    if (
      requestedPageSize !== undefined &&
      (typeof requestedPageSize !== "number" || !Number.isInteger(requestedPageSize) || requestedPageSize < 0)
    ) {
      sendGoogleError(res, 400, "Invalid page_size. It must be a non-negative integer.");
      return;
    }
    const pageSize = Math.min(
      MAX_PAGE_SIZE,
      requestedPageSize === undefined || requestedPageSize === 0 ? 20 : requestedPageSize,
    );
    const textQueryKey = normaliseQuery(textQuery);

    let offset = 0;
    const pageToken = request.pageToken;
    if (pageToken !== undefined && pageToken !== "") {
      const issued = typeof pageToken === "string" ? pageTokens.get(pageToken) : undefined;
      if (issued === undefined) {
        sendGoogleError(res, 400, "The provided page_token is invalid or has expired.");
        return;
      }
      // Google: "all other parameters must match the call that provided the page token".
      if (
        issued.textQueryKey !== textQueryKey ||
        issued.minRating !== minRating ||
        issued.pageSize !== pageSize
      ) {
        sendGoogleError(
          res,
          400,
          "Request parameters do not match the request that produced the page_token.",
        );
        return;
      }
      offset = issued.offset;
    }

    const threshold = minRating === undefined ? undefined : Math.ceil(minRating * 2) / 2;
    const matches = (placesByQuery.get(textQueryKey) ?? [])
      .filter((place) => threshold === undefined || (place.rating !== undefined && place.rating >= threshold))
      .slice(0, maxResultsPerQuery);
    const pagePlaces = matches.slice(offset, offset + pageSize);
    const answer: Record<string, unknown> = {};
    if (pagePlaces.length > 0 && mask.places !== null) {
      answer.places = pagePlaces.map((place) => pickFields(place, mask.places));
    }
    if (offset + pageSize < matches.length && mask.nextPageToken) {
      const token = randomBytes(24).toString("base64url");
      pageTokens.set(token, { textQueryKey, minRating, pageSize, offset: offset + pageSize });
      answer.nextPageToken = token;
    }
    res.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
    res.end(JSON.stringify(answer));
  }

  function wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          pendingDelays.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      pendingDelays.add(entry);
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        sendGoogleError(res, 500, `fake server fault: ${String(error)}`);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    baseUrl,
    apiKey,
    env: { GOOGLE_PLACES_API_KEY: apiKey, GOOGLE_PLACES_BASE_URL: baseUrl },
    requests,
    setPlaces(textQuery, places) {
      placesByQuery.set(normaliseQuery(textQuery), [...places]);
    },
    expireTokens() {
      pageTokens.clear();
    },
    failNext(count, status, faultOptions) {
      for (let index = 0; index < count; index++) {
        faults.push({ type: "status", status, options: faultOptions });
      }
    },
    malformedNext(count = 1, kind = "json") {
      for (let index = 0; index < count; index++) {
        faults.push({ type: "malformed", kind });
      }
    },
    setDelay(ms) {
      delayMs = ms;
    },
    reset() {
      requests.length = 0;
      faults.length = 0;
      delayMs = 0;
      pageTokens.clear();
    },
    async close() {
      for (const entry of pendingDelays) {
        clearTimeout(entry.timer);
        entry.resolve();
      }
      pendingDelays.clear();
      // Keep-alive sockets of the client under test would otherwise hold close() open.
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

export interface SyntheticPlacesOptions {
  /** Prefix of ids and names, so two datasets never share a place id. Default "synthetic". */
  prefix?: string;
  /** ISO country code put in addressComponents. Default "CA". */
  country?: string;
  /** Rating of the i-th place (0-based); undefined leaves the place unrated. Default cycles 3.0..5.0. */
  ratingOf?: (index: number) => number | undefined;
}

/** `count` distinct places in Google's shape, all fields the provider asks for filled in. */
/** One US business in Google's JSON shape, with the given website (none when null). */
export function googlePlace(id: string, website: string | null): GooglePlaceJson {
  return {
    id,
    displayName: { text: `Business ${id}` },
    formattedAddress: "1 Main St, Springfield, US",
    addressComponents: [{ longText: "United States", shortText: "US", types: ["country", "political"] }],
    ...(website ? { websiteUri: website } : {}),
    rating: 4.5,
    userRatingCount: 40,
    primaryTypeDisplayName: { text: "Plumber" },
  };
}

export function syntheticPlaces(count: number, options?: SyntheticPlacesOptions): GooglePlaceJson[] {
  const prefix = options?.prefix ?? "synthetic";
  const country = options?.country ?? "CA";
  const ratingOf = options?.ratingOf ?? ((index: number) => 3 + (index % 5) * 0.5);
  return Array.from({ length: count }, (_, index) => {
    const number = index + 1;
    const place: GooglePlaceJson = {
      id: `${prefix}-${number}`,
      name: `places/${prefix}-${number}`,
      displayName: { text: `${prefix} business ${number}`, languageCode: "en" },
      formattedAddress: `${number} Test Street, Testville, ${country}`,
      addressComponents: [
        { longText: String(number), shortText: String(number), types: ["street_number"], languageCode: "en" },
        {
          longText: "Testville",
          shortText: "Testville",
          types: ["locality", "political"],
          languageCode: "en",
        },
        { longText: country, shortText: country, types: ["country", "political"], languageCode: "en" },
      ],
      websiteUri: `https://${prefix}-${number}.example/`,
      userRatingCount: number * 3,
      primaryType: "plumber",
      primaryTypeDisplayName: { text: "Plumber", languageCode: "en" },
      types: ["plumber", "point_of_interest", "establishment"],
    };
    const rating = ratingOf(index);
    if (rating !== undefined) {
      place.rating = rating;
    }
    return place;
  });
}

function normaliseQuery(textQuery: string): string {
  return textQuery.trim().replace(/\s+/g, " ").toLowerCase();
}

/** `places` is null when no place field was asked for, "all" for `*` / `places` / `places.*`. */
function parseFieldMask(
  header: string,
): { places: Set<string> | "all" | null; nextPageToken: boolean } | string {
  let places: Set<string> | "all" | null = null;
  let nextPageToken = false;
  for (const rawPath of header.split(",")) {
    const path = rawPath.trim();
    if (path === "*") {
      return { places: "all", nextPageToken: true };
    }
    if (path === "nextPageToken") {
      nextPageToken = true;
    } else if (path === "places" || path === "places.*") {
      places = "all";
    } else if (path.startsWith("places.")) {
      const field = path.slice("places.".length).split(".")[0] ?? "";
      if (!KNOWN_PLACE_FIELDS.has(field)) {
        return `Invalid field mask: unknown field '${path}'.`;
      }
      if (places !== "all") {
        places = places ?? new Set<string>();
        places.add(field);
      }
    } else if (path !== "" && path !== "searchUri" && path !== "contextualContents") {
      return `Invalid field mask: unknown field '${path}'.`;
    }
  }
  return { places, nextPageToken };
}

function pickFields(place: GooglePlaceJson, fields: Set<string> | "all" | null): Record<string, unknown> {
  if (fields === "all") {
    return { ...place };
  }
  const picked: Record<string, unknown> = {};
  for (const field of fields ?? []) {
    if (place[field] !== undefined) {
      picked[field] = place[field];
    }
  }
  return picked;
}

function defaultMessage(status: number): string {
  if (status === 429) {
    return "Resource has been exhausted (e.g. check quota).";
  }
  if (status >= 500) {
    return "The service is currently unavailable.";
  }
  if (status === 403) {
    return "Places API (New) has not been used in project 0 before or it is disabled.";
  }
  return "Request contains an invalid argument.";
}

function errorInfo(reason: string): Record<string, unknown> {
  return {
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    reason,
    domain: "googleapis.com",
    metadata: { service: "places.googleapis.com" },
  };
}

function sendGoogleError(res: ServerResponse, status: number, message: string, details?: unknown[]): void {
  const error: Record<string, unknown> = {
    code: status,
    message,
    status: GOOGLE_STATUS_BY_HTTP[status] ?? "UNKNOWN",
  };
  if (details !== undefined) {
    error.details = details;
  }
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
  res.end(JSON.stringify({ error }));
}

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
