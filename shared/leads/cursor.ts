/** A position in the newest-first lead list: `<added_at ISO>|<lead uuid>`. */
export interface LeadCursor {
  addedAt: Date;
  leadId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Exactly what Date#toISOString writes: UTC, millisecond precision.
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The shape of every cursor `encodeCursor` writes (the document's `pattern`; dates are checked on decoding). */
export const CURSOR_PATTERN =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const MIN_CURSOR_YEAR = 2020;
const MAX_CURSOR_YEAR = 2999;

export function encodeCursor(cursor: LeadCursor): string {
  return `${cursor.addedAt.toISOString()}|${cursor.leadId}`;
}

/** Returns null for anything that `encodeCursor` could not have written. */
export function decodeCursor(raw: string): LeadCursor | null {
  const separator = raw.indexOf("|");
  if (separator < 0) return null;
  const timestamp = raw.slice(0, separator);
  const leadId = raw.slice(separator + 1);
  if (!ISO_UTC_MS.test(timestamp) || !UUID.test(leadId)) return null;
  const addedAt = new Date(timestamp);
  if (Number.isNaN(addedAt.getTime()) || addedAt.toISOString() !== timestamp) return null;
  // No lead was added before the service existed or after 2999: such a date is not from a cursor
  // (and year 0 is refused by PostgreSQL's timestamptz in embedded mode).
  const year = addedAt.getUTCFullYear();
  if (year < MIN_CURSOR_YEAR || year > MAX_CURSOR_YEAR) return null;
  return { addedAt, leadId: leadId.toLowerCase() };
}
