import { z } from "zod";

/**
 * Text PostgreSQL cannot store: NUL (refused in text and JSONB) and lone UTF-16 surrogates (not
 * encodable as UTF-8; JSONB refuses their `\u` escapes). Found once, at the edge, with the field's name.
 */
export function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && text.isWellFormed();
}

const MAX_DEPTH = 64;

/**
 * The path (`body.queries[0].location`) of the first string or key in `value` that cannot be
 * stored, or null. No schema nests deeper than MAX_DEPTH, so deeper parts are left to validation.
 */
export function findUnstorableText(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === "string") return isStorableText(value) ? null : path;
  if (value === null || typeof value !== "object") return null;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnstorableText(item, `${path}[${index}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyPath = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
      ? `${path}.${key}`
      : `${path}[${JSON.stringify(key)}]`;
    if (!isStorableText(key)) return `${path} (a field name)`;
    const found = findUnstorableText(item, keyPath, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Decimal digits only: what a person or a client writes as a whole number in a query or a form. */
const DECIMAL_DIGITS = /^[0-9]{1,15}$/;

/**
 * A whole number read from a query string or a form: decimal digits only. `z.coerce.number()`
 * takes every JavaScript number syntax (`1e1`, `0x10`, `0b11`, `+3`, ` 3`, `3.0`); those stay
 * strings here, so the number schema refuses them as any other invalid value. Numbers (a JSON
 * body) pass through unchanged.
 */
export const decimalInteger = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (value) => (typeof value === "string" && DECIMAL_DIGITS.test(value) ? Number(value) : value),
    schema,
  );
