import { z } from "zod";
import { type ErrorCode, errorStatus } from "../shared/errors.ts";

export const errorObjectSchema = z
  .object({
    error: z.object({
      code: z.string().describe("Machine-readable error code"),
      message: z.string().describe("Human-readable explanation"),
    }),
  })
  .meta({ id: "Error" });

/**
 * Response schemas for the listed error codes, grouped by status, for a route's `schema.response`:
 * what is documented is exactly what the error handler can send.
 */
export function errorResponses(codes: readonly ErrorCode[]): Record<number, z.ZodType> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, z.ZodType> = {};
  for (const [status, statusCodes] of byStatus) {
    responses[status] = errorObjectSchema.describe(`Error: ${statusCodes.join(" or ")}`);
  }
  return responses;
}

/** Every authenticated /v1 route can answer these. */
export const commonV1Errors = [
  "invalid_api_key",
  "cross_origin_forbidden",
  "rate_limited",
  "rate_limit_unavailable",
  "internal_error",
] as const satisfies readonly ErrorCode[];

export const v1Security: { [scheme: string]: string[] }[] = [
  { bearerAuth: [] },
  { oauth2: ["email", "profile"] },
];
