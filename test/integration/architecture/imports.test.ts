// The fence of the layout (issue 27, item 8): reads every import of the application's folders with
// the TypeScript parser (type-only imports, re-exports and `import()` included) and fails on a
// cycle between folders or an import the wrong way down the layout. See
// test/support/architecture/folder-rules.ts for what a folder is and what the rules say.
import { describe, expect, it } from "vitest";
import {
  describeImport,
  findFolderCycles,
  findWrongWayImports,
  folderGraph,
  mutualFolderPairs,
  shortestLoop,
  withoutPairs,
} from "../../support/architecture/folder-rules.ts";
import { importsOf } from "../../support/architecture/imports.ts";
import { readSourceFiles } from "../../support/architecture/source-files.ts";

const FOLDERS = ["api", "workers", "shared", "migrations", "bench"];

/**
 * The folder pairs that imported each other when this test landed (677c1cc). The list can only
 * shrink: a pair not on it fails, and so does a line whose pair no longer imports both ways. Delete
 * the line in the commit whose move removes the pair; at the end of issue 27 the list is empty.
 */
const ALLOWED_MUTUAL_PAIRS: readonly string[] = [];

const sourceFiles = readSourceFiles(FOLDERS);
const imports = sourceFiles.flatMap(importsOf);
const graph = folderGraph(imports);

/** Passes on an empty list; otherwise fails with the heading and every problem, in full. */
function expectNone(problems: string[], heading: string) {
  expect(problems, `${heading}\n\n${problems.join("\n\n")}\n`).toEqual([]);
}

const linesBetween = (from: string, to: string) =>
  (graph.get(from)?.get(to) ?? []).map((line) => `    ${describeImport(line)}`);

describe("the imports of api/, workers/, shared/, migrations/ and bench/", () => {
  it("are read from every folder, type-only imports and re-exports included", () => {
    for (const folder of FOLDERS) {
      expect(
        sourceFiles.some(({ file }) => file.startsWith(`${folder}/`)),
        `${folder}/ has files`,
      ).toBe(true);
    }
    expect(imports.some((line) => /^import type /.test(line.text))).toBe(true);
    expect(imports.some((line) => /^export .* from /.test(line.text))).toBe(true);
    expect(imports.some((line) => line.text.startsWith("import("))).toBe(true);
    console.info(
      `folder pairs importing each other: ${mutualFolderPairs(graph).length}; ` +
        `folder cycles: ${findFolderCycles(graph).length}; files read: ${sourceFiles.length}; imports: ${imports.length}`,
    );
  });

  it("make no pair of folders import each other, but the allowlisted ones", () => {
    const unexpected = mutualFolderPairs(graph).filter((pair) => !ALLOWED_MUTUAL_PAIRS.includes(pair));
    expectNone(
      unexpected.map((pair) => {
        const [a, b] = pair.split(" <-> ") as [string, string];
        return [`${pair}:`, ...linesBetween(a, b), ...linesBetween(b, a)].join("\n");
      }),
      "Folders that import each other (move what both need below both, or turn one import around):",
    );
  });

  it("still make every allowlisted pair import each other (the allowlist only shrinks)", () => {
    const pairs = mutualFolderPairs(graph);
    expectNone(
      ALLOWED_MUTUAL_PAIRS.filter((pair) => !pairs.includes(pair)),
      `These pairs no longer import each other: delete their lines from ALLOWED_MUTUAL_PAIRS in ${import.meta.filename}`,
    );
  });

  it("make no loop of folders, but through an allowlisted pair", () => {
    const reduced = withoutPairs(graph, ALLOWED_MUTUAL_PAIRS);
    expectNone(
      findFolderCycles(reduced).map((cycle) =>
        [
          `${cycle.key}, one loop:`,
          ...shortestLoop(reduced, cycle).flatMap((step) => [
            `  ${step.from} -> ${step.to}`,
            ...step.imports.map((line) => `    ${describeImport(line)}`),
          ]),
        ].join("\n"),
      ),
      "Folders that import each other round a loop:",
    );
  });

  it("point down the layout: shared/ imports neither api/, workers/ nor Fastify; api/ and workers/ not each other; migrations no application code", () => {
    expectNone(
      findWrongWayImports(imports).map(({ rule, import: line }) => `${rule}:\n    ${describeImport(line)}`),
      "Imports the wrong way down the layout:",
    );
  });
});
