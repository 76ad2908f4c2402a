import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from "fastify-type-provider-zod";
import { ApiError, type ErrorCode } from "../../shared/errors.ts";

export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  const body: ErrorBody = { error: { code: error.code, message: error.message } };
  return reply.code(error.status).type("application/json; charset=utf-8").send(body);
}

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: { keys?: string[] };
}

/** "body.queries[0].location: Too small" — names the field the client got wrong. */
function describeValidation(context: string | undefined, issues: ValidationIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const segments = (issue.instancePath ?? "").split("/").filter((segment) => segment !== "");
      if (issue.keyword === "unrecognized_keys" && issue.params?.keys?.length) {
        return issue.params.keys
          .map((key) => `${formatPath(context, [...segments, key])}: unknown field`)
          .join("; ");
      }
      return `${formatPath(context, segments)}: ${issue.message ?? "invalid"}`;
    })
    .join("; ");
}

function formatPath(context: string | undefined, segments: string[]): string {
  let out = context === "querystring" ? "query" : (context ?? "request");
  for (const segment of segments) out += /^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`;
  return out;
}

/** Maps every failure to the spec's error object, in one place. */
export function toApiError(error: unknown, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = (error as FastifyError & { validationContext?: string }).validationContext;
    return new ApiError(
      "invalid_request",
      describeValidation(context, error.validation as ValidationIssue[]),
    );
  }
  if (isResponseSerializationError(error)) {
    request.log.error({ err: error, issues: error.cause.issues }, "response did not match its schema");
    return new ApiError("internal_error", "Internal server error.");
  }
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ApiError("request_too_large", "The request body is over the 16 KB limit.");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ApiError("invalid_request", "body: the Content-Type must be application/json.");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new ApiError("invalid_request", "body: a JSON body is required.");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new ApiError("invalid_request", "The Content-Length header does not match the body.");
  }
  if (error instanceof SyntaxError || fastifyError.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
    return new ApiError("invalid_request", "body: not valid JSON.");
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError("invalid_request", fastifyError.message ?? "Invalid request.");
  }
  request.log.error({ err: error }, "internal error");
  return new ApiError("internal_error", "Internal server error. It is safe to retry.");
}

async function errorsPlugin(app: FastifyInstance): Promise<void> {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError.code === "internal_error" && error instanceof ApiError) {
      request.log.error({ err: error.cause ?? error }, "internal error");
    }
    return sendError(reply, apiError);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new ApiError("not_found", `No route matches ${request.method} ${request.url.split("?")[0]}.`),
    ),
  );

  // An empty body with a JSON content type is "no body", which routes with an optional body accept.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError("invalid_request", "body: not valid JSON."), undefined);
    }
  });
}

export default fp(errorsPlugin, { name: "errors" });
export { sendError };
