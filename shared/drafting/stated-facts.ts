/**
 * Which facts a text states, read back from its words: `facts_used` must be exactly what a draft
 * says (DESIGN.md, "Drafts a person would send"). A fact is recognised by one of its details (a
 * year, a version, a count, a width, a platform) or by the fact's own words in the draft's
 * language. The words are those any plain wording of the fact needs ("phone", "copyright",
 * "reviews", "French", "Not secure"...), so a model's own phrasing is recognised too, and a text
 * that speaks of none of them ("I help local businesses with this") states no fact.
 *
 * Pure; no I/O.
 */
import type { FactKey, VerifiedFact } from "./facts.ts";
import type { DraftLocale } from "./generator.ts";

type Words = Record<DraftLocale, RegExp>;

/** `\b` as a letter-aware boundary: JavaScript's own ignores accented letters ("daté"). */
const BOUNDARY = "(?:(?<=[\\p{L}\\p{N}])(?![\\p{L}\\p{N}])|(?<![\\p{L}\\p{N}])(?=[\\p{L}\\p{N}]))";
const unicodeWords = (pattern: RegExp): RegExp =>
  new RegExp(pattern.source.replaceAll("\\b", BOUNDARY), "iu");

const PHONES: Words = {
  en: /\b(?:phones?|smartphones?|mobile|small screens?|pinch|zoom(?:ed|ing)?)\b/i,
  fr: /\b(?:t[ée]l[ée]phones?|mobiles?|smartphones?|portables?|petits? [ée]crans?|zoom\w*|agrandir|d[ée]zoom\w*)\b/i,
};

const FACT_WORDS: Record<FactKey, Words> = {
  site_unreachable: {
    en: /\b(?:(?:would|does|did|could|will|can)(?:n't| not)|won't|can't|cannot) (?:open|load)|not (?:loading|opening)|(?:is|was|seems?|went) (?:down|offline|unreachable)|\berrors?\b|page not found|turned the visit away|leads nowhere/i,
    fr: /ne s'(?:ouvre|affiche|est pas ouvert)|ne (?:se )?charge pas|inaccessible|hors ligne|\berreurs?\b|introuvable|ne m[èe]ne nulle part|refus[ée] la (?:visite|connexion)/i,
  },
  parked_domain: {
    en: /\bpark(?:ed|ing)\b|for sale|placeholder page|domain (?:company|registrar|seller)/i,
    fr: /\bparking\b|à vendre|page d'attente|bureau d'enregistrement|parqu[ée]/i,
  },
  social_profile_only: {
    en: /\b(?:facebook|instagram|linktree|linkedin|tiktok|yelp|social media|social profile|link page)\b/i,
    fr: /\b(?:facebook|instagram|linktree|linkedin|tiktok|yelp|r[ée]seaux? sociaux?|r[ée]seau social)\b/i,
  },
  no_https: {
    en: /\bhttps\b|not secure|security certificate|\bcertificate\b|\bpadlock\b|isn't safe|not safe/i,
    fr: /\bhttps\b|non s[ée]curis[ée]|certificat|cadenas|pas s[ûu]r/i,
  },
  no_website: {
    en: /\b(?:no|without a|(?:couldn't|could not|can't|cannot) find a|(?:don't|doesn't|do not|does not) (?:yet )?have a|lacks? a) (?:web ?)?site\b/i,
    fr: /\b(?:pas de|aucun|sans) site\b|trouv[ée] de site|pas (?:encore )?de site web|n'avez pas (?:encore )?de site/i,
  },
  no_mobile_viewport: PHONES,
  stale_copyright: {
    en: /\bcopyright\b|©|\bdate at the bottom\b/i,
    fr: /\bcopyright\b|©|droits d'auteur|date en bas/i,
  },
  legacy_site_tech: {
    en: /\bjquery\b|\bflash\b|html tables?|\btables\b|obsolete|\bold(?:er)? (?:version|technique|technology|formatting|code|web technology)|outdated (?:code|technology)|<[a-z]+>|no longer gets security fixes/i,
    fr: /\bjquery\b|\bflash\b|tableaux? html|obsol[èe]te|ancienne? (?:version|technique|technologie)|technologies web anciennes|code de mise en forme|<[a-z]+>|correctifs de s[ée]curit[ée]/i,
  },
  no_french_version: {
    en: /\bfrench\b|francophone/i,
    fr: /\bfran[çc]ais(?:e|es)?\b|francophone/i,
  },
  low_review_count: {
    en: /\breviews?\b|\bratings?\b|\btestimonials?\b/i,
    fr: /\bavis\b|\b[ée]valuations?\b|\bnotes? (?:en ligne|google)\b|t[ée]moignages?/i,
  },
  not_mobile_friendly: PHONES,
  outdated_website: {
    en: /\b(?:dated|outdated|old-fashioned|fresh look|refresh|old look|looks? old)\b/i,
    fr: /\b(?:dat[ée]|vieilli|d[ée]mod[ée]|coup de jeune|rafra[îi]chi\w*|vieillot)\b/i,
  },
};

for (const words of Object.values(FACT_WORDS)) {
  words.en = unicodeWords(words.en);
  words.fr = unicodeWords(words.fr);
}

/** Detail values that, written in the text, state the fact by themselves. */
const TELLING_DETAILS: Partial<Record<FactKey, string[]>> = {
  stale_copyright: ["copyright_year"],
  legacy_site_tech: ["jquery_version"],
  not_mobile_friendly: ["viewport_width"],
  social_profile_only: ["platform"],
};

function statesDetail(text: string, fact: VerifiedFact): boolean {
  for (const key of TELLING_DETAILS[fact.key] ?? []) {
    const value = fact.details[key];
    if (value === undefined || String(value).trim() === "") continue;
    const escaped = String(value).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (new RegExp(`(?<![\\p{L}\\p{N}.])${escaped}(?![\\p{L}\\p{N}]|\\.\\d)`, "iu").test(text)) return true;
  }
  return false;
}

/** Does `text` state `fact`, in `locale`? */
function statesFact(text: string, fact: VerifiedFact, locale: DraftLocale): boolean {
  return statesDetail(text, fact) || FACT_WORDS[fact.key][locale].test(text);
}

/** The given facts that `text` states, in the given order. */
export function factsStatedIn(text: string, facts: readonly VerifiedFact[], locale: DraftLocale): FactKey[] {
  return facts.filter((fact) => statesFact(text, fact, locale)).map((fact) => fact.key);
}

/**
 * Why a claim of facts is refused, or null when every claimed fact is stated: a claim of no fact,
 * or of a fact the text does not state.
 */
export function findUnstatedClaims(
  text: string,
  claimed: readonly FactKey[],
  facts: readonly VerifiedFact[],
  locale: DraftLocale,
): string | null {
  if (claimed.length === 0) return "facts_used names no fact";
  const unstated = claimed.filter((key) => {
    const fact = facts.find((candidate) => candidate.key === key);
    return fact === undefined || !statesFact(text, fact, locale);
  });
  return unstated.length === 0
    ? null
    : `facts_used claims ${unstated.join(", ")}, which the text does not state`;
}
