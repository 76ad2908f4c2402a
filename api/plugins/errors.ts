import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from "fastify-type-provider-zod";
import { ApiError, type ErrorCode } from "../../shared/errors.ts";
import { findUnstorableText } from "../../shared/text-input.ts";
import { crossOriginRefusal, notFound } from "./cross-origin.ts";

interface ErrorBody {
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
          .map(
            (key) =>
              `${formatPath(context, [...segments, key])}: unknown ${context === "querystring" ? "parameter" : "field"}`,
          )
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

/** The one input normalisation at the edge: text PostgreSQL cannot store is a 400 naming the field. */
function refuseUnstorableInput(request: FastifyRequest): void {
  const field =
    findUnstorableText(request.params, "path") ??
    findUnstorableText(request.query, "query") ??
    findUnstorableText(request.body, "body");
  if (field) {
    throw new ApiError(
      "invalid_request",
      `${field}: contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored.`,
    );
  }
}

async function errorsPlugin(app: FastifyInstance): Promise<void> {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError.status >= 500 && error instanceof ApiError) {
      request.log.error({ err: error.cause ?? error }, apiError.message);
    }
    return sendError(reply, apiError);
  });

  app.setNotFoundHandler((request, reply) => sendError(reply, notFound(request)));

  // After auth and rate limits (onRequest) and the body's size and syntax, before the schemas.
  app.addHook("preValidation", async (request) => refuseUnstorableInput(request));

  // Answers carry keys' data: never cached by a shared cache, never sniffed into another type.
  app.addHook("onSend", async (_request, reply) => {
    reply.header("x-content-type-options", "nosniff");
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
  });

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

/**
 * The HTTP parser's refusals (malformed request line or headers, headers over Node's limit, a
 * request too slow to arrive), in the error object instead of Fastify's own JSON. Nothing of the
 * request is echoed: it never reached the router.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, reason, code, message]: [number, string, ErrorCode, string] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [
          431,
          "Request Header Fields Too Large",
          "request_too_large",
          "The request's headers (URL included) are over 16 KB.",
        ]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout", "invalid_request", "The request did not arrive in time."]
        : [400, "Bad Request", "invalid_request", "The request is not valid HTTP/1.1."];
  const body = JSON.stringify({ error: { code, message } } satisfies ErrorBody);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Errors the router raises before any hook runs: an undecodable path, or a path parameter over
 * the router's length limit. Both are 400 in the error object (after the cross-origin refusal),
 * and neither echoes the path.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const refusal = crossOriginRefusal(request);
  if (refusal) {
    sendError(reply, refusal);
    return;
  }
  const message =
    error.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? `path: a path segment is over ${MAX_PARAM_LENGTH} characters.`
      : "path: not a valid URL path (bad percent-encoding).";
  sendError(reply, new ApiError("invalid_request", message));
}

/** The router's limit on one path parameter (a lead id is 36 characters). */
export const MAX_PARAM_LENGTH = 100;
