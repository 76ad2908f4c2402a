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
