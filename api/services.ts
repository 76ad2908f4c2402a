import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { findAccountByEmail } from "../shared/accounts/accounts.ts";
import {
  createPasswordCheckLimiter,
  type PasswordCheckLimiter,
} from "../shared/accounts/password-limiter.ts";
import { createAuditStack } from "../shared/audit/audit-stack.ts";
import type { SiteAuditor } from "../shared/audit/auditor.ts";
import { createInProcessAuditor } from "../shared/audit/in-process-auditor.ts";
import { createQueueAuditor } from "../shared/audit/queue.ts";
import type { BearerVerifier } from "../shared/auth.ts";
import type { Config } from "../shared/config.ts";
import { forgotPasswordUrl } from "../shared/console-address.ts";
import { type CostGuard, createCostGuard } from "../shared/cost-guard.ts";
import type { Db } from "../shared/db/database.ts";
import { migrateToLatest } from "../shared/db/migrate.ts";
import { describeUrl, type OpenedDatabase, openDatabase, waitFor } from "../shared/db/startup.ts";
import type { DraftGenerator } from "../shared/drafting/generator.ts";
import { createDraftGenerator } from "../shared/drafting/index.ts";
import { instrumentDraftGenerator } from "../shared/drafting/instrumented.ts";
import { accountMail } from "../shared/mail/account-mail.ts";
import { instrumentMailer } from "../shared/mail/instrumented.ts";
import { createLogMailer, createSmtpMailer, type Mailer } from "../shared/mail/mailer.ts";
import { createMetrics, type Metrics } from "../shared/metrics.ts";
import { cleanUpOAuth, type OAuthCleanupResult } from "../shared/oauth/cleanup.ts";
import { createOAuthAccessTokenVerifier } from "../shared/oauth/tokens.ts";
import type { OperationServices } from "../shared/operations/operation.ts";
import { createPayments, type Payments } from "../shared/payments/payments.ts";
import { createStripeGateway } from "../shared/payments/stripe-gateway.ts";
import { createFixturePlacesProvider } from "../shared/places/fixture-places.ts";
import { createGooglePlacesProvider } from "../shared/places/google-places.ts";
import { instrumentPlacesProvider } from "../shared/places/instrumented.ts";
import type { PlacesProvider } from "../shared/places/types.ts";
import {
  type AddressLimiter,
  createAddressLimiter,
  createLimiter,
  createRateLimiter,
  type Limiter,
  type LimiterStore,
  perAddress,
  type RateLimiter,
  watchRateLimitFallback,
} from "../shared/rate-limits.ts";
import { createRedisConnection, logRedisConnection } from "../shared/redis.ts";
import { createApiKeyVerifier, KeyUsageRecorder } from "../shared/workspaces/api-keys.ts";

/**
 * Everything the HTTP layer needs, built once from the config and closed once at shutdown; what the
 * workspace operations run on among it.
 */
export interface Services extends OperationServices {
  config: Config;
  db: Db;
  redis: Redis | undefined;
  keyUsage: KeyUsageRecorder;
  bearerVerifiers: BearerVerifier[];
  rateLimiter: RateLimiter;
  /** Per client address: unauthenticated OAuth endpoints and wrong admin tokens. */
  addressLimiter: AddressLimiter;
  costGuard: CostGuard;
  /** The scheduled OAuth clean-up, run once now (it also runs every 10 minutes). */
  runOAuthCleanup(): Promise<OAuthCleanupResult>;
  /** Every password check (sign-in, password change): failures per account-and-address and per address. */
  passwordLimiter: PasswordCheckLimiter;
  /** Per client address, per hour: sign-ups and reset requests (each sends a mail). */
  accountMailLimiter: Limiter<"account_mail">;
  /** Console invites per hour: per inviting account and per workspace (INVITES_PER_HOUR each). */
  inviteLimiter: Limiter<"invites_account" | "invites_workspace">;
  /** Account mail through SMTP_URL; undefined without it (links are then shown to their maker). */
  mailer: Mailer | undefined;
  places: PlacesProvider | undefined;
  auditor: SiteAuditor;
  draftGenerator: DraftGenerator;
  /** This process's Prometheus registry (GET /metrics). */
  metrics: Metrics;
  /** Buying credits through Stripe Checkout; undefined without STRIPE_SECRET_KEY (credits come from the operator). */
  payments: Payments | undefined;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  db?: Db;
  places?: PlacesProvider;
  auditor?: SiteAuditor;
  rateLimitKeyPrefix?: string;
  /** Told what start-up waits for (the port's /readyz says it meanwhile). */
  onWaiting?: (what: string) => void;
}

/** A Redis that hangs (frozen, not down) costs a rate-limit check this much before its fallback. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/** How often stale consent requests, old codes and never-approved clients are deleted. */
const OAUTH_CLEANUP_INTERVAL_MS = 10 * 60_000;

export async function createServices(
  config: Config,
  logger: Logger,
  overrides: ServiceOverrides = {},
): Promise<Services> {
  const metrics = createMetrics({
    onCollectError: (error) => logger.warn({ err: error }, "could not read the audit queue counts"),
  });
  let opened: OpenedDatabase | undefined;
  let db: Db;
  if (overrides.db) {
    db = overrides.db;
    await migrateToLatest(db);
  } else {
    opened = await openDatabase(config, logger, overrides.onWaiting);
    db = opened.db;
  }

  let redis: Redis | undefined;
  try {
    redis = await connectRedis(config, logger, overrides.onWaiting);
  } catch (error) {
    await opened?.close();
    throw error;
  }

  const keyUsage = new KeyUsageRecorder(db);
  const flushTimer = setInterval(() => {
    keyUsage.flush().catch((error: unknown) => logger.error({ err: error }, "could not record key usage"));
  }, config.keyUsageFlushMs);
  flushTimer.unref();

  const runOAuthCleanup = async () => {
    const started = performance.now();
    const removed = await cleanUpOAuth(db, { unusedClientTtlSeconds: config.oauth.unusedClientTtlSeconds });
    logger.info({ ...removed, duration_ms: Math.round(performance.now() - started) }, "oauth clean-up");
    return removed;
  };
  const cleanupTimer = setInterval(() => {
    runOAuthCleanup().catch((error: unknown) => logger.error({ err: error }, "oauth clean-up failed"));
  }, OAUTH_CLEANUP_INTERVAL_MS);
  cleanupTimer.unref();

  // Every limiter counts in the same store: Redis when configured (shared by all nodes), else memory;
  // while Redis is unreachable, in this node's memory (logged and counted by the watcher).
  const fallback = redis ? watchRateLimitFallback(redis, { logger, metrics }) : undefined;
  const limiterStore = { redis, keyPrefix: overrides.rateLimitKeyPrefix, fallback };
  const rateLimiter = createRateLimiter({
    readPerMinute: config.rateLimits.readPerMinute,
    searchPerMinute: config.rateLimits.searchPerMinute,
    ...limiterStore,
  });
  const consoleRateLimiter = createRateLimiter({
    ...config.consoleRateLimits,
    ...limiterStore,
    keyPrefix: `${limiterStore.keyPrefix ?? "rl"}:console`,
  });
  const addressLimiter = createAddressLimiter(config.addressLimits, limiterStore);
  const costGuard = createCostGuard(config.costLimits, limiterStore);
  const mailer = createAccountMailer(config, logger, metrics);
  const passwordLimiter = createPasswordLimiter(config, db, limiterStore, logger, mailer);
  const { inviteLimiter, accountMailLimiter } = createAccountMailLimiters(config, limiterStore);

  const auditor = overrides.auditor ?? (await createAuditor(config, db, metrics, logger));
  metrics.observeAuditQueue(async () => auditor.queueCounts?.());

  const places = overrides.places ?? createPlacesProvider(config, logger);

  return {
    config,
    places: places && instrumentPlacesProvider(places, metrics),
    auditor,
    draftGenerator: instrumentDraftGenerator(
      createDraftGenerator({ openai: config.openai, logger }),
      metrics,
    ),
    metrics,
    payments:
      config.stripe &&
      createPayments({
        db,
        gateway: createStripeGateway(config.stripe),
        sale: { packs: config.creditPacks, currency: config.creditCurrency },
        metrics,
      }),
    db,
    redis,
    keyUsage,
    bearerVerifiers: [createApiKeyVerifier(db, keyUsage), createOAuthAccessTokenVerifier(db)],
    rateLimiter,
    consoleRateLimiter,
    addressLimiter,
    costGuard,
    runOAuthCleanup,
    passwordLimiter,
    accountMailLimiter,
    inviteLimiter,
    mailer,
    async close() {
      await mailer?.drain();
      mailer?.close();
      clearInterval(flushTimer);
      clearInterval(cleanupTimer);
      await keyUsage
        .flush()
        .catch((error: unknown) => logger.error({ err: error }, "could not record key usage"));
      await auditor.close();
      fallback?.close();
      redis?.disconnect();
      await opened?.close();
    },
  };
}

/** What limits account mail: invites per person and per workspace, sign-up and reset mail per address. */
function createAccountMailLimiters(
  config: Config,
  limiterStore: LimiterStore,
): Pick<Services, "inviteLimiter" | "accountMailLimiter"> {
  const inviteLimiter = createLimiter<"invites_account" | "invites_workspace">(
    {
      invites_account: { points: config.invitesPerHour, windowSeconds: 3600 },
      invites_workspace: { points: config.invitesPerHour, windowSeconds: 3600 },
    },
    limiterStore,
  );
  // Keyed by the client's address (an IPv6 client by its /64).
  const accountMailLimiter = perAddress(
    createLimiter<"account_mail">(
      { account_mail: { points: config.accountMailPerAddressPerHour, windowSeconds: 3600 } },
      limiterStore,
    ),
  );
  return { inviteLimiter, accountMailLimiter };
}

/** Account mail as configured: through SMTP, written to the log (`SMTP_URL=log:`), or none. */
function createAccountMailer(config: Config, logger: Logger, metrics: Metrics): Mailer | undefined {
  if (config.mail?.kind === "smtp")
    return instrumentMailer(createSmtpMailer({ ...config.mail, logger }), metrics);
  if (config.mail?.kind === "log") return instrumentMailer(createLogMailer(logger), metrics);
  return undefined;
}

/** The places provider as configured: the offline fixture, Google Places, or none. */
function createPlacesProvider(config: Config, logger: Logger): PlacesProvider | undefined {
  if (config.places.kind === "fixture") return createFixturePlacesProvider({ file: config.places.file });
  if (config.places.kind === "google")
    return createGooglePlacesProvider({
      apiKey: config.places.apiKey,
      baseUrl: config.places.baseUrl,
      logger,
    });
  return undefined;
}

/**
 * The rate limits' Redis, when configured, reachable before start-up goes on. Rate-limit counts
 * fail fast when Redis is away (no offline queue, a command timeout for a Redis that hangs), so
 * that the limiters answer from this node's own counts at once.
 */
async function connectRedis(
  config: Config,
  logger: Logger,
  onWaiting: ((what: string) => void) | undefined,
): Promise<Redis | undefined> {
  if (!config.redisUrl) return undefined;
  const redis = createRedisConnection(config.redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    lazyConnect: false,
  });
  logRedisConnection(redis, logger, "rate limits");
  try {
    await waitFor(
      `Redis at ${describeUrl(config.redisUrl)}`,
      config.startupWaitMs,
      logger,
      async () => {
        await redis.ping();
      },
      onWaiting,
    );
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return redis;
}

/** Every password check counted; an account's owner is told (once per window) when its failures pass the budget. */
function createPasswordLimiter(
  config: Config,
  db: Db,
  limiterStore: LimiterStore,
  logger: Logger,
  mailer: Mailer | undefined,
): PasswordCheckLimiter {
  return createPasswordCheckLimiter(config.passwordFailureLimits, limiterStore, {
    // The owner is told that their account's failures passed its budget (once per window).
    accountBudgetSpent(email) {
      logger.warn(
        { failures: config.passwordFailureLimits.perAccount },
        "password failures: an account's budget is spent",
      );
      if (!mailer) return;
      findAccountByEmail(db, email)
        .then((account) => {
          if (!account) return;
          mailer.queue(
            accountMail({
              kind: "password_failures",
              failures: config.passwordFailureLimits.perAccount,
              minutes: Math.round(config.passwordFailureLimits.windowSeconds / 60),
              to: account.email,
              language: account.language,
              link: forgotPasswordUrl(config.publicUrl),
            }),
          );
        })
        .catch((error: unknown) => logger.error({ err: error }, "could not mail an account's owner"));
    },
  });
}

/**
 * With Redis, audits go to the BullMQ workers (run here while Redis is unreachable); without, the
 * worker's own audit stack runs in this process.
 */
async function createAuditor(config: Config, db: Db, metrics: Metrics, logger: Logger): Promise<SiteAuditor> {
  if (config.redisUrl) {
    // While Redis is away, this node runs the checks itself, at most `fallbackConcurrency` at once
    // (the analysis threads start with the first such audit; most nodes never start them).
    return createQueueAuditor({
      redisUrl: config.redisUrl,
      prefix: config.queuePrefix,
      db,
      // Fetching on this node's own event loop: a fallback that seldom runs needs no threads waiting.
      whileRedisIsAway: await createLocalAuditor(config, db, metrics, config.audit.fallbackConcurrency, 0),
      logger,
    });
  }
  // Embedded mode fetches on this process's event loop for now: with fetch loops, a search whose
  // site's AAAA lookup hangs ran past its budget in test/integration/audit/email-status.test.ts
  // (not understood yet; see docs/operating.md "Fetch loops"). AUDIT_FETCH_LOOPS is the worker's.
  return createLocalAuditor(config, db, metrics, config.audit.concurrency, 0);
}

/** The worker's own audit stack, run in this process. */
async function createLocalAuditor(
  config: Config,
  db: Db,
  metrics: Metrics,
  concurrency: number,
  fetchLoops: number,
): Promise<SiteAuditor> {
  const stack = createAuditStack(config, { db, metrics }, { lazyPool: true, fetchLoops });
  // The fetch loops load their code at start, not at the first search (which would wait for it).
  await stack.ready();
  const auditor = createInProcessAuditor(stack.run, {
    concurrency,
    confirmAfterMs: config.audit.unreachableRetryMs,
    onQueueWait: (seconds) => metrics.auditQueueWait(seconds),
  });
  return {
    audit: (target, deadline, options) => auditor.audit(target, deadline, options),
    queueCounts: () => auditor.queueCounts(),
    async close() {
      await auditor.close();
      await stack.close();
    },
  };
}
