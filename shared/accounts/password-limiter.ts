import { addressKey } from "../client-address.ts";
import { createLimiter, type LimiterStore } from "../rate-limits.ts";
import { normalizeEmail } from "./accounts.ts";

/**
 * Wrong passwords allowed per window: per account and client address together, per address (an
 * IPv6 client by its /64), and per account across every address (past it, checks slow down).
 */
export interface PasswordFailureLimits {
  perAccountAddress: number;
  perAddress: number;
  /** Failures of one account from all addresses together before each check of it waits `slowDownMs`. */
  perAccount: number;
  slowDownMs: number;
  windowSeconds: number;
}

/** `slowed`: the account's failures had passed their budget, so the check waited `slowDownMs` first. */
type PasswordCheckOutcome<T> =
  | { outcome: "passed"; value: T; slowed: boolean }
  | { outcome: "failed"; slowed: boolean }
  | { outcome: "limited"; retryAfterSeconds: number };

/** What the limiter tells its owner: an account's budget across addresses was just spent. */
export interface PasswordLimiterEvents {
  /** Once per window and account (on the failure that spends the budget), for the owner's mail. */
  accountBudgetSpent?(email: string): void;
}

/**
 * The one limiter of every password check (sign-in, password change). Only failures count:
 * per account-and-address and per address, which refuse; and per account across every address,
 * which never refuses (a stranger must not lock the owner out) but slows: once the account's
 * failures of the window pass `perAccount`, every check of it waits `slowDownMs` before the
 * password is looked at, and the owner is told by mail once per window.
 */
export interface PasswordCheckLimiter {
  readonly limits: PasswordFailureLimits;
  /**
   * Runs `check` (null: wrong password) unless this account-and-address or this address has used
   * up its failures; then the password is not checked at all. Throws `RateLimitStoreError` when
   * the store cannot answer.
   */
  check<T>(email: string, address: string, check: () => Promise<T | null>): Promise<PasswordCheckOutcome<T>>;
}

type Bucket = "password_account_address" | "password_address" | "password_account";

export function createPasswordCheckLimiter(
  limits: PasswordFailureLimits,
  store: LimiterStore,
  events: PasswordLimiterEvents = {},
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): PasswordCheckLimiter {
  const limiter = createLimiter<Bucket>(
    {
      password_account_address: { points: limits.perAccountAddress, windowSeconds: limits.windowSeconds },
      password_address: { points: limits.perAddress, windowSeconds: limits.windowSeconds },
      // Counted past its points (the point is taken whatever the answer): how far past says how
      // many checks were slowed, and the crossing is the one moment the owner is told.
      password_account: { points: limits.perAccount, windowSeconds: limits.windowSeconds },
    },
    store,
  );
  return {
    limits,
    async check<T>(email: string, address: string, check: () => Promise<T | null>) {
      const account = normalizeEmail(email);
      const client = addressKey(address);
      const refusing: [Bucket, string][] = [
        ["password_account_address", `${account}\n${client}`],
        ["password_address", client],
      ];
      const keys: [Bucket, string][] = [...refusing, ["password_account", account]];
      // The point is taken before the check, so that parallel guesses cannot all run before the
      // first failure is counted; it is given back when the attempt turns out not to be a failure.
      const decisions = await Promise.all(keys.map(([bucket, key]) => limiter.consume(bucket, key)));
      const giveBack = (which: [Bucket, string][]) =>
        Promise.all(which.map(([bucket, key]) => limiter.refund(bucket, key)));
      const refused = decisions.slice(0, refusing.length).filter((decision) => !decision.allowed);
      if (refused.length > 0) {
        await giveBack(keys);
        return {
          outcome: "limited",
          retryAfterSeconds: Math.max(1, ...refused.map((decision) => decision.resetSeconds)),
        };
      }
      const accountDecision = decisions[refusing.length];
      const slowed = accountDecision !== undefined && !accountDecision.allowed;
      if (slowed) await sleep(limits.slowDownMs);
      let value: T | null;
      try {
        value = await check();
      } catch (error) {
        await giveBack(keys);
        throw error;
      }
      if (value === null) {
        // The failure that spent the account's budget: its owner hears of it, once per window.
        if (accountDecision?.allowed && accountDecision.remaining === 0) events.accountBudgetSpent?.(account);
        return { outcome: "failed", slowed };
      }
      await giveBack(keys);
      return { outcome: "passed", value, slowed };
    },
  };
}
