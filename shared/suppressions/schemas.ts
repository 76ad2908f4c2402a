import { domainToASCII } from "node:url";
import { parse as parseCsv } from "csv-parse/sync";
import { getDomain } from "tldts";
import { z } from "zod";

/**
 * The wire shapes of the suppression list: the admin routes' validation and answers, and the
 * console's add form and CSV import (the same rules for an entry, whichever door adds it).
 */

/**
 * The domain an entry stands for: the registrable domain of what was typed (the public suffix
 * list's, its private part included, so `acme.wixsite.com` stays itself), so that
 * `https://www.acme.ca/contact` or `mail.acme.ca` covers the whole business, acme.ca, its website
 * and its addresses alike. A name outside the list (`intranet.test`) keeps its own name, without
 * a leading `www.`.
 */
function registrableDomainOf(host: string): string {
  return getDomain(host, { allowPrivateDomains: true }) ?? host.replace(/^(?:www\.)+/, "");
}

/**
 * A host in the one form entries are stored and matched in: lower-cased, without trailing dots,
 * a non-ASCII (IDN) name in its ASCII form (`café.ca` -> `xn--caf-dma.ca`, as a URL's hostname
 * reads it). A host that has no ASCII form keeps its own (nothing stored can then equal it).
 */
export function asciiHostOf(host: string): string {
  const lowered = host.toLowerCase().replace(/\.+$/, "");
  return domainToASCII(lowered) || lowered;
}

/** An address in the one form entries are stored and matched in: lower-cased, its domain by asciiHostOf. */
export function asciiEmailOf(email: string): string {
  const at = email.lastIndexOf("@");
  return at < 0
    ? email.toLowerCase()
    : `${email.slice(0, at).toLowerCase()}@${asciiHostOf(email.slice(at + 1))}`;
}

/**
 * A domain as typed: `acme.ca`, `@acme.ca`, `*.acme.ca`, `www.acme.ca`,
 * `https://www.acme.ca/contact` all mean acme.ca (see registrableDomainOf); `café.ca` typed in
 * Unicode is stored as its ASCII form, `xn--caf-dma.ca`, the form a website's host is matched in.
 */
export const suppressionDomainSchema = z
  .string()
  .trim()
  .max(300)
  .transform((text) =>
    text
      .toLowerCase()
      .replace(/^[a-z][a-z0-9+.-]*:\/\//, "")
      .replace(/^[@*.]+/, "")
      .replace(/[/?#:].*$/, "")
      .replace(/\.+$/, ""),
  )
  .transform(asciiHostOf)
  .pipe(
    z
      .string()
      .max(253)
      .regex(
        /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/,
        "must be a domain name such as acme.ca",
      )
      .transform(registrableDomainOf),
  );

/** An address on an IDN domain (`info@café.ca`) is stored with the domain's ASCII form. */
const suppressionEmailSchema = z.preprocess(
  (email) => (typeof email === "string" && email.includes("@") ? asciiEmailOf(email) : email),
  z
    .email("must be an email address")
    .max(254)
    .transform((email) => email.toLowerCase()),
);

const suppressionPlaceIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(/^[\w.:-]+$/, "must be a place id (letters, digits, _ - . :)");

const reasonSchema = z.string().trim().max(500).optional();

/**
 * One of email, domain or place_id, with an optional reason. An `email` with no local part
 * (`@acme.ca`) is the domain it names, as everywhere else.
 */
export const suppressionRequestSchema = z.preprocess(
  (body) => {
    if (typeof body !== "object" || body === null || !("email" in body)) return body;
    const { email, ...rest } = body as Record<string, unknown>;
    return typeof email === "string" && email.trim().startsWith("@") && !("domain" in rest)
      ? { ...rest, domain: email }
      : body;
  },
  z
    .strictObject({
      email: suppressionEmailSchema.optional(),
      domain: suppressionDomainSchema.optional(),
      place_id: suppressionPlaceIdSchema.optional(),
      reason: reasonSchema,
    })
    .refine(
      (body) => [body.email, body.domain, body.place_id].filter((value) => value !== undefined).length === 1,
      "give exactly one of email, domain or place_id",
    ),
);

export type SuppressionRequest = z.infer<typeof suppressionRequestSchema>;

export const suppressionSchema = z.object({
  id: z.uuid(),
  kind: z.enum(["email", "domain", "place"]),
  value: z.string().describe("The lower-cased email address or domain, or the place id"),
  reason: z.string().nullable(),
  added_by: z
    .string()
    .describe("The email of the member who added it, or `operator` for an entry added through /admin"),
  created_at: z.iso.datetime(),
});

/**
 * A typed entry's kind from its shape: `@acme.ca` is a domain, any other text with an @ an
 * address, a domain has a dot; anything else is a place id.
 */
export function suppressionRequestOf(value: string, reason?: string): SuppressionRequest | null {
  const text = value.trim().replace(/^"|"$/g, "");
  const kind = text.startsWith("@")
    ? "domain"
    : text.includes("@")
      ? "email"
      : /^[^\s/]+\.[^\s/.]+/.test(text) || /:\/\//.test(text)
        ? "domain"
        : "place_id";
  const parsed = suppressionRequestSchema.safeParse({
    [kind]: text,
    ...(reason === undefined || reason.trim() === "" ? {} : { reason: reason.trim().slice(0, 500) }),
  });
  return parsed.success ? parsed.data : null;
}

/** The header cells a spreadsheet export may start with. */
const CSV_HEADERS = new Set(["email", "domain", "place_id", "place", "value", "entry", "address"]);
const MAX_IMPORT_LINES = 5_000;

/**
 * A pasted CSV of entries (RFC 4180, so a quoted cell keeps its commas): one a line, the entry
 * (address, domain or place id) in the first cell and an optional reason in the others (its
 * non-empty cells, joined by ", ": a spreadsheet's empty trailing columns add nothing); a header
 * line is skipped. Spreadsheets of other locales separate cells with ";" and some exports with a
 * tab: all three are read. Lines that are no entry (or no CSV) are counted.
 */
export function parseSuppressionCsv(text: string): { requests: SuppressionRequest[]; refused: number } {
  const requests: SuppressionRequest[] = [];
  let refused = 0;
  const records = (
    parseCsv(text, {
      delimiter: [",", ";", "\t"],
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: () => {
        refused += 1;
      },
    }) as string[][]
  ).filter((cells) => cells.some((cell) => cell.trim() !== ""));
  for (const [index, [first = "", ...rest]] of records.slice(0, MAX_IMPORT_LINES).entries()) {
    if (index === 0 && CSV_HEADERS.has(first.trim().toLowerCase())) continue;
    const reason = rest
      .map((cell) => cell.trim())
      .filter((cell) => cell !== "")
      .join(", ");
    const request = suppressionRequestOf(first, reason);
    if (request === null) refused += 1;
    else requests.push(request);
  }
  refused += Math.max(0, records.length - MAX_IMPORT_LINES);
  return { requests, refused };
}
