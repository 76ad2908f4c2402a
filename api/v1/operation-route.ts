import type { FastifyRequest } from "fastify";
import type { z } from "zod";
import { type Caller, type Operation, perform } from "../../shared/operations/operation.ts";
import { principalOf } from "../plugins/authentication.ts";
import { commonV1Errors, errorResponses, v1Security } from "../schemas.ts";
import type { Services } from "../services.ts";

/** What a /v1 route adds to its operation: where its input sits in the HTTP request, and its docs. */
interface RouteDocs {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
}

/**
 * A /v1 route's options from its operation's declaration: the bucket its `onRequest` spends, the
 * answer and the error codes it documents (the declaration's, then those of every /v1 route).
 */
export function operationRoute<Op extends Operation, Request extends object>(
  operation: Op,
  docs: RouteDocs & Request,
) {
  return {
    config: { operation, rateLimitBucket: operation.bucket },
    schema: {
      ...docs,
      security: v1Security,
      response: {
        200: operation.output as Op["output"],
        ...errorResponses(docs.operationId, [...operation.errors, ...commonV1Errors]),
      },
    },
  };
}

/** The operation for the request's principal, with the request's logger (already admitted in onRequest). */
export function performFor<Input extends z.ZodObject, Output extends z.ZodType>(
  services: Services,
  operation: Operation<Input, Output>,
  request: FastifyRequest,
  input: z.input<Input>,
): Promise<z.output<Output>> {
  const admission = request.admission;
  if (!admission)
    throw new Error(`${request.routeOptions.url} reached its handler without a rate-limit admission`);
  // No abort signal: a search whose client went away still finishes and fills the audit cache,
  // and its charge stands (a retry is free for the places it saved).
  const caller: Caller = { principal: principalOf(request), logger: request.log, services };
  return perform(operation, caller, admission, input);
}
