import { describe, expect, it } from "vitest";
import type { FactKey } from "../../../shared/drafting/facts.ts";
import {
  MAX_SUBJECT_LENGTH,
  readModelAnswer,
  UnusableAnswerError,
} from "../../../shared/drafting/model-answer.ts";

const GIVEN: FactKey[] = ["no_mobile_viewport", "stale_copyright"];
const MIDDLE = "Your homepage has no viewport tag. Its copyright notice still says 2016.";
const answer = { subject: "Maple Leaf Plumbing on phones", body: MIDDLE, facts_used: ["stale_copyright"] };
const expected = { subject: answer.subject, middle: MIDDLE, factsUsed: ["stale_copyright"] };

function refusal(raw: string | null): string {
  try {
    readModelAnswer(raw, GIVEN);
  } catch (error) {
    if (error instanceof UnusableAnswerError) return error.message;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("readModelAnswer: repaired", () => {
  it.each([
    ["bare JSON", JSON.stringify(answer)],
    ["JSON in a code fence", `\`\`\`json\n${JSON.stringify(answer, null, 2)}\n\`\`\``],
    ["JSON after a sentence", `Sure! Here it is: ${JSON.stringify(answer)} Let me know.`],
    [
      "a sign-off with a name on its line",
      JSON.stringify({ ...answer, body: `${MIDDLE}\n\nBest regards, Claire Dubois` }),
    ],
    ["surrounding whitespace", `\n\n  ${JSON.stringify({ ...answer, body: `\n  ${MIDDLE}  \n` })}  \n`],
    [
      "its own greeting and signature",
      JSON.stringify({
        ...answer,
        body: `Hi there,\n\n${MIDDLE}\n\nBest regards,\n[Your name]\n[Your company]`,
      }),
    ],
    [
      "a French sign-off",
      JSON.stringify({ ...answer, body: `Bonjour,\n\n${MIDDLE}\n\nCordialement,\nClaire` }),
    ],
    [
      "markdown emphasis",
      JSON.stringify({ ...answer, body: MIDDLE.replace("viewport tag", "**viewport tag**") }),
    ],
    [
      "another name for the body field",
      JSON.stringify({ subject: answer.subject, message: MIDDLE, facts_used: ["stale_copyright"] }),
    ],
  ])("%s", (_label, raw) => {
    expect(readModelAnswer(raw, GIVEN)).toEqual(expected);
  });

  it("reads plain 'Subject:' text with markdown, bullets and a heading; its facts are then read from its text (null)", () => {
    const raw = `**Subject:** ${answer.subject}\n\nHello,\n\n## What I noticed\n\n- Your homepage has no viewport tag.\n- Its copyright notice still says 2016.\n\nBest regards,\nClaire`;
    expect(readModelAnswer(raw, GIVEN)).toEqual({
      subject: answer.subject,
      middle: "Your homepage has no viewport tag.\nIts copyright notice still says 2016.",
      factsUsed: null,
    });
  });

  it("keeps a sentence that merely starts like a sign-off", () => {
    const body = `${MIDDLE}\nBest of all, both are quick to fix.\nThanks to a few changes, phones would show it properly.`;
    expect(readModelAnswer(JSON.stringify({ ...answer, body }), GIVEN).middle).toBe(body);
  });

  it("cuts a subject over length at a word", () => {
    const subject = `Maple Leaf Plumbing ${"and a very long subject line ".repeat(5)}`;
    const read = readModelAnswer(JSON.stringify({ ...answer, subject }), GIVEN);
    expect(read.subject.length).toBeLessThanOrEqual(MAX_SUBJECT_LENGTH);
    expect(subject.startsWith(read.subject)).toBe(true);
    expect(read.subject.endsWith(" ")).toBe(false);
  });

  it("reports facts in the given order and drops repeats", () => {
    const raw = JSON.stringify({
      ...answer,
      facts_used: ["stale_copyright", "no_mobile_viewport", "stale_copyright"],
    });
    expect(readModelAnswer(raw, GIVEN).factsUsed).toEqual(GIVEN);
  });

  it("reads a JSON answer that claims no fact as claiming none (never as every fact given)", () => {
    expect(readModelAnswer(JSON.stringify({ ...answer, facts_used: [] }), GIVEN).factsUsed).toEqual([]);
    const { facts_used: _left, ...withoutFacts } = answer;
    expect(readModelAnswer(JSON.stringify(withoutFacts), GIVEN).factsUsed).toEqual([]);
  });
});

describe("readModelAnswer: refused", () => {
  it.each([
    ["an empty answer", "  ", "empty answer"],
    ["prose without a subject", "Dear owner, your site is old.", "no subject and body in the answer"],
    ["JSON without a body", JSON.stringify({ subject: "Hi" }), "no subject and body in the answer"],
    ["a blank subject", JSON.stringify({ ...answer, subject: "**  **" }), "empty subject"],
    [
      "only a greeting and a signature",
      JSON.stringify({ ...answer, body: "Hello,\n\nBest regards,\nClaire" }),
      "empty body",
    ],
    [
      "a body cut mid-sentence",
      JSON.stringify({ ...answer, body: "Your homepage has no viewport tag and" }),
      "the body looks cut off",
    ],
    [
      "a fact not given",
      JSON.stringify({ ...answer, facts_used: ["no_website"] }),
      "facts_used names a fact that was not given",
    ],
    [
      "three facts",
      JSON.stringify({
        ...answer,
        facts_used: ["no_mobile_viewport", "stale_copyright", "low_review_count"],
      }),
      "facts_used lists more than two facts",
    ],
  ])("%s", (_label, raw, reason) => {
    expect(refusal(raw)).toBe(reason);
  });
});
