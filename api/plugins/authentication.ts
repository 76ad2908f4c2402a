import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { type BearerVerifier, bearerTokenOf, type Principal } from "../../shared/auth.ts";
import { ApiError } from "../../shared/errors.ts";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyInstance {
    authenticate: (request: FastifyRequest) => Promise<void>;
  }
}

const invalidKey = (message: string) => new ApiError("invalid_api_key", message);

interface AuthenticationOptions {
  verifiers: BearerVerifier[];
}

async function authenticationPlugin(app: FastifyInstance, options: AuthenticationOptions): Promise<void> {
  app.decorateRequest("principal", null);
  app.decorate("authenticate", async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    if (!header) throw invalidKey("Missing API key: send `Authorization: Bearer <API_KEY>`.");
    const token = bearerTokenOf(header);
    if (!token) throw invalidKey("Malformed Authorization header: expected `Bearer <API_KEY>`.");
    for (const verifier of options.verifiers) {
      if (!verifier.accepts(token)) continue;
      const principal = await verifier.verify(token);
      if (principal) {
        request.principal = principal;
        return;
      }
    }
    throw invalidKey("Unknown or revoked API key.");
  });
}

/** The principal of an authenticated route; a route without the hook is a programming error. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error("route used principalOf without authentication");
  return request.principal;
}

export default fp(authenticationPlugin, { name: "authentication" });
