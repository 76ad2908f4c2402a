export interface SearchQuery {
  location: string;
  category: string;
}

export interface SearchFilters {
  min_rating?: number;
  no_website?: boolean;
  not_mobile_friendly?: boolean;
  outdated_website?: boolean;
  stale_content?: boolean;
}

export interface SearchRequest {
  queries: SearchQuery[];
  filters?: SearchFilters;
  max_results: number;
}

/** Filters answered from the homepage itself: they need an audit (cached or live). */
export const LIVE_FILTERS = ["not_mobile_friendly", "outdated_website", "stale_content"] as const;
export type LiveFilter = (typeof LIVE_FILTERS)[number];

export const MAX_QUERIES = 5;
export const MAX_FREE_TRIAL_QUERIES = 2;
export const MAX_RESULTS = 25;

export function requestedLiveFilters(filters: SearchFilters | undefined): LiveFilter[] {
  return LIVE_FILTERS.filter((filter) => filters?.[filter] === true);
}
