import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FetchedPage } from "./fetch-homepage.ts";

/**
 * The offline demo's websites: homepages written for the example places fixture, answered for
 * their `.example` hosts without any network. `.example` is a reserved top-level domain that
 * never resolves, so these pages can never stand in for a real site, and every other URL goes
 * through the fetcher's address checks as usual. Off unless `AUDIT_DEMO_SITES_DIR` is set.
 */
export interface DemoSites {
  /** The page of a demo host's homepage (`/`), or undefined for any other URL. */
  homepage(url: URL): FetchedPage | undefined;
}

const DEMO_FILE = /^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.example)\.html$/;

/** Reads every `<host>.example.html` of the folder once, at start; any other file is refused. */
export function loadDemoSites(directory: string): DemoSites {
  const pages = new Map<string, Uint8Array>();
  for (const name of readdirSync(directory)) {
    const host = DEMO_FILE.exec(name)?.[1];
    if (!host) {
      throw new Error(
        `AUDIT_DEMO_SITES_DIR ${directory}: ${name} is not named <host>.example.html (only .example hosts can be demo sites)`,
      );
    }
    pages.set(host, new Uint8Array(readFileSync(join(directory, name))));
  }
  return {
    homepage(url) {
      if (url.pathname !== "/" || url.search !== "" || url.port !== "") return undefined;
      const body = pages.get(url.hostname);
      if (!body) return undefined;
      return {
        ok: true,
        finalUrl: url.href,
        status: 200,
        contentType: "text/html; charset=utf-8",
        // A copy each time: the analysis transfers the buffer to its thread.
        body: body.slice(),
      };
    },
  };
}
