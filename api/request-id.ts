import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** A client's X-Request-Id is kept when it is a sane token; anything else gets a fresh UUID. */
export const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Fastify's genReqId: the id in every log line of the request and in its X-Request-Id header. */
export function requestIdFor(request: IncomingMessage): string {
  const header = request.headers["x-request-id"];
  return typeof header === "string" && CLIENT_REQUEST_ID.test(header) ? header : randomUUID();
}
