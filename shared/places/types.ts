/**
 * The contract between the search route and a source of local businesses ("places").
 * Two implementations: Google Places API (New) Text Search (`google-places.ts`) and an
 * offline JSON fixture (`fixture-places.ts`) for demos and tests.
 */

/** One business as the provider describes it, before it becomes a lead. */
export interface PlaceCandidate {
  /** The provider's stable identifier of the business (Google's place id). */
  placeId: string;
  name: string;
  /** Human-readable category or trade ("Plumber"); null when the provider gives none. */
  category: string | null;
  address: string | null;
  /** The business's own website: an http(s) URL, or null (none, or a link of another scheme). */
  website: string | null;
  /** The provider's national phone number as written for the country ("(613) 555-0134"); null when none. */
  phone: string | null;
  /** The provider says the business closed for good: never returned, never charged. */
  permanentlyClosed: boolean;
  /** ISO 3166-1 alpha-2 code (upper case) of the address's country, when known. */
  country: string | null;
  /** Average user rating, 1 to 5; null when the place has no rating. */
  rating: number | null;
  /** Number of user ratings; the provider omitting it means 0. */
  userRatingCount: number;
}

export interface TextSearchQuery {
  /** Free text as sent to the provider; build it with `toTextQuery` so every provider agrees. */
  textQuery: string;
  /** Only places rated at least this (0 to 5); unrated places are then left out. */
  minRating?: number;
}

export interface SearchTextOptions {
  /**
   * Cancels the search: an in-flight request and any retry wait stop, and the iteration
   * rejects with `signal.reason` (not a PlacesProviderError, since the caller chose it).
   */
  signal?: AbortSignal;
}

export interface PlacesProvider {
  /** Short identifier for logs and metrics ("google-places", "fixture"). */
  readonly name: string;
  /**
   * Yields the matches one page at a time, lazily: a page is fetched only when the
   * consumer asks for it, so breaking out of `for await` stops all further requests.
   * At most `MAX_PAGES_PER_QUERY` pages and `MAX_PLACES_PER_QUERY` places in all; a place
   * is yielded at most once per query; pages are never empty.
   * Failures reject the iteration with a `PlacesProviderError`.
   */
  searchText(query: TextSearchQuery, options?: SearchTextOptions): AsyncIterable<PlaceCandidate[]>;
}

/** Google pages Text Search by 20 and stops after 3 pages: the spec's cap of 60 per query. */
export const PLACES_PAGE_SIZE = 20;
export const MAX_PAGES_PER_QUERY = 3;
export const MAX_PLACES_PER_QUERY = 60;

/**
 * What went wrong, so the caller can decide what to tell its own client:
 * - `unavailable`: network failure, timeout, 429 or 5xx, still failing after the retries;
 * - `bad_response`: a 2xx answer that is not the JSON shape we expect;
 * - `page_token_expired`: the provider refused the token of a later page (earlier pages
 *   were already yielded and stay valid);
 * - `rejected`: the provider refused the request itself (4xx: bad API key, API not
 *   enabled, permission denied, invalid argument). Retrying will not help.
 */
export type PlacesProviderErrorKind = "unavailable" | "bad_response" | "page_token_expired" | "rejected";

export class PlacesProviderError extends Error {
  readonly kind: PlacesProviderErrorKind;
  /** HTTP status of the last answer, when there was one. */
  readonly status: number | null;

  constructor(
    kind: PlacesProviderErrorKind,
    message: string,
    options?: { status?: number | null; cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PlacesProviderError";
    this.kind = kind;
    this.status = options?.status ?? null;
  }
}

export const isPlacesProviderError = (error: unknown): error is PlacesProviderError =>
  error instanceof PlacesProviderError;

/**
 * The text query for one structured search query. The search route and the fixture's
 * matching rule both rely on this exact form: `<category> in <location>`.
 */
export function toTextQuery(query: { location: string; category: string }): string {
  return `${collapseWhitespace(query.category)} in ${collapseWhitespace(query.location)}`;
}

/**
 * A website as the provider lists it, kept only when it is an http(s) URL: a `javascript:` or
 * `data:` link (anyone can edit a listing) is no website, and must never reach a client as one.
 */
export function httpWebsiteOrNull(text: string | null | undefined): string | null {
  const trimmed = text?.trim() ?? "";
  if (trimmed === "" || !URL.canParse(trimmed)) return null;
  const { protocol } = new URL(trimmed);
  return protocol === "http:" || protocol === "https:" ? trimmed : null;
}

function collapseWhitespace(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}
