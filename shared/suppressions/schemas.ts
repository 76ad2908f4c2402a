import { z } from "zod";

/**
 * The wire shapes of the suppression list: the admin routes' validation and answers, and the
 * console's add form and CSV import (the same rules for an entry, whichever door adds it).
 */

/** A domain as typed: `acme.ca`, `@acme.ca`, `*.acme.ca`, `https://www.acme.ca/contact` all mean acme.ca (or its www). */
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
  .pipe(
    z
      .string()
      .max(253)
      .regex(
        /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/,
        "must be a domain name such as acme.ca",
      ),
  );

export const suppressionEmailSchema = z
  .email("must be an email address")
  .max(254)
  .transform((email) => email.toLowerCase());

export const suppressionPlaceIdSchema = z.string().trim().min(1).max(300);

const reasonSchema = z.string().trim().max(500).optional();

/** One of email, domain or place_id, with an optional reason. */
export const suppressionRequestSchema = z
  .strictObject({
    email: suppressionEmailSchema.optional(),
    domain: suppressionDomainSchema.optional(),
    place_id: suppressionPlaceIdSchema.optional(),
    reason: reasonSchema,
  })
  .refine(
    (body) => [body.email, body.domain, body.place_id].filter((value) => value !== undefined).length === 1,
    "give exactly one of email, domain or place_id",
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
