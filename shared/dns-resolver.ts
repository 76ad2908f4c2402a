import { Resolver } from "node:dns/promises";

/**
 * A c-ares resolver (not libuv's thread pool, see fetch-homepage.ts) asking the configured
 * servers (`DNS_SERVERS`, `ip[:port]`), or the system's when none are set. Every lookup the service
 * makes goes through one of these: homepage fetches and mail checks alike.
 */
export function createDnsResolver(
  servers: readonly string[],
  options: { timeoutMs: number; tries: number },
): Resolver {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries });
  if (servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}
