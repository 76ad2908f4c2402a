/**
 * Reads a model's answer (message content or tool-call arguments) into the two things a model
 * writes: the subject and the middle of the body. Pure; no I/O.
 *
 * Repaired, because real models do it and it changes nothing the reader would see: JSON inside a
 * code fence or after a sentence of preamble; plain text ("Subject: ..." then the body) instead
 * of JSON; markdown (headings, bold, italics, bullets, numbered lists, quotes); a greeting at the
 * top or a sign-off and signature at the bottom of the model's part (the service writes its own);
 * surrounding whitespace; a subject over length (cut at a word). Refused (UnusableAnswerError):
 * an empty answer, one that looks cut off, one without a subject, and one whose facts_used names
 * a fact it was not given. Whether the text states what it claims is the generator's check
 * (stated-facts.ts). Text checks (numbers, links, language) come after, in check-draft.ts.
 */
import { z } from "zod";
import { type FactKey, MAX_FACTS_PER_DRAFT } from "./facts.ts";
import { singleLine } from "./generator.ts";

export interface ModelPart {
  subject: string;
  /** Paragraphs separated by a blank line, lines trimmed, plain text. */
  middle: string;
  /**
   * The given facts it claims, in the given order (possibly none: the generator refuses that);
   * null for a plain-text answer, which has no field to claim with: its facts are then read
   * from its text.
   */
  factsUsed: FactKey[] | null;
}

/** Raised for an answer that cannot be used; the message is the reason logged. */
export class UnusableAnswerError extends Error {
  override readonly name = "UnusableAnswerError";
}

/** Subjects are cut at a word to stay under this (mail clients show about this much). */
export const MAX_SUBJECT_LENGTH = 78;
/** The model writes one or two short paragraphs; far more than this is not the answer asked for. */
const MAX_MIDDLE_LENGTH = 2_500;

const answerSchema = z.object({
  subject: z.string(),
  body: z.string(),
  facts_used: z.array(z.string()).optional(),
});

/** Field names models use for the body when they do not follow the schema exactly. */
const BODY_ALIASES = ["body", "message", "email", "text", "content", "paragraphs"] as const;

export function readModelAnswer(raw: string | null | undefined, givenKeys: readonly FactKey[]): ModelPart {
  if (raw === null || raw === undefined || raw.trim() === "") throw new UnusableAnswerError("empty answer");
  const structured = parseJsonAnswer(raw) ?? parsePlainAnswer(raw);
  if (structured === null) throw new UnusableAnswerError("no subject and body in the answer");

  const subject = normaliseSubject(structured.subject);
  if (subject === "") throw new UnusableAnswerError("empty subject");
  const middle = normaliseMiddle(structured.body);
  if (middle === "") throw new UnusableAnswerError("empty body");
  if (middle.length > MAX_MIDDLE_LENGTH) throw new UnusableAnswerError("body too long");
  if (!/[.!?…»)"'”’]$/.test(middle)) throw new UnusableAnswerError("the body looks cut off");

  const factsUsed = structured.plain === true ? null : readFactsUsed(structured.facts_used, givenKeys);
  return { subject, middle, factsUsed };
}

function readFactsUsed(claimed: readonly string[] | undefined, givenKeys: readonly FactKey[]): FactKey[] {
  // No claim is not "every fact": a text that states nothing must not be reported as grounded.
  const unique = [...new Set(claimed ?? [])];
  if (unique.length > MAX_FACTS_PER_DRAFT)
    throw new UnusableAnswerError("facts_used lists more than two facts");
  if (unique.some((key) => !(givenKeys as readonly string[]).includes(key))) {
    throw new UnusableAnswerError("facts_used names a fact that was not given");
  }
  // Reported in the given (DESIGN.md) order, whatever order the model used.
  return givenKeys.filter((key) => unique.includes(key));
}

interface StructuredAnswer {
  subject: string;
  body: string;
  facts_used?: string[] | undefined;
  /** Read from "Subject: ..." text: there was no facts_used field to fill. */
  plain?: boolean;
}

/** JSON, bare, in a code fence, or inside prose; null when no JSON object with a subject and body is found. */
function parseJsonAnswer(raw: string): StructuredAnswer | null {
  const fenced = /```[a-zA-Z]*\s*\n?([\s\S]*?)```/.exec(raw)?.[1];
  const candidates = [raw.trim(), fenced?.trim()];
  const first = raw.indexOf("{");
  const last = raw.lastIndexOf("}");
  if (first !== -1 && last > first) candidates.push(raw.slice(first, last + 1));
  for (const candidate of candidates) {
    if (candidate === undefined || !candidate.startsWith("{")) continue;
    let json: unknown;
    try {
      json = JSON.parse(candidate);
    } catch {
      continue;
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) continue;
    const record = json as Record<string, unknown>;
    const body = BODY_ALIASES.map((key) => record[key]).find((value) => typeof value === "string");
    const parsed = answerSchema.safeParse({ ...record, body });
    if (parsed.success) return parsed.data;
    const lenient = answerSchema.omit({ facts_used: true }).safeParse({ ...record, body });
    if (lenient.success) return lenient.data;
  }
  return null;
}

const SUBJECT_LINE = /^\W{0,4}(?:subject|objet)\W{0,4}\s*:\s*(.+)$/im;

/** "Subject: ...", then the body after it; null without a subject line. */
function parsePlainAnswer(raw: string): StructuredAnswer | null {
  // JSON that did not parse into a subject and body is not plain text either.
  if (raw.trim().startsWith("{")) return null;
  const text = stripInlineMarkdown(raw.replace(/```[a-zA-Z]*\n?|```/g, ""));
  const match = SUBJECT_LINE.exec(text);
  if (match?.[1] === undefined) return null;
  const after = text.slice(match.index + match[0].length);
  const body = after.replace(/^\s*(?:\W{0,4}(?:body|corps|message)\W{0,4}\s*:)?/i, "");
  return { subject: match[1], body, plain: true };
}

function normaliseSubject(subject: string): string {
  let line = singleLine(stripInlineMarkdown(subject)) ?? "";
  line = line
    .replace(/^[*_#\s]+|[*_\s]+$/g, "")
    .replace(/^(?:subject|objet)\s*:\s*/i, "")
    .replace(/^["'«“]\s*|\s*["'»”]$/g, "");
  if (line.length <= MAX_SUBJECT_LENGTH) return line;
  const cut = line.slice(0, MAX_SUBJECT_LENGTH + 1);
  const atWord = cut.slice(0, Math.max(cut.lastIndexOf(" "), 1));
  return atWord.replace(/[\s,;:.–—-]+$/, "");
}

function stripInlineMarkdown(text: string): string {
  return text
    .replace(/\*\*(.+?)\*\*|__(.+?)__/g, (_all, a?: string, b?: string) => a ?? b ?? "")
    .replace(/(^|[\s(])[*_]([^*_\n]+?)[*_](?=[\s).,;:!?]|$)/g, "$1$2")
    .replace(/`([^`]*)`/g, "$1");
}

/** A greeting line a model adds at the top of its part: short, opening with a salutation. */
const GREETING_LINE =
  /^(?:hello|hi|hey|dear|greetings|good (?:morning|afternoon|evening)|bonjour|bonsoir|salut|cher|chère|madame|monsieur)\b[^.!?]{0,60}[,!:.]?$/i;

/**
 * A sign-off line: a closing phrase alone, or followed by a name after a comma or a dash ("Best
 * regards, Claire"). Everything from it down is the model's signature, which the service writes
 * itself. A sentence that merely starts with such a word ("Best of all, ...") is not one.
 */
const SIGN_OFF_LINE =
  /^(?:best regards|best wishes|best|kind regards|warm regards|warmest regards|regards|sincerely|yours sincerely|yours truly|yours|cheers|thanks|thank you|many thanks|all the best|talk soon|bien cordialement|très cordialement|cordialement|salutations distinguées|salutations|bien à vous|merci beaucoup|merci|au plaisir|à bientôt)\s*[,.!]?(?:\s*[-–—,]?\s*[\p{L}][\p{L} .'-]{0,40})?$/iu;

function normaliseMiddle(body: string): string {
  const lines = stripInlineMarkdown(body.replace(/\r\n?/g, "\n"))
    .split("\n")
    // A heading is layout, not a sentence of an email.
    .filter((line) => !/^\s*#{1,6}\s/.test(line))
    .map((line) =>
      line
        .replace(/^\s*>\s?/, "")
        .replace(/^\s*(?:[-*•+]|\d{1,2}[.)])\s+/, "")
        .trim(),
    )
    .filter((line) => !/^(?:-{3,}|\*{3,}|_{3,})$/.test(line));

  while (lines.length > 0 && (lines[0] === "" || GREETING_LINE.test(lines[0] ?? ""))) lines.shift();
  const signOff = lines.findIndex((line) => SIGN_OFF_LINE.test(line));
  if (signOff !== -1) lines.length = signOff;
  // Left-over placeholders or a bare name under a dropped sign-off are not the model's to write.
  while (lines.length > 0 && (lines.at(-1) === "" || /^\[[^\]]*\]$/.test(lines.at(-1) ?? ""))) lines.pop();

  return lines
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
