import type { SearchFilters } from "./schemas.ts";

// The request types are `z.infer` of the wire schemas (shared/search/schemas.ts), never copies.
export type { SearchFilters, SearchRequest } from "./schemas.ts";
export { MAX_FREE_TRIAL_QUERIES, MAX_RESULTS } from "./schemas.ts";

/** Filters answered from the homepage itself: they need an audit (cached or live). */
export const LIVE_FILTERS = ["not_mobile_friendly", "outdated_website", "stale_content"] as const;
export type LiveFilter = (typeof LIVE_FILTERS)[number];

export function requestedLiveFilters(filters: SearchFilters | undefined): LiveFilter[] {
  return LIVE_FILTERS.filter((filter) => filters?.[filter] === true);
}
