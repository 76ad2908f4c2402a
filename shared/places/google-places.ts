/**
 * Places provider backed by Google Places API (New) Text Search:
 * `POST {baseUrl}/v1/places:searchText`, 20 places a page, `nextPageToken` for the next
 * page, 3 pages at most (Google's own limit, and the spec's cap of 60 per query).
 */
import { type Dispatcher, request } from "undici";
import { z } from "zod";
import {
  httpWebsiteOrNull,
  MAX_PAGES_PER_QUERY,
  MAX_PLACES_PER_QUERY,
  PLACES_PAGE_SIZE,
  type PlaceCandidate,
  type PlacesProvider,
  PlacesProviderError,
  type SearchTextOptions,
  type TextSearchQuery,
} from "./types.ts";

/**
 * Exactly the fields the service uses. Google bills Text Search by the most expensive field
 * requested and refuses a request without a mask, so the list is explicit, never `*`.
 * `businessStatus` and `nationalPhoneNumber` bill in no dearer tier than `websiteUri` already does.
 */
export const GOOGLE_PLACES_FIELD_MASK = [
  "places.id",
  "places.displayName",
  "places.formattedAddress",
  "places.addressComponents",
  "places.websiteUri",
  "places.rating",
  "places.userRatingCount",
  "places.primaryTypeDisplayName",
  "places.primaryType",
  "places.businessStatus",
  "places.nationalPhoneNumber",
  "nextPageToken",
].join(",");

const DEFAULT_GOOGLE_PLACES_BASE_URL = "https://places.googleapis.com";

/** The subset of a pino logger this module calls; a pino `Logger` fits it. */
export interface PlacesLogger {
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

export interface GooglePlacesProviderOptions {
  apiKey: string;
  /** Defaults to https://places.googleapis.com; tests point it at a fake server. */
  baseUrl?: string;
  /** Limit for one HTTP request, headers and body included. Default 10 000 ms. */
  timeoutMs?: number;
  /** Extra attempts after a network error, timeout, 429 or 5xx. Default 3. */
  retries?: number;
  /** Backoff before retry n is drawn from [cap/2, cap], cap = min(max, base * 2^(n-1)). Default 200 ms. */
  retryBaseDelayMs?: number;
  /** Upper bound of one backoff wait. Default 2 000 ms. */
  retryMaxDelayMs?: number;
  /** Source of jitter in [0, 1); injectable so tests can pin the backoff. Default Math.random. */
  random?: () => number;
  logger?: PlacesLogger;
  /** undici dispatcher (connection pool, proxy); default undici's global dispatcher. */
  dispatcher?: Dispatcher;
}

const PROVIDER_NAME = "google-places";
const SEARCH_TEXT_PATH = "/v1/places:searchText";
/** A full page of 20 places is tens of KB; anything this large is not a Text Search answer. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** Upstream error text is quoted in logs and errors; keep it short. */
const MAX_QUOTED_MESSAGE_CHARS = 300;

// Google omits every field it has no value for, so all place fields but `id` are optional.
// Objects are not strict: Google adds fields over time and that must not break searches.
const localizedTextSchema = z.object({ text: z.string() });

const googlePlaceSchema = z.object({
  id: z.string().min(1),
  displayName: localizedTextSchema.optional(),
  formattedAddress: z.string().optional(),
  addressComponents: z
    .array(
      z.object({
        longText: z.string().optional(),
        shortText: z.string().optional(),
        types: z.array(z.string()).optional(),
      }),
    )
    .optional(),
  websiteUri: z.string().optional(),
  rating: z.number().min(0).max(5).optional(),
  userRatingCount: z.number().int().nonnegative().optional(),
  primaryTypeDisplayName: localizedTextSchema.optional(),
  primaryType: z.string().optional(),
  // OPERATIONAL, CLOSED_TEMPORARILY, CLOSED_PERMANENTLY (or a value added later: read as open).
  businessStatus: z.string().optional(),
  nationalPhoneNumber: z.string().optional(),
});

// No match at all is answered with `{}`: `places` absent, not an empty array.
const searchTextResponseSchema = z.object({
  places: z.array(googlePlaceSchema).optional(),
  nextPageToken: z.string().optional(),
});

type GooglePlace = z.infer<typeof googlePlaceSchema>;
type SearchTextResponse = z.infer<typeof searchTextResponseSchema>;

// Google's error body: { error: { code, message, status, details: [{ "@type", reason }] } }.
const googleErrorSchema = z.object({
  error: z.object({
    message: z.string().optional(),
    status: z.string().optional(),
    details: z.array(z.object({ reason: z.string().optional() })).optional(),
  }),
});

interface SearchTextRequestBody {
  textQuery: string;
  pageSize: number;
  pageToken?: string;
  minRating?: number;
}

/** A failure worth another attempt (network, timeout, 429, 5xx). */
interface TransientFailure {
  status: number | null;
  reason: string;
  cause?: unknown;
}

type AttemptOutcome = { ok: true; response: SearchTextResponse } | { ok: false; failure: TransientFailure };

/** The provider's options, checked once and with their defaults filled in. */
interface ProviderSettings {
  apiKey: string;
  endpoint: string;
  timeoutMs: number;
  retries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  random: () => number;
  logger: PlacesLogger | undefined;
  dispatcher: Dispatcher | undefined;
}

export function createGooglePlacesProvider(options: GooglePlacesProviderOptions): PlacesProvider {
  const settings = providerSettings(options);
  return {
    name: PROVIDER_NAME,
    searchText: (query, searchOptions) => searchText(settings, query, searchOptions),
  };
}

function providerSettings(options: GooglePlacesProviderOptions): ProviderSettings {
  const apiKey = options.apiKey;
  if (apiKey.trim() === "") {
    throw new Error("Google Places provider: apiKey is empty");
  }
  const baseUrl = options.baseUrl ?? DEFAULT_GOOGLE_PLACES_BASE_URL;
  const parsedBaseUrl = URL.canParse(baseUrl) ? new URL(baseUrl) : null;
  if (parsedBaseUrl === null || (parsedBaseUrl.protocol !== "https:" && parsedBaseUrl.protocol !== "http:")) {
    throw new Error(`Google Places provider: baseUrl must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retries = options.retries ?? 3;
  if (!(timeoutMs > 0) || !Number.isInteger(retries) || retries < 0) {
    throw new Error("Google Places provider: timeoutMs must be > 0 and retries an integer >= 0");
  }
  return {
    apiKey,
    // Appended, not resolved with `new URL(path, base)`, so a base with a path prefix (a proxy) keeps it.
    endpoint: `${baseUrl.replace(/\/+$/, "")}${SEARCH_TEXT_PATH}`,
    timeoutMs,
    retries,
    retryBaseDelayMs: options.retryBaseDelayMs ?? 200,
    retryMaxDelayMs: options.retryMaxDelayMs ?? 2_000,
    random: options.random ?? Math.random,
    logger: options.logger,
    dispatcher: options.dispatcher,
  };
}

/** Google's messages are not supposed to echo the key, but nothing it says is logged unredacted. */
function redact({ apiKey }: ProviderSettings, text: string): string {
  return text.split(apiKey).join("[redacted]").slice(0, MAX_QUOTED_MESSAGE_CHARS);
}

async function attemptOnce(
  settings: ProviderSettings,
  body: SearchTextRequestBody,
  callerSignal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const { apiKey, timeoutMs, dispatcher } = settings;
  const timeoutSignal = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal === undefined ? timeoutSignal : AbortSignal.any([callerSignal, timeoutSignal]);
  let status: number;
  let text: string;
  try {
    const response = await request(settings.endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-goog-api-key": apiKey,
        "x-goog-fieldmask": GOOGLE_PLACES_FIELD_MASK,
      },
      body: JSON.stringify(body),
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(dispatcher === undefined ? {} : { dispatcher }),
    });
    status = response.statusCode;
    text = await readBodyText(response.body);
  } catch (error) {
    if (callerSignal?.aborted) {
      throw callerSignal.reason;
    }
    if (error instanceof PlacesProviderError) {
      throw error;
    }
    if (timeoutSignal.aborted) {
      return {
        ok: false,
        failure: { status: null, reason: `timed out after ${timeoutMs} ms`, cause: error },
      };
    }
    return { ok: false, failure: { status: null, reason: describeNetworkError(error), cause: error } };
  }
  return outcomeOfAnswer(settings, body, status, text);
}

/** What an HTTP answer means: a page, a failure worth another attempt, or an error thrown at once. */
function outcomeOfAnswer(
  settings: ProviderSettings,
  body: SearchTextRequestBody,
  status: number,
  text: string,
): AttemptOutcome {
  if (status >= 200 && status < 300) {
    return { ok: true, response: parseSearchTextResponse(text) };
  }
  const upstream = parseGoogleError(text);
  const upstreamText = upstream.message === null ? "" : `: ${redact(settings, upstream.message)}`;
  const statusText = upstream.status === null ? `HTTP ${status}` : `HTTP ${status} ${upstream.status}`;
  if (status === 429 || status === 408 || status >= 500) {
    return { ok: false, failure: { status, reason: `${statusText}${upstreamText}` } };
  }
  // Google answers a stale or unknown page token with a plain 400 INVALID_ARGUMENT. A bad key is
  // also a 400 INVALID_ARGUMENT (reason API_KEY_INVALID), and that must stay `rejected`.
  const namesTheKey = upstream.reasons.some((reason) => reason.startsWith("API_KEY"));
  if (status === 400 && body.pageToken !== undefined && !namesTheKey) {
    throw new PlacesProviderError(
      "page_token_expired",
      `Google Places refused the page token of a later page (${statusText}${upstreamText})`,
      { status },
    );
  }
  if (status >= 400 && status < 500) {
    throw new PlacesProviderError(
      "rejected",
      `Google Places rejected the request (${statusText}${upstreamText})`,
      {
        status,
      },
    );
  }
  throw new PlacesProviderError("bad_response", `Google Places answered with unexpected ${statusText}`, {
    status,
  });
}

/** One page, with retries on transient failures; non-transient ones throw at once. */
async function fetchPage(
  settings: ProviderSettings,
  body: SearchTextRequestBody,
  signal: AbortSignal | undefined,
): Promise<SearchTextResponse> {
  const { logger } = settings;
  const maxAttempts = settings.retries + 1;
  for (let attempt = 1; ; attempt++) {
    let outcome: AttemptOutcome;
    try {
      outcome = await attemptOnce(settings, body, signal);
    } catch (error) {
      if (error instanceof PlacesProviderError) {
        logger?.error(
          { provider: PROVIDER_NAME, kind: error.kind, status: error.status, attempt },
          `places request failed: ${error.message}`,
        );
      }
      throw error;
    }
    if (outcome.ok) {
      return outcome.response;
    }
    const { failure } = outcome;
    const reason = redact(settings, failure.reason);
    if (attempt >= maxAttempts) {
      logger?.error(
        { provider: PROVIDER_NAME, kind: "unavailable", status: failure.status, attempts: attempt, reason },
        "places request failed, giving up",
      );
      throw new PlacesProviderError(
        "unavailable",
        `Google Places unavailable after ${attempt} attempt${attempt === 1 ? "" : "s"}: ${reason}`,
        { status: failure.status, cause: failure.cause },
      );
    }
    const delayMs = backoffDelayMs(
      attempt,
      settings.retryBaseDelayMs,
      settings.retryMaxDelayMs,
      settings.random,
    );
    logger?.warn(
      { provider: PROVIDER_NAME, status: failure.status, attempt, maxAttempts, delayMs, reason },
      "places request failed, retrying",
    );
    await sleep(delayMs, signal);
  }
}

async function* searchText(
  settings: ProviderSettings,
  query: TextSearchQuery,
  options?: SearchTextOptions,
): AsyncGenerator<PlaceCandidate[], void, undefined> {
  const signal = options?.signal;
  const minRating = query.minRating;
  if (minRating !== undefined && !(minRating >= 0 && minRating <= 5)) {
    throw new RangeError(`minRating must be between 0 and 5, got ${minRating}`);
  }
  const seenPlaceIds = new Set<string>();
  let yieldedCount = 0;
  let pageToken: string | undefined;
  for (let pageNumber = 1; pageNumber <= MAX_PAGES_PER_QUERY; pageNumber++) {
    signal?.throwIfAborted();
    const body: SearchTextRequestBody = { textQuery: query.textQuery, pageSize: PLACES_PAGE_SIZE };
    if (minRating !== undefined) {
      body.minRating = googleMinRating(minRating);
    }
    if (pageToken !== undefined) {
      body.pageToken = pageToken;
    }
    const response = await fetchPage(settings, body, signal);
    const page = newCandidates(settings, response, { seenPlaceIds, yieldedCount, minRating });
    if (page.length > 0) {
      yieldedCount += page.length;
      yield page;
    }
    if (yieldedCount >= MAX_PLACES_PER_QUERY || response.nextPageToken === undefined) {
      return;
    }
    pageToken = response.nextPageToken;
  }
}

/** The places of one page not seen before, at or above minRating, up to the query's cap. */
function newCandidates(
  { logger }: ProviderSettings,
  response: SearchTextResponse,
  sofar: { seenPlaceIds: Set<string>; yieldedCount: number; minRating: number | undefined },
): PlaceCandidate[] {
  const { seenPlaceIds, yieldedCount, minRating } = sofar;
  const page: PlaceCandidate[] = [];
  for (const place of response.places ?? []) {
    if (yieldedCount + page.length >= MAX_PLACES_PER_QUERY) {
      break;
    }
    if (seenPlaceIds.has(place.id)) {
      continue;
    }
    const candidate = toPlaceCandidate(place);
    if (candidate === null) {
      logger?.warn(
        { provider: PROVIDER_NAME, placeId: place.id },
        "place without a display name left out of the results",
      );
      continue;
    }
    // Exact filter: Google's own rounds minRating up to a 0.5 step (see googleMinRating).
    if (minRating !== undefined && (candidate.rating === null || candidate.rating < minRating)) {
      continue;
    }
    seenPlaceIds.add(place.id);
    page.push(candidate);
  }
  return page;
}

/**
 * Google keeps places rated at least minRating rounded UP to the next 0.5 (4.2 keeps only
 * >= 4.5), which would drop a 4.3 the caller asked for. So Google gets the value rounded
 * DOWN to a 0.5 step (a superset), and the exact threshold is applied to what comes back.
 */
function googleMinRating(minRating: number): number {
  return Math.floor(minRating * 2) / 2;
}

/** Backoff before retry number `attempt` (1-based): "equal jitter", never 0, never above max. */
function backoffDelayMs(
  attempt: number,
  baseDelayMs: number,
  maxDelayMs: number,
  random: () => number,
): number {
  const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  return Math.round(cap / 2 + random() * (cap / 2));
}

/** null when the place has no display name: a lead needs a name, and an address is not one. */
function toPlaceCandidate(place: GooglePlace): PlaceCandidate | null {
  const name = place.displayName?.text.trim() ?? "";
  if (name === "") {
    return null;
  }
  return {
    placeId: place.id,
    name,
    category: categoryOf(place),
    address: nonEmpty(place.formattedAddress),
    website: httpWebsiteOrNull(place.websiteUri),
    phone: nonEmpty(place.nationalPhoneNumber),
    permanentlyClosed: place.businessStatus === "CLOSED_PERMANENTLY",
    country: countryOf(place),
    rating: place.rating ?? null,
    userRatingCount: place.userRatingCount ?? 0,
  };
}

function categoryOf(place: GooglePlace): string | null {
  const displayed = nonEmpty(place.primaryTypeDisplayName?.text);
  if (displayed !== null) {
    return displayed;
  }
  return place.primaryType === undefined ? null : humanisePlaceType(place.primaryType);
}

/** "hardware_store" -> "Hardware store": what Google's display name would roughly say. */
function humanisePlaceType(placeType: string): string | null {
  const words = placeType.replace(/_/g, " ").replace(/\s+/g, " ").trim();
  if (words === "") {
    return null;
  }
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function countryOf(place: GooglePlace): string | null {
  const component = place.addressComponents?.find((entry) => entry.types?.includes("country") ?? false);
  const code = component?.shortText?.trim().toUpperCase();
  return code !== undefined && /^[A-Z]{2}$/.test(code) ? code : null;
}

function nonEmpty(text: string | undefined): string | null {
  const trimmed = text?.trim();
  return trimmed === undefined || trimmed === "" ? null : trimmed;
}

function parseSearchTextResponse(text: string): SearchTextResponse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PlacesProviderError(
      "bad_response",
      `Google Places answered with a body that is not JSON (starts with ${JSON.stringify(text.slice(0, 40))})`,
      { status: 200 },
    );
  }
  const parsed = searchTextResponseSchema.safeParse(json);
  if (!parsed.success) {
    const firstIssue = parsed.error.issues[0];
    const where =
      firstIssue === undefined || firstIssue.path.length === 0 ? "(root)" : firstIssue.path.join(".");
    throw new PlacesProviderError(
      "bad_response",
      `Google Places answered with an unexpected shape at ${where}: ${firstIssue?.message ?? "invalid"}`,
      { status: 200 },
    );
  }
  return parsed.data;
}

function parseGoogleError(text: string): {
  message: string | null;
  status: string | null;
  reasons: string[];
} {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { message: null, status: null, reasons: [] };
  }
  const parsed = googleErrorSchema.safeParse(json);
  if (!parsed.success) {
    return { message: null, status: null, reasons: [] };
  }
  const { message, status, details } = parsed.data.error;
  return {
    message: message ?? null,
    status: status ?? null,
    reasons: (details ?? []).flatMap((detail) => (detail.reason === undefined ? [] : [detail.reason])),
  };
}

/** Reads the body, refusing to buffer an absurdly large one. */
async function readBodyText(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw new PlacesProviderError(
        "bad_response",
        `Google Places answer is larger than ${MAX_RESPONSE_BYTES} bytes`,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
