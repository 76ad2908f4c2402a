import ts from "typescript";
import { lineOf, type SourceFile } from "./source-files.ts";

/** A function of the source (declaration, expression, arrow, method, accessor, constructor). */
export interface FunctionSpan {
  file: string;
  /** What a reader would call it: `oauthRoutes`, `Class.method`, `createMetrics`, `<anonymous>`. */
  name: string;
  /** First line (1-based, from its first token, leading comments excluded) and how many lines. */
  line: number;
  lines: number;
}

/** The name a function goes by: its own, else the variable, property or call argument it sits in. */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  const own = node.name && !ts.isComputedPropertyName(node.name) ? node.name.getText(source) : undefined;
  const owner = ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.` : "";
  if (ts.isConstructorDeclaration(node)) return `${owner}constructor`;
  if (own) return `${owner}${own}`;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  if (ts.isExportAssignment(parent)) return "default export";
  if (ts.isCallExpression(parent))
    return `${parent.expression.getText(source).replace(/\s+/g, "")}(callback)`;
  return "<anonymous>";
}

/** Every function of a file with its length in lines, nested functions included. */
export function functionsOf({ file, source }: SourceFile): FunctionSpan[] {
  const found: FunctionSpan[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const line = lineOf(source, node);
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      found.push({ file, name: nameOf(node, source), line, lines: end - line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
