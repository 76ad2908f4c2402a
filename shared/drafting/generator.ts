/**
 * The drafting contract shared by the built-in template drafter and the LLM drafter.
 * The route selects facts, asks a generator for a draft, and charges only once it has one.
 */
import type { Language } from "../languages.ts";
import type { FactKey, VerifiedFact } from "./facts.ts";

/** A draft is written in one of the service's languages. */
export type DraftLocale = Language;

export interface DraftSender {
  /** The workspace's sender name; null when unset (the draft shows a placeholder). */
  name: string | null;
  /** The workspace's company; null when unset (the draft shows a placeholder). */
  company: string | null;
  /** The workspace's offer in the draft's language (offer_en or offer_fr); null when unset. */
  offer: string | null;
  /** The workspace's postal address, ending every draft; null when unset (the draft shows a placeholder). */
  postalAddress: string | null;
}

export interface DraftRequest {
  locale: DraftLocale;
  /** `city`: the business's town (from its address, or the location its search named); null when unknown. */
  business: { name: string; category: string; city?: string | null };
  /** Verified facts, at most two, in the order they should be used (see selectFacts). */
  facts: VerifiedFact[];
  sender: DraftSender;
  /** The lead's address was found on its own website: the draft says so (where it came from). */
  emailFoundOnWebsite: boolean;
  /**
   * Which wording the variable sentences take (variety.ts): the lead's rank among its workspace's
   * leads, so that neighbours found by one search read differently. Default 0.
   */
  variant?: number;
}

export interface Draft {
  subject: string;
  body: string;
  /** Keys of the facts the text states; a non-empty subset of the request's facts, at most two. */
  facts_used: FactKey[];
}

export interface DraftGenerator {
  readonly name: "template" | "llm";
  /**
   * The longest one generate() call can take (its own deadline). The route holds the draft's
   * credit a little longer than this, so a hold outlives the work it pays for.
   */
  readonly maxDurationMs: number;
  /** Throws ApiError `generation_failed` (502) when no valid draft could be produced. */
  generate(request: DraftRequest): Promise<Draft>;
}

/** Placeholders the user must replace before sending (DESIGN.md: `[Your name]` where unset). */
const SENDER_PLACEHOLDERS: Record<DraftLocale, { name: string; company: string; postalAddress: string }> = {
  en: { name: "[Your name]", company: "[Your company]", postalAddress: "[Your postal address]" },
  fr: { name: "[Votre nom]", company: "[Votre entreprise]", postalAddress: "[Votre adresse postale]" },
};

/** One line, trimmed; empty means unset. Keeps a sender value or a name from adding lines. */
export function singleLine(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const line = value.replace(/\s+/g, " ").trim();
  return line === "" ? null : line;
}

/**
 * The lines under the sign-off, shared by both drafters: name and company, with placeholders
 * where unset. The offer is not a signature line: it is a sentence of the body (email-frame.ts).
 */
export function signatureLines(sender: DraftSender, locale: DraftLocale): string[] {
  const placeholders = SENDER_PLACEHOLDERS[locale];
  return [singleLine(sender.name) ?? placeholders.name, singleLine(sender.company) ?? placeholders.company];
}

/** An address is written on a few lines at most; more is not an address. */
const MAX_POSTAL_ADDRESS_LINES = 4;

/**
 * The postal address's lines as the workspace wrote them (each trimmed, blank ones dropped, at
 * most MAX_POSTAL_ADDRESS_LINES, the rest joined to the last), or the placeholder when unset.
 */
export function postalAddressLines(sender: DraftSender, locale: DraftLocale): string[] {
  const lines = (sender.postalAddress ?? "")
    .split(/\r?\n/)
    .map((line) => singleLine(line))
    .filter((line): line is string => line !== null);
  if (lines.length === 0) return [SENDER_PLACEHOLDERS[locale].postalAddress];
  const kept = lines.slice(0, MAX_POSTAL_ADDRESS_LINES - 1);
  const rest = lines.slice(MAX_POSTAL_ADDRESS_LINES - 1);
  return rest.length === 0 ? kept : [...kept, rest.join(", ")];
}
