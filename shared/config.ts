import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { z } from "zod";
import type { CostLimits } from "./cost-guard.ts";

const optionalString = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

const flag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((value) => value === "1" || value === "true");

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** One DNS server: an IP address with an optional port (`192.0.2.1`, `192.0.2.1:5353`, `[2001:db8::1]:53`). */
const dnsServer = z
  .string()
  .trim()
  .refine(isDnsServerAddress, "each server must be an IP address, with an optional :port (IPv6 in brackets)");

function isDnsServerAddress(text: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  const [host, port] = bracketed
    ? [bracketed[1] ?? "", bracketed[2]]
    : isIP(text) === 6
      ? [text, undefined]
      : [text.split(":")[0] ?? "", text.split(":")[1]];
  if (isIP(host) === 0 || (bracketed && isIP(host) !== 6)) return false;
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

/** One pack of credits sold through Stripe Checkout: its credits and its price in the currency's smallest unit. */
export interface CreditPack {
  credits: number;
  price: number;
}

/** The largest pack (the admin API's limit of one operator purchase too). */
const MAX_PACK_CREDITS = 100_000;

/** `credits:price,…` (`100:1900,500:7900`), each an integer, no two packs of the same size. */
function parseCreditPacks(text: string, context: z.RefinementCtx): CreditPack[] {
  const packs: CreditPack[] = [];
  for (const item of text.split(",").map((part) => part.trim())) {
    const match = /^(\d{1,9}):(\d{1,9})$/.exec(item);
    const credits = Number(match?.[1]);
    const price = Number(match?.[2]);
    if (!match || credits < 1 || credits > MAX_PACK_CREDITS || price < 1) {
      context.addIssue({
        code: "custom",
        message: `"${item}" is not credits:price (credits 1 to ${MAX_PACK_CREDITS}, price in the smallest unit, at least 1)`,
      });
      return z.NEVER;
    }
    if (packs.some((pack) => pack.credits === credits)) {
      context.addIssue({ code: "custom", message: `two packs of ${credits} credits` });
      return z.NEVER;
    }
    packs.push({ credits, price });
  }
  return packs.sort((a, b) => a.credits - b.credits);
}

/** Every setting of the service, read once from the environment at start. */
const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  PUBLIC_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  DATA_DIR: z.string().min(1).default("./.data"),
  DATABASE_CONNECT_TIMEOUT_MS: positiveInt(5_000),
  DATABASE_STATEMENT_TIMEOUT_MS: positiveInt(10_000),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: positiveInt(10_000),
  STARTUP_WAIT_MS: z.coerce.number().int().min(0).default(60_000),
  REDIS_URL: optionalString.pipe(z.url({ protocol: /^rediss?$/ }).optional()),
  ADMIN_TOKEN: optionalString.pipe(
    z.string().min(16, "ADMIN_TOKEN must be at least 16 characters").optional(),
  ),
  GOOGLE_PLACES_API_KEY: optionalString,
  GOOGLE_PLACES_BASE_URL: z.url().default("https://places.googleapis.com"),
  PLACES_FIXTURE_FILE: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalString.pipe(z.url().optional()),
  OPENAI_MODEL: optionalString,
  OPENAI_TIMEOUT_MS: positiveInt(15_000),
  SEARCH_CHECK_BUDGET_MS: positiveInt(30_000),
  SEARCH_MATCH_GRACE_MS: z.coerce.number().int().min(0).default(1_000),
  AUDIT_ALLOW_PRIVATE_NETWORKS: flag,
  // Demo only: homepages of `.example` websites read from this folder instead of the network.
  AUDIT_DEMO_SITES_DIR: optionalString,
  // Comma-separated; empty or unset: the system's resolvers.
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((value) => (value ?? "").split(",").filter((server) => server.trim() !== ""))
    .pipe(z.array(dnsServer)),
  AUDIT_CONCURRENCY: positiveInt(1000),
  // At least one 2 MiB body (the fetcher's cap) must fit.
  AUDIT_FETCH_MEMORY_BUDGET_MB: z.coerce.number().int().min(2).default(256),
  AUDIT_FETCHES_PER_HOST: positiveInt(4),
  AUDIT_FETCHES_PER_IP: positiveInt(32),
  AUDIT_THREADS: z.coerce.number().int().min(0).default(0),
  AUDIT_FETCH_LOOPS: z.coerce.number().int().min(0).max(64).default(2),
  AUDIT_JOB_LOCK_MS: positiveInt(30_000),
  AUDIT_UNREACHABLE_RETRY_MS: positiveInt(5_000),
  // Read once at start: a file that cannot be read, or holds no certificate, stops the process.
  AUDIT_CA_FILE: optionalString.transform((file, context) => {
    if (file === undefined) return undefined;
    try {
      const pem = readFileSync(file, "utf8");
      if (pem.includes("-----BEGIN CERTIFICATE-----")) return pem;
      context.addIssue({ code: "custom", message: `${file} holds no PEM certificate` });
    } catch (error) {
      context.addIssue({ code: "custom", message: `cannot read ${file}: ${(error as Error).message}` });
    }
    return z.NEVER;
  }),
  AUDIT_FALLBACK_CONCURRENCY: positiveInt(50),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default("bull"),
  RATE_LIMIT_READ_PER_MIN: positiveInt(30),
  RATE_LIMIT_SEARCH_PER_MIN: positiveInt(5),
  RATE_LIMIT_CONSOLE_READ_PER_MIN: positiveInt(300),
  RATE_LIMIT_CONSOLE_SEARCH_PER_MIN: positiveInt(20),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  RATE_LIMIT_OAUTH_REGISTER_PER_MIN: positiveInt(10),
  RATE_LIMIT_OAUTH_PER_MIN: positiveInt(60),
  RATE_LIMIT_ADMIN_FAILURES_PER_MIN: positiveInt(10),
  COST_PROVIDER_PAGES_PER_HOUR: positiveInt(300),
  COST_PROVIDER_PAGES_PER_HOUR_FREE_TRIAL: positiveInt(30),
  COST_LIVE_CHECKS_PER_HOUR: positiveInt(1500),
  COST_LIVE_CHECKS_PER_HOUR_FREE_TRIAL: positiveInt(100),
  COST_DRAFT_ATTEMPTS_PER_HOUR: positiveInt(600),
  COST_DRAFT_ATTEMPTS_PER_HOUR_FREE_TRIAL: positiveInt(30),
  OAUTH_UNUSED_CLIENT_TTL_SECONDS: positiveInt(24 * 3600),
  PASSWORD_FAILURES_PER_ACCOUNT_ADDRESS: positiveInt(10),
  PASSWORD_FAILURES_PER_ADDRESS: positiveInt(50),
  PASSWORD_FAILURES_PER_ACCOUNT: positiveInt(30),
  PASSWORD_SLOW_DOWN_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
  // `log:` writes account mail to the log instead of sending it (development and demos).
  SMTP_URL: optionalString.pipe(z.union([z.literal("log:"), z.url({ protocol: /^smtps?$/ })]).optional()),
  MAIL_FROM: optionalString,
  // An empty value (a blank line of .env) is the default.
  SIGNUP: optionalString.pipe(z.enum(["invite", "open"]).default("invite")),
  ACCOUNT_MAIL_PER_ADDRESS_PER_HOUR: positiveInt(10),
  INVITES_PER_HOUR: positiveInt(20),
  SUPPRESSIONS_MAX_PER_WORKSPACE: positiveInt(20_000),
  KEY_USAGE_FLUSH_MS: positiveInt(10_000),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: positiveInt(3600),
  OAUTH_REFRESH_TOKEN_TTL_SECONDS: positiveInt(30 * 24 * 3600),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  PRIVACY_POLICY_FILE: optionalString,
  TERMS_OF_SERVICE_FILE: optionalString,
  OPERATOR_CONTACT_EMAIL: optionalString.pipe(z.email("must be an email address").optional()),
  STRIPE_SECRET_KEY: optionalString.pipe(
    z
      .string()
      .regex(/^(sk|rk)_(test|live)_\w+$/, "must be a Stripe secret or restricted key (sk_… or rk_…)")
      .optional(),
  ),
  STRIPE_WEBHOOK_SECRET: optionalString.pipe(
    z
      .string()
      .regex(/^whsec_\w+$/, "must be a webhook signing secret (whsec_…)")
      .optional(),
  ),
  // The origin only: the package builds every path itself.
  STRIPE_API_URL: optionalString.pipe(
    z
      .url({ protocol: /^https?$/ })
      .refine((url) => /^https?:\/\/[^/?#]+\/?$/.test(url), "must be an origin (scheme, host, port), no path")
      .default("https://api.stripe.com"),
  ),
  CREDIT_PACKS: optionalString.pipe(
    z
      .string()
      .default("100:1900,500:7900,2000:24900")
      .transform((text, context) => parseCreditPacks(text, context)),
  ),
  CREDIT_CURRENCY: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z]{3}$/, "must be a three-letter ISO currency code")
      .transform((code) => code.toLowerCase())
      .default("usd"),
  ),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** How long the database may take before a request gives up on it (PostgreSQL only). */
export interface DatabaseTimeouts {
  /** Opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** One statement: enforced by the server (`statement_timeout`) and by the client, for a server that hangs. */
  statementMs: number;
  /** A transaction left idle (a process that stalled mid-transaction) is ended by the server. */
  idleInTransactionMs: number;
}

export interface Config {
  port: number;
  host: string;
  /** Base address clients use; OpenAPI servers and OAuth URLs are built from it. */
  publicUrl: string;
  database:
    | { kind: "postgres"; url: string; timeouts: DatabaseTimeouts }
    | { kind: "pglite"; dataDir: string };
  /** How long a starting process waits for PostgreSQL and Redis before it gives up (exit 1). */
  startupWaitMs: number;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  places:
    | { kind: "google"; apiKey: string; baseUrl: string }
    | { kind: "fixture"; file: string }
    | { kind: "none" };
  /** LLM drafting: a model on OpenAI (key required) or on any OpenAI-compatible server (key optional). */
  openai:
    | { apiKey: string | undefined; baseURL: string | undefined; model: string; timeoutMs: number }
    | undefined;
  searchCheckBudgetMs: number;
  /**
   * The DNS servers of every lookup the service makes (homepage fetches, mail checks), as
   * `ip[:port]`; empty: the system's. Tests point them at a DNS server on loopback.
   */
  dnsServers: string[];
  /**
   * Once a live-check search has its max_results matches, how long it still waits for the
   * better-ranked candidates being checked before it answers without them (truncated).
   */
  searchMatchGraceMs: number;
  audit: {
    allowPrivateNetworks: boolean;
    /** Folder of `<host>.example.html` homepages answered without the network (offline demo); unset: none. */
    demoSitesDir: string | undefined;
    /**
     * Audits in flight per process (in-process auditor, or one worker): each is mostly a homepage
     * fetch waiting on the network; parsing is bounded by `threads`.
     */
    concurrency: number;
    /**
     * Bytes of homepage bodies in memory at once per process (being read, or waiting for and in
     * their analysis); a fetch waits for room once its site answers (see fetch-politeness.ts).
     */
    fetchMemoryBudgetBytes: number;
    /** Politeness: fetches at once to one hostname, and to one IP address. */
    fetchesPerHost: number;
    fetchesPerIp: number;
    /** Analysis threads; 0 means one less than the cores. */
    threads: number;
    /**
     * Threads of a process that fetch homepages, each its own event loop (fetch-loops.ts); 0 fetches
     * on the process's own event loop.
     */
    fetchLoops: number;
    /** How long a worker's job lock lasts; a dead worker's job is retried after about this long. */
    jobLockMs: number;
    /** site_unreachable: the wait between a homepage's two attempts. */
    unreachableRetryMs: number;
    /** PEM certificate authorities the homepage fetcher trusts besides the system's (AUDIT_CA_FILE). */
    extraCa: string | undefined;
    /** Distributed mode: audits an API node runs itself, at most, while Redis is unreachable. */
    fallbackConcurrency: number;
  };
  queuePrefix: string;
  rateLimits: { readPerMinute: number; searchPerMinute: number };
  /**
   * The console's own per-minute buckets, per member (lead pages, drafts, marks; searches): a
   * person's clicks are counted apart from the API keys' and OAuth tokens' limits.
   */
  consoleRateLimits: { readPerMinute: number; searchPerMinute: number };
  /** Reverse proxies in front of the API whose X-Forwarded-For is trusted for the client address. */
  trustProxyHops: number;
  /** Per client address, for the unauthenticated endpoints. */
  addressLimits: { oauthRegisterPerMinute: number; oauthPerMinute: number; adminFailuresPerMinute: number };
  /** Per-workspace hourly limits on work the spec does not charge (see shared/cost-guard.ts). */
  costLimits: CostLimits;
  /**
   * Wrong passwords per 15 minutes, counted for every password check (sign-in, password change):
   * per account and client address together, and per client address (an IPv6 client by its /64),
   * which refuse; per account across every address, past which each check waits `slowDownMs`
   * and the owner is mailed (never a refusal). Successes never count.
   */
  passwordFailureLimits: {
    perAccountAddress: number;
    perAddress: number;
    perAccount: number;
    slowDownMs: number;
    windowSeconds: number;
  };
  /**
   * Account mail (invites, reset links, sign-up confirmations) through SMTP, or written to the
   * log and sent nowhere (`SMTP_URL=log:`); unset: no mail, and invite and reset links are shown
   * to whoever made them.
   */
  mail: { kind: "smtp"; smtpUrl: string; from: string } | { kind: "log" } | undefined;
  /** `open`: anyone may sign up at /app/sign-up (needs mail); `invite`: accounts come from invites. */
  signUp: "invite" | "open";
  /** Sign-ups and reset requests per client address per hour (each sends a mail). */
  accountMailPerAddressPerHour: number;
  /** Invites a member may send per hour, and a workspace may send per hour (each is a mail). */
  invitesPerHour: number;
  /** Entries a workspace's do-not-contact list may hold (an addition past it adds nothing: 400). */
  suppressionsPerWorkspace: number;
  /** How often API keys' last use is written (usage is kept in memory in between). */
  keyUsageFlushMs: number;
  /** Lifetimes of the OAuth tokens issued to assistant clients. */
  oauth: { accessTokenTtlSeconds: number; refreshTokenTtlSeconds: number; unusedClientTtlSeconds: number };
  workerMetricsPort: number;
  /** The privacy policy and terms pages: the operator's HTML files, else the default text; their contact. */
  legal: {
    privacyPolicyFile: string | undefined;
    termsOfServiceFile: string | undefined;
    contactEmail: string | undefined;
  };
  /**
   * Buying credits through Stripe Checkout; undefined without STRIPE_SECRET_KEY (then credits come
   * from the operator only). `apiUrl` is Stripe's origin (tests point it at a fake on loopback).
   */
  stripe: { secretKey: string; webhookSecret: string; apiUrl: string } | undefined;
  /** The packs the Credits page sells, smallest first, priced in `creditCurrency`. */
  creditPacks: CreditPack[];
  /** ISO code, lower case (Stripe's spelling). */
  creditCurrency: string;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** The environment as the schema read it (names as the variables'). */
type Environment = z.infer<typeof configSchema>;

/** Validates the environment once; a bad value is a clear error naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  const e = parsed.data;
  refuseRenamedVariables(env);
  refuseHalfSettings(e);
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://${e.HOST.includes(":") ? `[${e.HOST}]` : e.HOST}:${e.PORT}`).replace(
      /\/+$/,
      "",
    ),
    database: databaseConfig(e),
    startupWaitMs: e.STARTUP_WAIT_MS,
    redisUrl: e.REDIS_URL,
    adminToken: e.ADMIN_TOKEN,
    places: placesConfig(e),
    openai: openaiConfig(e),
    searchCheckBudgetMs: e.SEARCH_CHECK_BUDGET_MS,
    dnsServers: e.DNS_SERVERS,
    searchMatchGraceMs: e.SEARCH_MATCH_GRACE_MS,
    audit: auditConfig(e),
    queuePrefix: e.QUEUE_PREFIX,
    rateLimits: { readPerMinute: e.RATE_LIMIT_READ_PER_MIN, searchPerMinute: e.RATE_LIMIT_SEARCH_PER_MIN },
    consoleRateLimits: {
      readPerMinute: e.RATE_LIMIT_CONSOLE_READ_PER_MIN,
      searchPerMinute: e.RATE_LIMIT_CONSOLE_SEARCH_PER_MIN,
    },
    trustProxyHops: e.TRUST_PROXY_HOPS,
    addressLimits: {
      oauthRegisterPerMinute: e.RATE_LIMIT_OAUTH_REGISTER_PER_MIN,
      oauthPerMinute: e.RATE_LIMIT_OAUTH_PER_MIN,
      adminFailuresPerMinute: e.RATE_LIMIT_ADMIN_FAILURES_PER_MIN,
    },
    costLimits: costLimitsConfig(e),
    passwordFailureLimits: {
      perAccountAddress: e.PASSWORD_FAILURES_PER_ACCOUNT_ADDRESS,
      perAddress: e.PASSWORD_FAILURES_PER_ADDRESS,
      perAccount: e.PASSWORD_FAILURES_PER_ACCOUNT,
      slowDownMs: e.PASSWORD_SLOW_DOWN_MS,
      windowSeconds: 15 * 60,
    },
    mail: mailConfig(e),
    signUp: e.SIGNUP,
    accountMailPerAddressPerHour: e.ACCOUNT_MAIL_PER_ADDRESS_PER_HOUR,
    invitesPerHour: e.INVITES_PER_HOUR,
    suppressionsPerWorkspace: e.SUPPRESSIONS_MAX_PER_WORKSPACE,
    keyUsageFlushMs: e.KEY_USAGE_FLUSH_MS,
    oauth: {
      accessTokenTtlSeconds: e.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: e.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
      unusedClientTtlSeconds: e.OAUTH_UNUSED_CLIENT_TTL_SECONDS,
    },
    workerMetricsPort: e.WORKER_METRICS_PORT,
    legal: {
      privacyPolicyFile: e.PRIVACY_POLICY_FILE,
      termsOfServiceFile: e.TERMS_OF_SERVICE_FILE,
      contactEmail: e.OPERATOR_CONTACT_EMAIL,
    },
    stripe: stripeConfig(e),
    creditPacks: e.CREDIT_PACKS,
    creditCurrency: e.CREDIT_CURRENCY,
    logLevel: e.LOG_LEVEL,
  };
}

/**
 * Renamed when they started counting failures only, per account-and-address: a value set under
 * the old name would otherwise be ignored without a word.
 */
function refuseRenamedVariables(env: Record<string, string | undefined>): void {
  for (const [old, replacement] of [
    ["SIGN_IN_ATTEMPTS_PER_ACCOUNT", "PASSWORD_FAILURES_PER_ACCOUNT_ADDRESS"],
    ["SIGN_IN_ATTEMPTS_PER_ADDRESS", "PASSWORD_FAILURES_PER_ADDRESS"],
  ] as const) {
    if (env[old] !== undefined) {
      throw new ConfigError(
        `Invalid configuration:\n  ${old}: renamed ${replacement} (wrong passwords only)`,
      );
    }
  }
}

/** Settings that need another one: the first missing is named. */
function refuseHalfSettings(e: Environment): void {
  if (e.SMTP_URL && e.SMTP_URL !== "log:" && !e.MAIL_FROM) {
    throw new ConfigError("Invalid configuration:\n  MAIL_FROM: required when SMTP_URL is set");
  }
  // Self-serve sign-up is confirmed by a mailed link: without mail anyone could claim any address.
  if (e.SIGNUP === "open" && !e.SMTP_URL) {
    throw new ConfigError(
      "Invalid configuration:\n  SMTP_URL: required when SIGNUP=open (sign-ups are confirmed by mail; SMTP_URL=log: writes the mail to the log, for a demo)",
    );
  }
  // One without the other cannot work: no checkout without the key, no crediting without the secret.
  if (e.STRIPE_SECRET_KEY && !e.STRIPE_WEBHOOK_SECRET) {
    throw new ConfigError(
      "Invalid configuration:\n  STRIPE_WEBHOOK_SECRET: required when STRIPE_SECRET_KEY is set (the webhook's signing secret)",
    );
  }
  if (e.STRIPE_WEBHOOK_SECRET && !e.STRIPE_SECRET_KEY) {
    throw new ConfigError(
      "Invalid configuration:\n  STRIPE_SECRET_KEY: required when STRIPE_WEBHOOK_SECRET is set",
    );
  }
  if ((e.OPENAI_API_KEY || e.OPENAI_BASE_URL) && !e.OPENAI_MODEL) {
    throw new ConfigError(
      "Invalid configuration:\n  OPENAI_MODEL: required when OPENAI_API_KEY or OPENAI_BASE_URL is set",
    );
  }
}

function placesConfig(e: Environment): Config["places"] {
  // The fixture provider wins over Google so that a demo never spends a real API quota by accident.
  return e.PLACES_FIXTURE_FILE
    ? { kind: "fixture", file: e.PLACES_FIXTURE_FILE }
    : e.GOOGLE_PLACES_API_KEY
      ? { kind: "google", apiKey: e.GOOGLE_PLACES_API_KEY, baseUrl: e.GOOGLE_PLACES_BASE_URL }
      : { kind: "none" };
}

function databaseConfig(e: Environment): Config["database"] {
  return e.DATABASE_URL
    ? {
        kind: "postgres",
        url: e.DATABASE_URL,
        timeouts: {
          connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
          statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
          idleInTransactionMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
        },
      }
    : { kind: "pglite", dataDir: e.DATA_DIR };
}

function openaiConfig(e: Environment): Config["openai"] {
  // OpenAI's own API needs a key; a server of one's own (OPENAI_BASE_URL) may need none.
  return e.OPENAI_MODEL && (e.OPENAI_API_KEY || e.OPENAI_BASE_URL)
    ? {
        apiKey: e.OPENAI_API_KEY,
        baseURL: e.OPENAI_BASE_URL,
        model: e.OPENAI_MODEL,
        timeoutMs: e.OPENAI_TIMEOUT_MS,
      }
    : undefined;
}

function auditConfig(e: Environment): Config["audit"] {
  return {
    allowPrivateNetworks: e.AUDIT_ALLOW_PRIVATE_NETWORKS,
    demoSitesDir: e.AUDIT_DEMO_SITES_DIR,
    concurrency: e.AUDIT_CONCURRENCY,
    fetchMemoryBudgetBytes: e.AUDIT_FETCH_MEMORY_BUDGET_MB * 1024 * 1024,
    fetchesPerHost: e.AUDIT_FETCHES_PER_HOST,
    fetchesPerIp: e.AUDIT_FETCHES_PER_IP,
    threads: e.AUDIT_THREADS,
    fetchLoops: e.AUDIT_FETCH_LOOPS,
    jobLockMs: e.AUDIT_JOB_LOCK_MS,
    unreachableRetryMs: e.AUDIT_UNREACHABLE_RETRY_MS,
    extraCa: e.AUDIT_CA_FILE,
    fallbackConcurrency: e.AUDIT_FALLBACK_CONCURRENCY,
  };
}

function costLimitsConfig(e: Environment): Config["costLimits"] {
  return {
    paid: {
      provider_pages: e.COST_PROVIDER_PAGES_PER_HOUR,
      live_checks: e.COST_LIVE_CHECKS_PER_HOUR,
      draft_attempts: e.COST_DRAFT_ATTEMPTS_PER_HOUR,
    },
    free_trial: {
      provider_pages: e.COST_PROVIDER_PAGES_PER_HOUR_FREE_TRIAL,
      live_checks: e.COST_LIVE_CHECKS_PER_HOUR_FREE_TRIAL,
      draft_attempts: e.COST_DRAFT_ATTEMPTS_PER_HOUR_FREE_TRIAL,
    },
  };
}

function mailConfig(e: Environment): Config["mail"] {
  return e.SMTP_URL === "log:"
    ? { kind: "log" }
    : e.SMTP_URL && e.MAIL_FROM
      ? { kind: "smtp", smtpUrl: e.SMTP_URL, from: e.MAIL_FROM }
      : undefined;
}

function stripeConfig(e: Environment): Config["stripe"] {
  return e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET
    ? {
        secretKey: e.STRIPE_SECRET_KEY,
        webhookSecret: e.STRIPE_WEBHOOK_SECRET,
        apiUrl: e.STRIPE_API_URL.replace(/\/+$/, ""),
      }
    : undefined;
}

/**
 * `loadConfig` for an entry point: a bad value prints its one message (naming the variable) and
 * exits 1, instead of a stack trace. `check` adds what one entry point needs beyond the schema
 * (the worker: REDIS_URL and DATABASE_URL), as a message.
 */
export function loadConfigOrExit(
  env: Record<string, string | undefined>,
  check?: (config: Config) => string | undefined,
): Config {
  try {
    const config = loadConfig(env);
    const problem = check?.(config);
    if (problem) throw new ConfigError(problem);
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

/** What a node runs with, each choice named: the start line, so an operator reads the mode at once. */
export interface NodeMode {
  mode: "embedded" | "distributed";
  /** Where audits and rate limits run: BullMQ workers and Redis, or this process (no REDIS_URL). */
  audits: "queue" | "in-process";
  mail: "smtp" | "log" | "none";
  sign_up: "invite" | "open";
  drafter: "template" | "llm";
  payments: "stripe" | "none";
  places: "google" | "fixture" | "none";
}

export function nodeModeOf(config: Config): NodeMode {
  return {
    // Embedded: PGlite in DATA_DIR, audits and rate limits in-process; distributed: PostgreSQL (and Redis).
    mode: config.database.kind === "pglite" ? "embedded" : "distributed",
    // PostgreSQL without REDIS_URL is "distributed" by its database but runs audits in-process.
    audits: config.redisUrl ? "queue" : "in-process",
    mail: config.mail?.kind ?? "none",
    sign_up: config.signUp,
    drafter: config.openai ? "llm" : "template",
    payments: config.stripe ? "stripe" : "none",
    places: config.places.kind,
  };
}

/** The start line's message: `mode embedded, mail log, sign-up open, ...`. */
export function describeNodeMode(mode: NodeMode): string {
  return `mode ${mode.mode}, audits ${mode.audits}, mail ${mode.mail}, sign-up ${mode.sign_up}, drafter ${mode.drafter}, payments ${mode.payments}, places ${mode.places}`;
}
