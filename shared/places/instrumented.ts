import { type PlacesCallMetrics, secondsSince } from "../metrics.ts";
import type { PlaceCandidate, PlacesProvider, SearchTextOptions, TextSearchQuery } from "./types.ts";

/** Times each page the provider delivers (one provider call, its retries included). */
export function instrumentPlacesProvider(
  provider: PlacesProvider,
  metrics: PlacesCallMetrics,
): PlacesProvider {
  return {
    name: provider.name,
    async *searchText(query: TextSearchQuery, options?: SearchTextOptions) {
      const pages = provider.searchText(query, options)[Symbol.asyncIterator]();
      let finished = false;
      try {
        while (true) {
          const started = performance.now();
          let next: IteratorResult<PlaceCandidate[]>;
          try {
            next = await pages.next();
          } catch (error) {
            finished = true;
            metrics.placesCallFinished("error", secondsSince(started));
            throw error;
          }
          // The end of the pages is not a call: the provider stops without asking.
          if (next.done) {
            finished = true;
            return;
          }
          metrics.placesCallFinished("ok", secondsSince(started));
          yield next.value;
        }
      } finally {
        // The consumer stopped early: let the provider stop too.
        if (!finished) await pages.return?.();
      }
    },
  };
}
