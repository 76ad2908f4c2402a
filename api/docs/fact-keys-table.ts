import { FACT_KEYS_IN_ORDER, FACT_MEANINGS_FOR_CLIENTS } from "../../shared/facts/fact-keys.ts";

const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The `facts_used` table of `/v1/docs`, written from the one list of fact keys and their meanings
 * (the same the `facts_used` description of `/openapi.json` is built from), so a new key cannot be
 * left out of either.
 */
export function factKeysTableMarkdown(): string {
  return [
    "| Key | Meaning |",
    "|---|---|",
    ...FACT_KEYS_IN_ORDER.map((key) => `| \`${key}\` | ${upperFirst(FACT_MEANINGS_FOR_CLIENTS[key])} |`),
  ].join("\n");
}
