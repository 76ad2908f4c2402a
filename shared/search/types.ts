import { LIVE_FILTERS, type LiveFilter, type SearchFilters } from "./schemas.ts";

// The request types are `z.infer` of the wire schemas (shared/search/schemas.ts), never copies.
export type { LiveFilter, SearchFilters, SearchRequest } from "./schemas.ts";
export { MAX_FREE_TRIAL_QUERIES, MAX_RESULTS } from "./schemas.ts";

export function requestedLiveFilters(filters: SearchFilters | undefined): LiveFilter[] {
  return LIVE_FILTERS.filter((filter) => filters?.[filter] === true);
}
