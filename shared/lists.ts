/**
 * A record with one entry per key of a list, in the list's order: how a form, a request or a
 * schema is built from one list of names (the live filters, the workspace settings) with its keys
 * typed, so the compiler still checks every use.
 */
export function recordOf<const Key extends string, Value>(
  keys: readonly Key[],
  entryOf: (key: Key) => Value,
): Record<Key, Value> {
  // Object.fromEntries types its keys as string; the entries are exactly one per key of `keys`.
  return Object.fromEntries(keys.map((key) => [key, entryOf(key)])) as Record<Key, Value>;
}

/** "a, b or c": a list named in an English sentence. */
export function namedInSentence(names: readonly string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}
