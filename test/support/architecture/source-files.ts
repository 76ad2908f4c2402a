import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The repository's root: the architecture tests read its source as it stands on disk. */
const REPOSITORY_ROOT = path.resolve(import.meta.dirname, "../../..");

/** A TypeScript file of the repository, parsed (no type checking: syntax is all these tests read). */
export interface SourceFile {
  /** Relative to the repository's root, with `/` separators, e.g. `api/app.ts`. */
  file: string;
  source: ts.SourceFile;
}

/**
 * Every `.ts` file under the folders named, parsed. Read from disk rather than from git so that a
 * file not yet committed (a planted cycle, say) is fenced like any other.
 */
export function readSourceFiles(folders: readonly string[], root = REPOSITORY_ROOT): SourceFile[] {
  const files: SourceFile[] = [];
  for (const folder of folders) {
    const entries = readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const absolute = path.join(entry.parentPath, entry.name);
      const file = path.relative(root, absolute).split(path.sep).join("/");
      const text = readFileSync(absolute, "utf8");
      files.push({
        file,
        source: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS),
      });
    }
  }
  return files.sort((a, b) => a.file.localeCompare(b.file));
}

/** The 1-based line of a node's first token. */
export function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}
