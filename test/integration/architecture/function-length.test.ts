// A measure kept honest (issue 27): functions over 120 lines in api/, shared/ and workers/, read
// with the TypeScript parser (declarations, expressions, arrows, methods; nested ones too).
import { expect, it } from "vitest";
import { type FunctionSpan, functionsOf } from "../../support/architecture/functions.ts";
import { readSourceFiles } from "../../support/architecture/source-files.ts";

const LIMIT = 120;

/**
 * The functions over the limit when this test landed (677c1cc), as `file: name` with their length
 * then. The list can only shrink: a function over the limit not on it fails, and so does a line
 * naming a function no longer over it (or gone, or moved). Delete the line in the commit that
 * splits the function.
 */
const ALLOWED_LONG_FUNCTIONS: readonly string[] = [];

const keyOf = (span: FunctionSpan) => `${span.file}: ${span.name}`;
const long = readSourceFiles(["api", "shared", "workers"])
  .flatMap(functionsOf)
  .filter((span) => span.lines > LIMIT)
  .sort((a, b) => b.lines - a.lines);

it(`lists no function over ${LIMIT} lines in api/, shared/ and workers/ but the allowlisted ones`, () => {
  console.info(
    `functions over ${LIMIT} lines: ${long.length}\n${long.map((span) => `  ${span.lines} ${span.file}:${span.line} ${span.name}`).join("\n")}`,
  );
  const unexpected = long.filter((span) => !ALLOWED_LONG_FUNCTIONS.includes(keyOf(span)));
  expect(
    unexpected.map((span) => `${span.file}:${span.line} ${span.name} (${span.lines} lines)`),
    `Functions over ${LIMIT} lines: split them into named steps`,
  ).toEqual([]);
});

it("allowlists only functions still over the limit (the allowlist only shrinks)", () => {
  const longKeys = long.map(keyOf);
  expect(
    ALLOWED_LONG_FUNCTIONS.filter((key) => !longKeys.includes(key)),
    `No longer over ${LIMIT} lines (or renamed, or moved): delete or update their lines in ALLOWED_LONG_FUNCTIONS in ${import.meta.filename}`,
  ).toEqual([]);
});
