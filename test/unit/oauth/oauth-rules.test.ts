import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../shared/config.ts";
import { redirectUriProblem } from "../../../shared/oauth/clients.ts";
import { OAuthError } from "../../../shared/oauth/errors.ts";
import {
  authorizationServerMetadata,
  checkResourceIndicator,
  parseScope,
  registrableScope,
} from "../../../shared/oauth/metadata.ts";
import { s256Challenge, verifyPkce } from "../../../shared/oauth/pkce.ts";
import {
  looksLikeAccessToken,
  looksLikeApiKey,
  newSecret,
  REFRESH_TOKEN_PREFIX,
} from "../../../shared/secrets.ts";

describe("PKCE S256 (RFC 7636)", () => {
  // RFC 7636 Appendix B.
  const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

  it("matches the RFC's example", () => {
    expect(s256Challenge(verifier)).toBe(challenge);
    expect(verifyPkce(verifier, challenge)).toBe(true);
  });

  it("refuses another verifier, the challenge itself (plain), and verifiers outside 43..128 characters", () => {
    expect(verifyPkce(`${verifier.slice(0, -1)}x`, challenge)).toBe(false);
    expect(verifyPkce(challenge, challenge)).toBe(false);
    const short = "a".repeat(42);
    expect(verifyPkce(short, s256Challenge(short))).toBe(false);
    const long = "a".repeat(129);
    expect(verifyPkce(long, s256Challenge(long))).toBe(false);
    const withSpace = `${"a".repeat(42)} `;
    expect(verifyPkce(withSpace, s256Challenge(withSpace))).toBe(false);
  });
});

describe("token shapes", () => {
  it("access tokens have their own prefix, never mistaken for API keys", () => {
    const token = newSecret("ldat_");
    expect(looksLikeAccessToken(token)).toBe(true);
    expect(looksLikeApiKey(token)).toBe(false);
    expect(looksLikeAccessToken(newSecret(REFRESH_TOKEN_PREFIX))).toBe(false);
    expect(looksLikeAccessToken(`ldk_${token.slice(5)}`)).toBe(false);
  });
});

describe("redirect URIs a client may register", () => {
  it.each([
    "https://assistant.example/oauth/callback",
    "https://assistant.example:8443/cb?tenant=1",
    "http://127.0.0.1:33418/callback",
    "http://[::1]:8080/cb",
    "http://localhost/cb",
  ])("accepts %s", (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  it.each([
    "http://assistant.example/cb",
    "http://127.0.0.1.nip.io/cb",
    "https://assistant.example/cb#fragment",
    "https://user:pass@assistant.example/cb",
    "javascript:alert(1)",
    "com.example.app:/cb",
    "/relative",
    "",
  ])("refuses %s", (uri) => {
    expect(redirectUriProblem(uri)).toEqual(expect.any(String));
  });
});

describe("scopes", () => {
  it("defaults to email and profile, keeps their order, drops duplicates", () => {
    expect(parseScope(undefined)).toEqual(["email", "profile"]);
    expect(parseScope("")).toEqual(["email", "profile"]);
    expect(parseScope("profile email profile")).toEqual(["email", "profile"]);
    expect(parseScope("email")).toEqual(["email"]);
  });

  it("refuses any other scope with invalid_scope", () => {
    expect(() => parseScope("email openid")).toThrow(OAuthError);
    expect(() => parseScope("admin")).toThrow(expect.objectContaining({ code: "invalid_scope" }));
  });

  it("registration keeps only the supported scopes", () => {
    expect(registrableScope("claudeai")).toBe("email profile");
    expect(registrableScope("profile claudeai")).toBe("profile");
    expect(registrableScope(undefined)).toBe("email profile");
  });
});

describe("resource indicators (RFC 8707)", () => {
  const publicUrl = "https://api.example.com";

  it("accepts this service and anything under it", () => {
    expect(checkResourceIndicator(undefined, publicUrl)).toBeNull();
    expect(checkResourceIndicator("https://api.example.com/mcp", publicUrl)).toBe(
      "https://api.example.com/mcp",
    );
    expect(checkResourceIndicator("https://api.example.com", publicUrl)).toBe("https://api.example.com");
    expect(checkResourceIndicator("https://api.example.com/", publicUrl)).toBe("https://api.example.com/");
  });

  it.each([
    "https://other.example/mcp",
    "https://api.example.com.evil.example/mcp",
    "http://api.example.com/mcp",
    "https://api.example.com/mcp#x",
    "not a uri",
  ])("refuses %s with invalid_target", (resource) => {
    expect(() => checkResourceIndicator(resource, publicUrl)).toThrow(
      expect.objectContaining({ code: "invalid_target" }),
    );
  });

  it("with a path in PUBLIC_URL, only that path and below", () => {
    expect(checkResourceIndicator("https://x.example/api/mcp", "https://x.example/api")).toBe(
      "https://x.example/api/mcp",
    );
    expect(() => checkResourceIndicator("https://x.example/apiary", "https://x.example/api")).toThrow(
      OAuthError,
    );
  });
});

describe("metadata and settings", () => {
  it("advertises S256 only, public clients only, the code flow only", () => {
    const metadata = authorizationServerMetadata("https://api.example.com");
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(["none"]);
    expect(metadata.response_types_supported).toEqual(["code"]);
    expect(metadata.authorization_endpoint).toBe("https://api.example.com/oauth/authorize");
  });

  it("token lifetimes default to 1 hour and 30 days and follow the environment", () => {
    expect(loadConfig({}).oauth).toEqual({
      accessTokenTtlSeconds: 3600,
      refreshTokenTtlSeconds: 2_592_000,
      unusedClientTtlSeconds: 86_400,
    });
    expect(
      loadConfig({ OAUTH_ACCESS_TOKEN_TTL_SECONDS: "60", OAUTH_REFRESH_TOKEN_TTL_SECONDS: "86400" }).oauth,
    ).toMatchObject({ accessTokenTtlSeconds: 60, refreshTokenTtlSeconds: 86_400 });
    expect(() => loadConfig({ OAUTH_ACCESS_TOKEN_TTL_SECONDS: "0" })).toThrow(
      /OAUTH_ACCESS_TOKEN_TTL_SECONDS/,
    );
  });
});
