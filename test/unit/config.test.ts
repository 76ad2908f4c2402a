import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../shared/config.ts";

/** The ConfigError thrown for `env`; fails the test when loadConfig accepts it. */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("loadConfig", () => {
  it("has the documented defaults with an empty environment", () => {
    // DESIGN.md's configuration table (other settings may be added beside these).
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      publicUrl: "http://127.0.0.1:3000",
      database: { kind: "pglite", dataDir: "./.data" },
      places: { kind: "none" },
      searchCheckBudgetMs: 30_000,
      audit: { allowPrivateNetworks: false },
      rateLimits: { readPerMinute: 30, searchPerMinute: 5 },
      // README's configuration table: the abuse and cost guards of issue 11.
      addressLimits: { oauthRegisterPerMinute: 10, oauthPerMinute: 60, adminFailuresPerMinute: 10 },
      costLimits: {
        paid: { provider_pages: 300, live_checks: 1500, draft_attempts: 600 },
        free_trial: { provider_pages: 30, live_checks: 100, draft_attempts: 30 },
      },
      logLevel: "info",
    });
    const config = loadConfig({});
    expect(config.redisUrl).toBeUndefined();
    expect(config.adminToken).toBeUndefined();
    expect(config.openai).toBeUndefined();
  });

  it("reads numbers and names from the environment", () => {
    const config = loadConfig({
      PORT: "8080",
      HOST: "0.0.0.0",
      SEARCH_CHECK_BUDGET_MS: "12000",
      RATE_LIMIT_READ_PER_MIN: "60",
      RATE_LIMIT_SEARCH_PER_MIN: "7",
      LOG_LEVEL: "warn",
    });
    expect(config).toMatchObject({
      port: 8080,
      host: "0.0.0.0",
      publicUrl: "http://0.0.0.0:8080",
      searchCheckBudgetMs: 12_000,
      rateLimits: { readPerMinute: 60, searchPerMinute: 7 },
      logLevel: "warn",
    });
  });

  it("reads DNS_SERVERS as ip[:port] servers, and refuses anything else naming the variable", () => {
    expect(loadConfig({}).dnsServers).toEqual([]);
    expect(loadConfig({ DNS_SERVERS: "" }).dnsServers).toEqual([]);
    expect(loadConfig({ DNS_SERVERS: "127.0.0.1:5353, 192.0.2.1,[::1]:53,2001:db8::1" }).dnsServers).toEqual([
      "127.0.0.1:5353",
      "192.0.2.1",
      "[::1]:53",
      "2001:db8::1",
    ]);
    for (const bad of ["dns.example.com", "127.0.0.1:0", "127.0.0.1:70000", "[127.0.0.1]:53", "1.2.3:53"]) {
      expect(configError({ DNS_SERVERS: bad }).message).toContain("DNS_SERVERS");
    }
  });

  it("reads AUDIT_UNREACHABLE_RETRY_MS, and stops on an AUDIT_CA_FILE it cannot read, naming the variable", () => {
    expect(loadConfig({}).audit).toMatchObject({ unreachableRetryMs: 5_000, extraCa: undefined });
    expect(loadConfig({ AUDIT_UNREACHABLE_RETRY_MS: "250" }).audit.unreachableRetryMs).toBe(250);
    const error = configError({ AUDIT_CA_FILE: "/nonexistent/test-ca.pem" }).message;
    expect(error).toContain("AUDIT_CA_FILE");
    expect(error).toContain("/nonexistent/test-ca.pem");
  });

  it("takes PUBLIC_URL as given, without a trailing slash", () => {
    expect(loadConfig({ PUBLIC_URL: "https://api.example.com/" }).publicUrl).toBe("https://api.example.com");
  });

  describe("runtime mode", () => {
    it("is embedded (PGlite in DATA_DIR, in-process rate limits) without DATABASE_URL and REDIS_URL", () => {
      const config = loadConfig({ DATA_DIR: "/var/lib/leads" });
      expect(config.database).toEqual({ kind: "pglite", dataDir: "/var/lib/leads" });
      expect(config.redisUrl).toBeUndefined();
    });

    it("is distributed (PostgreSQL and Redis) with DATABASE_URL and REDIS_URL", () => {
      const config = loadConfig({
        DATABASE_URL: "postgres://leads:secret@db.internal:5432/leads",
        REDIS_URL: "redis://cache.internal:6379/0",
        DATA_DIR: "/ignored",
      });
      expect(config.database).toEqual({
        kind: "postgres",
        url: "postgres://leads:secret@db.internal:5432/leads",
        timeouts: { connectMs: 5_000, statementMs: 10_000, idleInTransactionMs: 10_000 },
      });
      expect(config.redisUrl).toBe("redis://cache.internal:6379/0");
    });

    it("reads the database timeouts and the start-up wait", () => {
      const config = loadConfig({
        DATABASE_URL: "postgres://db.internal/leads",
        DATABASE_CONNECT_TIMEOUT_MS: "1500",
        DATABASE_STATEMENT_TIMEOUT_MS: "4000",
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "6000",
        STARTUP_WAIT_MS: "0",
      });
      expect(config.database).toMatchObject({
        timeouts: { connectMs: 1500, statementMs: 4000, idleInTransactionMs: 6000 },
      });
      expect(config.startupWaitMs).toBe(0);
      expect(loadConfig({}).startupWaitMs).toBe(60_000);
    });

    it("accepts the postgresql:// and rediss:// schemes", () => {
      const config = loadConfig({
        DATABASE_URL: "postgresql://db.internal/leads",
        REDIS_URL: "rediss://cache.internal:6380",
      });
      expect(config.database.kind).toBe("postgres");
      expect(config.redisUrl).toBe("rediss://cache.internal:6380");
    });

    it("treats empty and blank values as unset", () => {
      const config = loadConfig({ DATABASE_URL: "", REDIS_URL: "  ", ADMIN_TOKEN: "", OPENAI_API_KEY: "" });
      expect(config.database.kind).toBe("pglite");
      expect(config.redisUrl).toBeUndefined();
      expect(config.adminToken).toBeUndefined();
      expect(config.openai).toBeUndefined();
    });
  });

  describe("bad values give a ConfigError naming the variable", () => {
    it.each([
      ["PORT", "abc"],
      ["PORT", "70000"],
      ["PORT", "-1"],
      ["PORT", "30.5"],
      ["DATABASE_URL", "not a url"],
      ["DATABASE_URL", "mysql://db.internal/leads"],
      ["DATABASE_URL", "http://db.internal/leads"],
      ["REDIS_URL", "cache.internal:6379"],
      ["REDIS_URL", "http://cache.internal:6379"],
      ["PUBLIC_URL", "ftp://api.example.com"],
      ["ADMIN_TOKEN", "short"],
      ["RATE_LIMIT_READ_PER_MIN", "0"],
      ["RATE_LIMIT_SEARCH_PER_MIN", "many"],
      ["SEARCH_CHECK_BUDGET_MS", "-5"],
      ["LOG_LEVEL", "verbose"],
      ["AUDIT_ALLOW_PRIVATE_NETWORKS", "yes"],
      ["DATABASE_CONNECT_TIMEOUT_MS", "0"],
      ["DATABASE_STATEMENT_TIMEOUT_MS", "soon"],
      ["DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS", "-1"],
      ["STARTUP_WAIT_MS", "-1"],
    ])("%s=%s", (name, value) => {
      const error = configError({ [name]: value });
      expect(error.message).toContain(name);
    });

    it("names every bad variable at once", () => {
      const error = configError({ PORT: "abc", REDIS_URL: "nope" });
      expect(error.message).toContain("PORT");
      expect(error.message).toContain("REDIS_URL");
    });

    it("does not echo the bad value of a secret-bearing URL", () => {
      const error = configError({ DATABASE_URL: "mysql://user:hunter2@db.internal/leads" });
      expect(error.message).not.toContain("hunter2");
    });
  });

  describe("places provider", () => {
    it("is Google with GOOGLE_PLACES_API_KEY, on the default base URL", () => {
      expect(loadConfig({ GOOGLE_PLACES_API_KEY: "g-key" }).places).toEqual({
        kind: "google",
        apiKey: "g-key",
        baseUrl: "https://places.googleapis.com",
      });
    });

    it("uses GOOGLE_PLACES_BASE_URL when set", () => {
      const config = loadConfig({
        GOOGLE_PLACES_API_KEY: "g-key",
        GOOGLE_PLACES_BASE_URL: "http://127.0.0.1:9999",
      });
      expect(config.places).toMatchObject({ kind: "google", baseUrl: "http://127.0.0.1:9999" });
    });

    it("is the fixture file when PLACES_FIXTURE_FILE is set, even with a Google key", () => {
      expect(
        loadConfig({ PLACES_FIXTURE_FILE: "fixtures/places.example.json", GOOGLE_PLACES_API_KEY: "g-key" })
          .places,
      ).toEqual({ kind: "fixture", file: "fixtures/places.example.json" });
    });

    it("is none without either", () => {
      expect(loadConfig({ GOOGLE_PLACES_API_KEY: "", PLACES_FIXTURE_FILE: "" }).places).toEqual({
        kind: "none",
      });
    });
  });

  describe("LLM drafting", () => {
    it("is off (template drafter) with a model but neither OPENAI_API_KEY nor OPENAI_BASE_URL", () => {
      expect(loadConfig({ OPENAI_MODEL: "gpt-4o-mini" }).openai).toBeUndefined();
    });

    it("is on without a key for a server of one's own (OPENAI_BASE_URL and OPENAI_MODEL)", () => {
      expect(
        loadConfig({ OPENAI_MODEL: "llama3.1:8b", OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }).openai,
      ).toEqual({
        apiKey: undefined,
        model: "llama3.1:8b",
        baseURL: "http://127.0.0.1:11434/v1",
        timeoutMs: 15_000,
      });
    });

    it("rejects OPENAI_BASE_URL without OPENAI_MODEL", () => {
      expect(configError({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }).message).toContain("OPENAI_MODEL");
    });

    it("is on with OPENAI_API_KEY and OPENAI_MODEL", () => {
      expect(
        loadConfig({
          OPENAI_API_KEY: "sk-test",
          OPENAI_MODEL: "gpt-4o-mini",
          OPENAI_BASE_URL: "http://127.0.0.1:8000/v1",
        }).openai,
      ).toMatchObject({ apiKey: "sk-test", model: "gpt-4o-mini", baseURL: "http://127.0.0.1:8000/v1" });
    });

    it("rejects OPENAI_API_KEY without OPENAI_MODEL", () => {
      const error = configError({ OPENAI_API_KEY: "sk-test" });
      expect(error.message).toContain("OPENAI_MODEL");
      expect(error.message).not.toContain("sk-test");
    });

    it("rejects a malformed OPENAI_BASE_URL", () => {
      expect(configError({ OPENAI_BASE_URL: "not a url" }).message).toContain("OPENAI_BASE_URL");
    });
  });

  describe("AUDIT_ALLOW_PRIVATE_NETWORKS", () => {
    it.each([
      ["1", true],
      ["true", true],
      ["0", false],
      ["false", false],
      ["", false],
      [undefined, false],
    ])("%s gives %s", (value, expected) => {
      expect(loadConfig({ AUDIT_ALLOW_PRIVATE_NETWORKS: value }).audit.allowPrivateNetworks).toBe(expected);
    });

    it.each(["yes", "on", "TRUE", "2"])("rejects %s", (value) => {
      expect(configError({ AUDIT_ALLOW_PRIVATE_NETWORKS: value }).message).toContain(
        "AUDIT_ALLOW_PRIVATE_NETWORKS",
      );
    });
  });
});

describe("account mail and sign-up settings", () => {
  it("SIGNUP=open needs SMTP_URL, and says so naming it", () => {
    expect(configError({ SIGNUP: "open" }).message).toContain("SMTP_URL: required when SIGNUP=open");
    expect(() =>
      loadConfig({ SIGNUP: "open", SMTP_URL: "smtp://127.0.0.1:2525", MAIL_FROM: "a@b.test" }),
    ).not.toThrow();
  });

  it("SMTP_URL=log: writes mail to the log: no MAIL_FROM needed, and SIGNUP=open accepts it", () => {
    expect(loadConfig({ SMTP_URL: "log:" }).mail).toEqual({ kind: "log" });
    expect(loadConfig({ SMTP_URL: "log:", SIGNUP: "open" })).toMatchObject({
      mail: { kind: "log" },
      signUp: "open",
    });
    expect(configError({ SMTP_URL: "log:x", MAIL_FROM: "a@b.test" }).message).toContain("SMTP_URL");
    expect(configError({ SIGNUP: "open" }).message).toContain("SMTP_URL=log:");
  });

  it("SMTP_URL needs MAIL_FROM and an smtp(s) URL", () => {
    expect(configError({ SMTP_URL: "smtp://127.0.0.1:2525" }).message).toContain("MAIL_FROM");
    expect(configError({ SMTP_URL: "http://127.0.0.1", MAIL_FROM: "a@b.test" }).message).toContain(
      "SMTP_URL",
    );
    expect(loadConfig({ SMTP_URL: "smtps://u:p@mail.test", MAIL_FROM: "a@b.test" }).mail).toEqual({
      kind: "smtp",
      smtpUrl: "smtps://u:p@mail.test",
      from: "a@b.test",
    });
    expect(loadConfig({}).mail).toBeUndefined();
    expect(loadConfig({}).signUp).toBe("invite");
    // A blank line of .env is the default, not an error.
    expect(loadConfig({ SIGNUP: "", SMTP_URL: "", MAIL_FROM: "" })).toMatchObject({ signUp: "invite" });
    expect(configError({ SIGNUP: "maybe" }).message).toContain("SIGNUP");
  });

  it("refuses the sign-in limits' old names, naming their replacement", () => {
    expect(configError({ SIGN_IN_ATTEMPTS_PER_ACCOUNT: "5" }).message).toContain(
      "PASSWORD_FAILURES_PER_ACCOUNT_ADDRESS",
    );
    expect(loadConfig({}).passwordFailureLimits).toEqual({
      perAccountAddress: 10,
      perAddress: 50,
      perAccount: 30,
      slowDownMs: 3000,
      windowSeconds: 900,
    });
  });
});
