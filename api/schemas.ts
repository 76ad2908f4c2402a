import { z } from "zod";
import { type ErrorCode, errorStatus } from "../shared/errors.ts";

/**
 * One error object schema per operation, named `<OperationId>ErrorResponse` in the document, its
 * `code` the enum of exactly the codes that operation can answer (generated clients get a closed
 * union per operation). Never named `Error`: that would shadow the language's own `Error` in
 * generated code. Kept per name so that every app built in one process shares one zod schema (a
 * registry id can be registered once).
 */
const errorSchemas = new Map<string, { codes: readonly ErrorCode[]; schema: z.ZodType }>();

/** The error codes an operation declared through `errorResponses`. */
export const declaredErrorCodes = (operationId: string): readonly ErrorCode[] =>
  errorSchemas.get(operationId)?.codes ?? [];

function errorSchemaOf(operationId: string, codes: readonly ErrorCode[]): z.ZodType {
  const name = `${operationId[0]!.toUpperCase()}${operationId.slice(1)}ErrorResponse`;
  const known = errorSchemas.get(operationId);
  if (known) {
    if (known.codes.join() !== codes.join())
      throw new Error(`${name} is declared twice with different codes`);
    return known.schema;
  }
  const schema = z
    .object({
      error: z.object({
        code: z
          .enum(codes as [ErrorCode, ...ErrorCode[]])
          .describe("Machine-readable error code: one of those this operation can answer"),
        message: z.string().describe("Human-readable explanation"),
      }),
    })
    .meta({ id: name, description: `The error object of ${operationId}` });
  errorSchemas.set(operationId, { codes, schema });
  return schema;
}

/**
 * Response entries for the listed error codes, grouped by status, for a route's
 * `schema.response`: what is documented is exactly what the error handler can send.
 */
export function errorResponses(operationId: string, codes: readonly ErrorCode[]): Record<number, unknown> {
  const unique = [...new Set(codes)];
  const schema = errorSchemaOf(operationId, unique);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of unique) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, unknown> = {};
  for (const [status, statusCodes] of byStatus) {
    responses[status] = {
      description: `Error: ${statusCodes.join(" or ")}`,
      content: { "application/json": { schema } },
    };
  }
  return responses;
}

/**
 * Every authenticated /v1 route can answer these. `invalid_request`: an unknown query parameter
 * (refused on every route). `service_unavailable`: what a node answers on every route while it
 * starts and waits for PostgreSQL or Redis (with Retry-After).
 */
export const commonV1Errors = [
  "invalid_request",
  "invalid_api_key",
  "cross_origin_forbidden",
  "rate_limited",
  "rate_limit_unavailable",
  "internal_error",
  "service_unavailable",
] as const satisfies readonly ErrorCode[];

/** What the public reference routes can answer: an unknown query parameter, a failure, start-up. */
export const publicRouteErrors = [
  "invalid_request",
  "internal_error",
  "service_unavailable",
] as const satisfies readonly ErrorCode[];

export const v1Security: { [scheme: string]: string[] }[] = [
  { bearerAuth: [] },
  { oauth2: ["email", "profile"] },
];
