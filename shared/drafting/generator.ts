/**
 * The drafting contract shared by the built-in template drafter and the LLM drafter.
 * The route selects facts, asks a generator for a draft, and charges only once it has one.
 */
import type { FactKey, VerifiedFact } from "./facts.ts";

export type DraftLocale = "en" | "fr";

export interface DraftSender {
  /** The workspace's sender name; null when unset (the draft shows a placeholder). */
  name: string | null;
  /** The workspace's company; null when unset (the draft shows a placeholder). */
  company: string | null;
  /** The workspace's one-line offer; null when unset. */
  offer: string | null;
}

export interface DraftRequest {
  locale: DraftLocale;
  business: { name: string; category: string; city?: string | null };
  /** Verified facts, at most two, in the order they should be used (see selectFacts). */
  facts: VerifiedFact[];
  sender: DraftSender;
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
export const SENDER_PLACEHOLDERS: Record<DraftLocale, { name: string; company: string }> = {
  en: { name: "[Your name]", company: "[Your company]" },
  fr: { name: "[Votre nom]", company: "[Votre entreprise]" },
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
