import path from "node:path";
import ts from "typescript";
import { lineOf, type SourceFile } from "./source-files.ts";

/** One import, re-export or dynamic `import()` of a source file, as written. */
export interface ImportLine {
  /** The importing file, from the repository's root. */
  file: string;
  line: number;
  /** The statement as written, on one line. */
  text: string;
  /** What it names: a repository file (`shared/config.ts`) or a package (`fastify`, `node:fs`). */
  target: string;
  /** True for a relative specifier (a file of the repository), false for a package. */
  local: boolean;
  /**
   * Set when the specifier is not a string literal (`import(name)`): the test cannot tell where it
   * leads, so it cannot fence it.
   */
  computed?: true;
}

/**
 * Every module reference of a file: `import` (type-only too), `export ... from`, `import x =
 * require()`, `import()` calls and `import("...")` types.
 */
export function importsOf({ file, source }: SourceFile): ImportLine[] {
  const found: ImportLine[] = [];
  const add = (node: ts.Node, specifier: ts.Expression | undefined) => {
    const text = node.getText(source).replace(/\s+/g, " ");
    const line = lineOf(source, node);
    if (!specifier || !ts.isStringLiteralLike(specifier)) {
      found.push({ file, line, text, target: "", local: false, computed: true });
      return;
    }
    const name = specifier.text;
    const local = name.startsWith(".");
    const target = local ? path.posix.join(path.posix.dirname(file), name) : name;
    found.push({ file, line, text, target, local });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || (ts.isExportDeclaration(node) && node.moduleSpecifier)) {
      add(node, node.moduleSpecifier);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0]);
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      add(node, ts.isLiteralTypeNode(argument) ? argument.literal : undefined);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The package a bare specifier names: `@fastify/cookie` for `@fastify/cookie/plugin`, `fastify`. */
export function packageOf(target: string): string {
  const parts = target.split("/");
  return target.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}
