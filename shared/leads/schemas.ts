import { z } from "zod";
import { opportunitySchema } from "../scoring/schemas.ts";
import { decimalInteger } from "../text-input.ts";
import { CURSOR_PATTERN, decodeCursor } from "./cursor.ts";

/**
 * The wire shapes of leads: the one source of the /v1 validation, `/openapi.json`, the MCP tools
 * and the TypeScript types (`z.infer`).
 */
const isoTimestamp = z.iso.datetime().describe("ISO 8601, UTC, millisecond precision");

export const outreachStatusSchema = z
  .enum(["new", "drafted", "sent", "skipped"])
  .describe(
    "new when saved; drafted once a draft was produced; no v1 route sets sent or skipped; skipped also while the lead's place, email or domain is on the workspace's suppression list",
  );

export const leadIdSchema = z.guid("must be a uuid").max(36, "must be a uuid");

export const leadIdParams = z.strictObject({
  id: leadIdSchema.describe("Lead id (uuid)"),
});

export const leadSummarySchema = z
  .object({
    id: z.uuid(),
    place_id: z.string(),
    name: z.string(),
    category: z.string(),
    address: z.string().nullable(),
    website: z
      .string()
      .nullable()
      .describe("The business's website, an http(s) URL; null when it lists none"),
    phone: z
      .string()
      .nullable()
      .describe(
        "The business's phone number as the places provider writes it for its country; null when none",
      ),
    email: z
      .string()
      .nullable()
      .describe(
        "The business's contact address, read from the check of the homepage of the website it lists now; `null` until a search with a live filter has checked that website, and when the homepage shows no acceptable address",
      ),
    outreach_status: outreachStatusSchema,
    added_at: isoTimestamp,
  })
  .meta({ id: "LeadSummary" });

const LEAD_PAGE_MAX = 100;
const LEAD_PAGE_DEFAULT = 25;

export const listLeadsQuerySchema = z
  .strictObject({
    limit: decimalInteger(
      z
        .number("must be an integer from 1 to 100")
        .int("must be an integer from 1 to 100")
        .min(1, "must be an integer from 1 to 100")
        .max(LEAD_PAGE_MAX, "must be an integer from 1 to 100")
        .default(LEAD_PAGE_DEFAULT)
        .meta({ format: "int32" }),
    ).describe("Page size, 1 to 100 (default 25)"),
    cursor: z
      .string()
      .max(200)
      .optional()
      .describe(
        "The next_cursor of a previous response, passed back unchanged (form `<added_at>|<lead_id>`)",
      ),
  })
  .superRefine(({ cursor }, context) => {
    if (cursor !== undefined && !decodeCursor(cursor)) {
      context.addIssue({
        code: "custom",
        path: ["cursor"],
        message: "not a cursor issued by this API; pass next_cursor back unchanged.",
      });
    }
  });

export const leadPageSchema = z
  .object({
    leads: z.array(leadSummarySchema).max(LEAD_PAGE_MAX),
    next_cursor: z.string().regex(CURSOR_PATTERN).nullable().describe("null on the last page"),
  })
  .meta({ id: "LeadPage" });

const emailStatusSchema = z
  .enum(["deliverable", "risky", "undeliverable", "unknown"])
  .nullable()
  .describe(
    "Whether the address can receive mail, from DNS only (never an SMTP probe), as of the homepage check that found it: undeliverable (no such domain, a null MX, no mail records, or a disposable-mail domain), deliverable (MX or implicit MX on the website's own domain), risky (a free webmail or a domain not the website's), unknown (DNS failed or did not answer in time). Null with no email",
  );

const emailSourceSchema = z
  .object({
    url: z.string().describe("The page the address was read from (the homepage, after redirects)"),
    found_in: z
      .enum(["mailto", "json_ld", "microdata", "text", "cloudflare"])
      .describe(
        "The strongest place on that page it was shown: a mailto link, JSON-LD, microdata, the visible text, or Cloudflare-protected markup",
      ),
    first_seen_at: isoTimestamp.describe(
      "The first of the consecutive homepage checks that found this address",
    ),
    last_seen_at: isoTimestamp.describe("The latest homepage check, which found it"),
    solicitation_refused: z
      .boolean()
      .nullable()
      .describe(
        "The page says it does not want unsolicited email or marketing (English or French wording): Canada's anti-spam law then gives no implied consent to write. Null when that check predates the address",
      ),
  })
  .meta({ id: "EmailSource" });

export const leadDetailSchema = leadSummarySchema
  .extend({
    no_website_flag: z.boolean().nullable().describe("Null when that check never ran for the lead"),
    not_mobile_friendly_flag: z
      .boolean()
      .nullable()
      .describe("Null when never run; runs only when a search asked for it"),
    outdated_website_flag: z
      .boolean()
      .nullable()
      .describe("Null when never run; runs only when a search asked for it"),
    last_media_year: z
      .int32()
      .meta({ format: "int32" })
      .nullable()
      .describe(
        "Year the newest photo on the homepage was uploaded; null means no dated media path was readable",
      ),
    email_status: emailStatusSchema,
    email_source: emailSourceSchema
      .nullable()
      .describe("Where and when the address was found; null with no email"),
    opportunity: opportunitySchema,
  })
  .meta({ id: "LeadDetail" });

/** A lead as read from the database: the wire shape with `added_at` still a Date. */
type WithDate<T extends { added_at: string }> = Omit<T, "added_at"> & { added_at: Date };
type LeadSummaryJson = z.infer<typeof leadSummarySchema>;
export type LeadSummary = WithDate<LeadSummaryJson>;
export type LeadDetail = WithDate<z.infer<typeof leadDetailSchema>>;

/** The domain lead as it goes on the wire. */
export const leadSummaryJson = <T extends LeadSummary>(
  lead: T,
): Omit<T, "added_at"> & { added_at: string } => ({
  ...lead,
  added_at: lead.added_at.toISOString(),
});
