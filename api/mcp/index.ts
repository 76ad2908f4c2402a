import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { bearerTokenOf } from "../../shared/auth.ts";
import { ApiError } from "../../shared/errors.ts";
import { DEFAULT_SCOPE, oauthEndpoints } from "../../shared/oauth/metadata.ts";
import { principalOfAccessToken, verifyAccessToken } from "../../shared/oauth/tokens.ts";
import type { Services } from "../services.ts";
import { createLeadMcpServer } from "./lead-tools.ts";

/**
 * `/mcp`: the MCP Streamable HTTP endpoint (stateless: one MCP server per POST, JSON responses),
 * for OAuth access tokens only. API keys are server-side credentials and are not taken here.
 * A missing or invalid token gets 401 with the RFC 9728 `resource_metadata` challenge that MCP
 * clients follow to find this authorization server.
 */
const mcpRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { publicUrl } = services.config;
  const ownOrigin = new URL(publicUrl).origin;
  const challenge = (error?: string) =>
    [
      ...(error ? [`error="invalid_token"`, `error_description="${error}"`] : []),
      `resource_metadata="${oauthEndpoints(publicUrl).mcpResourceMetadata}"`,
      `scope="${DEFAULT_SCOPE}"`,
    ].join(", ");
  const unauthorized = (message: string, error?: string) =>
    new ApiError("invalid_api_key", message, {
      headers: { "WWW-Authenticate": `Bearer ${challenge(error)}` },
    });

  app.addHook("onRequest", async (request: FastifyRequest) => {
    // MCP transport rule against DNS rebinding: a browser Origin other than this service is refused.
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== ownOrigin) {
      throw new ApiError("cross_origin_forbidden", "Cross-origin browser requests to /mcp are refused.");
    }
    const header = request.headers.authorization;
    if (!header)
      throw unauthorized("Missing OAuth access token: send `Authorization: Bearer <access_token>`.");
    const token = bearerTokenOf(header);
    const info = token ? await verifyAccessToken(services.db, token) : null;
    if (!info) {
      throw unauthorized(
        "Unknown, expired or revoked OAuth access token.",
        "The access token is unknown, expired or revoked",
      );
    }
    request.principal = principalOfAccessToken(info);
  });

  app.post("/mcp", { schema: { hide: true } }, async (request, reply) => {
    const principal = request.principal;
    if (!principal) throw new Error("/mcp reached without a principal");
    const server = createLeadMcpServer({ principal, logger: request.log, services });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.raw.setHeader("x-request-id", request.id);
    reply.hijack();
    reply.raw.on("close", () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, "MCP request failed");
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { "content-type": "application/json" });
        reply.raw.end(
          JSON.stringify({
            jsonrpc: "2.0",
            error: { code: -32603, message: "Internal server error" },
            id: null,
          }),
        );
      }
    }
  });

  // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
  const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header("allow", "POST")
      .send({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: POST only." }, id: null });
  app.get("/mcp", { schema: { hide: true } }, methodNotAllowed);
  app.delete("/mcp", { schema: { hide: true } }, methodNotAllowed);
};

export default mcpRoutes;
