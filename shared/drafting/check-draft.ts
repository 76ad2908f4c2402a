/**
 * The one checker every draft passes before it is stored and charged, whichever drafter wrote
 * it; the LLM drafter also runs the text checks on the model's part alone, before assembling.
 *
 * A draft is refused when it would mislead or could not be sent as is:
 * - it does not name the business;
 * - it states a number that is not among the verified facts: every run of digits in the text
 *   ("2014", "47", "1.8.2", "0,5") must be a value of a fact's details, or appear in the business's
 *   name or city or in the sender's own lines, or be the 15 of the 15-minute call the service asks
 *   for. A model that invents a year, a review count or a percentage is caught here (numbers
 *   written in words are not checked);
 * - it contains a link or an email address (the service never sends either: the business's own
 *   address must not be put in the body, and a model's link is unverified);
 * - it is not in the requested language (detectLanguage below);
 * - it does not end exactly as the service writes every draft's end: the signature (sign-off, name,
 *   company), the postal address (or its placeholder), then one paragraph saying where the
 *   address was found (only when it was found on the business's website) and the opt-out. A
 *   draft that drops, alters or reorders any of them, or adds to them, is refused;
 * - its own text (a model's part) writes an opt-out of its own: the service writes the only one;
 * - the workspace's offer is missing.
 */
import { franc } from "franc-min";
import { askSentence, closingLines, frameFor, introSentence, offerSentence } from "./email-frame.ts";
import { factsForDraft, MAX_FACTS_PER_DRAFT } from "./facts.ts";
import {
  type Draft,
  type DraftLocale,
  type DraftRequest,
  postalAddressLines,
  signatureLines,
  singleLine,
} from "./generator.ts";
import { findUnstatedClaims } from "./stated-facts.ts";

/** The number the service's own ask states ("a 15-minute call"), in both languages. */
const ASK_NUMBERS = ["15"];

/** Opt-out wording in English and French: only the service's own notice may carry it. */
const OPT_OUT_PATTERN =
  /\b(?:unsubscribe|opt[- ]?out|rather not hear|stop (?:hearing|receiving))|d[ée]sabonn|d[ée]sinscri|ne plus recevoir|ne plus (?:vous )?(?:[ée]crire|contacter)/i;

/** Runs of digits, with inner dots or commas ("1.8.2", "0,5"); a trailing period is punctuation. */
const NUMBER_PATTERN = /\d+(?:[.,]\d+)*/g;

const URL_PATTERN = /\b(?:https?:\/\/|ftp:\/\/|www\.)\S+/i;
const EMAIL_PATTERN = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/u;
/** A bare domain ("mapleleaf.ca", "pixel-pine.studio/contact"): a word, a dot, a known top-level domain. */
const BARE_DOMAIN_PATTERN =
  /\b[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(?:com|ca|net|org|io|co|fr|info|biz|dev|app|shop|site|online|store|studio|agency|us|uk|eu|be|ch|qc)\b/iu;

/** The numbers a draft may state: see the module comment. Normalised with a dot as the decimal mark. */
export function allowedNumbers(request: DraftRequest): Set<string> {
  const sources: string[] = [
    ...ASK_NUMBERS,
    request.business.name,
    request.business.city ?? "",
    request.sender.name ?? "",
    request.sender.company ?? "",
    request.sender.offer ?? "",
  ];
  for (const fact of factsForDraft(request.facts)) {
    for (const value of Object.values(fact.details)) sources.push(String(value));
  }
  const allowed = new Set<string>();
  for (const source of sources) {
    for (const match of source.matchAll(NUMBER_PATTERN)) {
      const number = normaliseNumber(match[0]);
      allowed.add(number);
      // "1.8.2" allows "1.8" and "1" too: "jQuery 1.8" states no more than the fact does.
      const parts = number.split(".");
      for (let i = 1; i < parts.length; i += 1) allowed.add(parts.slice(0, i).join("."));
    }
  }
  return allowed;
}

function normaliseNumber(text: string): string {
  return text.replace(/,/g, ".");
}

/** The numbers in `text` that are not allowed, in order of appearance, without repeats. */
export function unverifiedNumbers(text: string, allowed: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(NUMBER_PATTERN)) {
    const number = normaliseNumber(match[0]);
    if (!allowed.has(number) && !found.includes(number)) found.push(number);
  }
  return found;
}

/** A link, a bare domain or an email address in `text`, or null. */
export function findLinkOrEmail(text: string): string | null {
  for (const pattern of [EMAIL_PATTERN, URL_PATTERN, BARE_DOMAIN_PATTERN]) {
    const match = pattern.exec(text);
    if (match !== null) return match[0];
  }
  return null;
}

/** Fewer letters than this says too little to tell English from French: no verdict. */
const MIN_LETTERS_FOR_A_VERDICT = 40;

/**
 * English or French, by franc (trigram profiles of languages, here restricted to English and
 * French): the language whose common three-letter sequences the text matches better. "und" when
 * the text is too short to tell. Names, numbers and the service's own fixed lines are removed by
 * the caller where they would dilute the text being judged.
 */
export function detectLanguage(text: string): DraftLocale | "und" {
  const letters = text.replace(/[^\p{L}]/gu, "");
  if (letters.length < MIN_LETTERS_FOR_A_VERDICT) return "und";
  const code = franc(text, { only: ["eng", "fra"], minLength: 1 });
  if (code === "eng") return "en";
  if (code === "fra") return "fr";
  return "und";
}

/**
 * Problems of free text written for this request (the model's part, or a whole draft): links,
 * unverified numbers, wrong language. The business's name and city are provider data, not the
 * writer's claims: they are taken out first (a name may hold digits or read like a domain, and an
 * English name in a French email, or the reverse, is normal).
 */
export function findTextProblems(text: string, request: DraftRequest): string[] {
  const problems: string[] = [];
  const own = removeAll(text, [request.business.name, request.business.city ?? ""]);
  const link = findLinkOrEmail(own);
  if (link !== null) problems.push("it contains a link or an email address");
  const numbers = unverifiedNumbers(own, allowedNumbers(request));
  if (numbers.length > 0)
    problems.push(`it states numbers that are not among the verified facts: ${numbers.join(", ")}`);
  if (OPT_OUT_PATTERN.test(own))
    problems.push("it writes an opt-out of its own (the service adds the one opt-out)");
  const language = detectLanguage(own);
  if (language !== "und" && language !== request.locale) {
    problems.push(
      `it is written in ${language === "en" ? "English" : "French"}, not the requested ${request.locale}`,
    );
  }
  return problems;
}

function removeAll(text: string, needles: string[]): string {
  let result = text;
  for (const needle of needles) {
    const trimmed = needle.trim();
    if (trimmed !== "") result = result.split(trimmed).join(" ");
  }
  return result;
}

/**
 * Every reason the draft cannot be stored, empty when it passes. Used on every draft the service
 * produces (template and LLM) and by the tests on every draft they receive.
 */
export function findDraftProblems(draft: Draft, request: DraftRequest): string[] {
  const problems: string[] = [];
  const name = singleLine(request.business.name);
  if (name !== null && !draft.body.includes(name)) problems.push("it does not name the business");
  if (draft.subject.trim() === "" || draft.subject.includes("\n"))
    problems.push("the subject is not one line");

  const given = factsForDraft(request.facts).map((fact) => fact.key);
  if (draft.facts_used.length === 0 || draft.facts_used.length > MAX_FACTS_PER_DRAFT) {
    problems.push("facts_used must list one or two facts");
  }
  if (draft.facts_used.some((key) => !given.includes(key)))
    problems.push("facts_used names a fact that was not given");
  // facts_used is exactly what the body states: each claimed fact recognisable in the middle (the
  // service's own sentences taken out: its ask may say "phone call", its opening "your website").
  const middle = middleOf(draft, request);
  const unstated = findUnstatedClaims(middle, draft.facts_used, factsForDraft(request.facts), request.locale);
  if (unstated !== null && draft.facts_used.length > 0) problems.push(unstated);

  const [signature, notice] = closingLines(request);
  if (!draft.body.endsWith(`\n\n${signature}\n\n${notice}`))
    problems.push(...describeBadEnd(draft.body, request));
  const offer = offerSentence(request);
  if (offer !== null && !draft.body.includes(offer)) problems.push("it does not carry the offer");

  // The signature block, the notice and the offer are the service's or the workspace's own text.
  const ownText = offer === null ? [signature, notice] : [signature, notice, offer];
  problems.push(...findTextProblems(`${draft.subject}\n${removeAll(draft.body, ownText)}`, request));
  return problems;
}

/** The body without the service's and the workspace's own sentences: what states the facts. */
export function middleOf(draft: Draft, request: DraftRequest): string {
  const [signature, notice] = closingLines(request);
  const offer = offerSentence(request);
  const own = [
    frameFor(request.locale).greeting,
    introSentence(request, draft.facts_used[0]),
    askSentence(request),
    signature,
    notice,
    ...(offer === null ? [] : [offer]),
  ];
  return removeAll(draft.body, own);
}

/** Which part of the required end is missing or altered (at least one reason). */
function describeBadEnd(body: string, request: DraftRequest): string[] {
  const frame = frameFor(request.locale);
  const [, notice] = closingLines(request);
  const reasons: string[] = [];
  const signature = [frame.signOff, ...signatureLines(request.sender, request.locale)].join("\n");
  if (!body.includes(signature)) reasons.push("it does not carry the signature");
  if (!body.includes(postalAddressLines(request.sender, request.locale).join("\n")))
    reasons.push("it does not carry the postal address");
  if (!body.includes(notice)) {
    reasons.push(
      request.emailFoundOnWebsite
        ? "it does not carry the notice saying where the address was found and how to opt out"
        : "it does not carry the opt-out sentence (alone: the address was not found on the business's website)",
    );
  }
  if (reasons.length === 0) {
    reasons.push("it does not end with the signature, the postal address and the opt-out, in that order");
  }
  return reasons;
}
