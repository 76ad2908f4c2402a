import type { FastifyRequest } from "fastify";
import { OAuthError } from "../../shared/oauth/errors.ts";
import { isStorableText } from "../../shared/text-input.ts";

/** The parameters of an OAuth request, each sent once. */
export type Params = Record<string, string>;

export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

/** RFC 6749 3.1 / 3.2: a parameter sent more than once is an invalid request. */
export function singleValued(entries: Iterable<[string, unknown]>): Params {
  // No prototype: a parameter named __proto__ is just a parameter.
  const params: Params = Object.create(null);
  for (const [name, value] of entries) {
    if (Object.hasOwn(params, name) || Array.isArray(value)) {
      throw new OAuthError("invalid_request", `${name}: sent more than once.`);
    }
    if (typeof value === "string") params[name] = value;
  }
  return params;
}

export function formParams(request: FastifyRequest): Params {
  const contentType = request.headers["content-type"] ?? "";
  if (!contentType.toLowerCase().startsWith(FORM_CONTENT_TYPE)) {
    throw new OAuthError("invalid_request", `The body must be ${FORM_CONTENT_TYPE}.`);
  }
  return (request.body as Params | undefined) ?? {};
}

/**
 * The client_id of a token or revocation request: in the body (public clients), or as the user
 * of an HTTP Basic header (RFC 6749 2.3.1) from clients that send it that way. Nothing here has a
 * secret, so a password in that header is ignored.
 */
export function clientIdOf(request: FastifyRequest, form: Params): string | undefined {
  const basic = /^Basic +([A-Za-z0-9+/]+=*)$/i.exec(request.headers.authorization ?? "")?.[1];
  if (basic === undefined) return form.client_id;
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  const separator = decoded.indexOf(":");
  let fromHeader: string;
  try {
    fromHeader = decodeURIComponent(
      (separator === -1 ? decoded : decoded.slice(0, separator)).replaceAll("+", " "),
    );
  } catch {
    throw new OAuthError("invalid_client", "The Basic authorization header is malformed.");
  }
  if (!isStorableText(fromHeader)) {
    throw new OAuthError(
      "invalid_client",
      "The Basic authorization header's client_id contains a NUL or an unpaired surrogate.",
    );
  }
  if (form.client_id !== undefined && form.client_id !== fromHeader) {
    throw new OAuthError(
      "invalid_request",
      "client_id differs between the body and the Authorization header.",
    );
  }
  return fromHeader;
}
