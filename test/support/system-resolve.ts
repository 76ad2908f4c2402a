import { Resolver } from "node:dns/promises";
import { createCachingResolver } from "../../shared/audit/fetch-homepage.ts";

/** The fetcher's resolver on the system's DNS servers, for tests that build fetch options by hand. */
export const systemResolve = createCachingResolver({
  queries: new Resolver({ timeout: 2_500, tries: 2 }),
  maxTtlMs: 60_000,
  maxEntries: 1_000,
});
