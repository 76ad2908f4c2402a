import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const CLIENT_REQUEST_ID_MAX_LENGTH = 128;
/** The same rule as text, for the OpenAPI document. */
export const CLIENT_REQUEST_ID_PATTERN = `^[A-Za-z0-9._-]{1,${CLIENT_REQUEST_ID_MAX_LENGTH}}$`;
/** A client's X-Request-Id is kept when it is a sane token; anything else gets a fresh UUID. */
const CLIENT_REQUEST_ID = new RegExp(CLIENT_REQUEST_ID_PATTERN);

/** Fastify's genReqId: the id in every log line of the request and in its X-Request-Id header. */
export function requestIdFor(request: IncomingMessage): string {
  const header = request.headers["x-request-id"];
  return typeof header === "string" && CLIENT_REQUEST_ID.test(header) ? header : randomUUID();
}
