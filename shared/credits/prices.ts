/**
 * What a client pays, in credits: the one place the prices are written. The ledger charges them,
 * and every sentence that tells a client the price (the v1 and MCP descriptions, the MCP
 * instructions, /v1/docs, the 402 of a draft) is built from them.
 */

/** A search charges this for each place new to the workspace's ledger; a place charged before is free. */
export const CREDITS_PER_NEW_PLACE = 1;
/** A draft charges this once it is produced (held while it is written). */
export const CREDITS_PER_DRAFT = 1;

/** "1 credit", "3 credits". */
export const creditsInWords = (credits: number): string => `${credits} credit${credits === 1 ? "" : "s"}`;

/** The search's price as the descriptions and the docs say it: "up to 1 credit per new place returned". */
export const SEARCH_PRICE = `up to ${creditsInWords(CREDITS_PER_NEW_PLACE)} per new place returned`;
/** The draft's price: "1 credit". */
export const DRAFT_PRICE = creditsInWords(CREDITS_PER_DRAFT);
