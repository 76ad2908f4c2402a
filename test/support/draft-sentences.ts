/** The sentences of a draft that must differ between neighbours (issue 30's variety rule). */
import { closingLines, frameFor } from "../../shared/drafting/email-frame.ts";
import type { Draft, DraftRequest } from "../../shared/drafting/generator.ts";

/** The sentences of a body beyond the fixed lines: greeting, signature block and compliance notice. */
export function sentencesBeyondFixedLines(draft: Pick<Draft, "body">, request: DraftRequest): string[] {
  const [signature, notice] = closingLines(request);
  const greeting = frameFor(request.locale).greeting;
  return splitSentences(draft.body.replace(signature, "").replace(notice, "").replace(greeting, ""));
}

/** Sentences: lines, and within a line, text ending with . ? or ! before a capital. */
function splitSentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.?!])\s+(?=[A-ZÀ-Ý«"])/u)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== "");
}
