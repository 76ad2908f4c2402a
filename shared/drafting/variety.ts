/**
 * Variety between neighbours: drafts for businesses found by one search must not read like one
 * template, so no sentence beyond the fixed lines (greeting, signature, compliance lines) may
 * repeat from one draft to the next (DESIGN.md, "Drafts a person would send").
 *
 * Each draft carries a variant number (the lead's rank among its workspace's leads, so the leads of
 * one search have consecutive numbers). A sentence that does not name the business is built from
 * two parts with VARIANT_SIDE wordings each, chosen by the two base-VARIANT_SIDE digits of the
 * variant: any VARIANT_COUNT consecutive variants give VARIANT_COUNT different sentences, which
 * covers a whole search (at most MAX_RESULTS = 25 leads). A sentence naming the business differs
 * between neighbours by the name itself.
 */

/** Wordings per part of a two-part sentence. */
const VARIANT_SIDE = 5;
/** Distinct two-part sentences: one per lead of the largest search. */
export const VARIANT_COUNT = VARIANT_SIDE * VARIANT_SIDE;

/** A non-negative integer below VARIANT_COUNT (anything else is folded into that range). */
export function normaliseVariant(variant: number | undefined): number {
  if (variant === undefined || !Number.isFinite(variant)) return 0;
  const whole = Math.trunc(Math.abs(variant));
  return whole % VARIANT_COUNT;
}

/** The wording of a two-part sentence for this variant: [first part's index, second part's index]. */
export function variantDigits(variant: number | undefined): [first: number, second: number] {
  const value = normaliseVariant(variant);
  return [value % VARIANT_SIDE, Math.floor(value / VARIANT_SIDE) % VARIANT_SIDE];
}

/** One of `choices` for this variant (for wordings whose sentence names the business anyway). */
export function pick<T>(choices: readonly [T, ...T[]], variant: number | undefined): T {
  return choices[normaliseVariant(variant) % choices.length] ?? choices[0];
}
