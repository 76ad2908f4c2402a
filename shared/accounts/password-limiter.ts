import { createLimiter, type LimiterStore } from "../rate-limits.ts";
import { normalizeEmail } from "./accounts.ts";

/** Wrong passwords allowed per window: per account and client address together, and per address. */
export interface PasswordFailureLimits {
  perAccountAddress: number;
  perAddress: number;
  windowSeconds: number;
}

export type PasswordCheckOutcome<T> =
  | { outcome: "passed"; value: T }
  | { outcome: "failed" }
  | { outcome: "limited"; retryAfterSeconds: number };

/**
 * The one limiter of every password check (sign-in, password change). Only failures count, and
 * they count per account-and-address and per address, never per account alone: a stranger who
 * guesses an account's password from elsewhere spends their own address's allowance and never
 * locks the owner out of theirs.
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

type Bucket = "password_account_address" | "password_address";

export function createPasswordCheckLimiter(
  limits: PasswordFailureLimits,
  store: LimiterStore,
): PasswordCheckLimiter {
  const limiter = createLimiter<Bucket>(
    {
      password_account_address: { points: limits.perAccountAddress, windowSeconds: limits.windowSeconds },
      password_address: { points: limits.perAddress, windowSeconds: limits.windowSeconds },
    },
    store,
  );
  return {
    limits,
    async check<T>(email: string, address: string, check: () => Promise<T | null>) {
      const keys: [Bucket, string][] = [
        ["password_account_address", `${normalizeEmail(email)}\n${address}`],
        ["password_address", address],
      ];
      // The point is taken before the check, so that parallel guesses cannot all run before the
      // first failure is counted; it is given back when the attempt turns out not to be a failure.
      const decisions = await Promise.all(keys.map(([bucket, key]) => limiter.consume(bucket, key)));
      const giveBack = () => Promise.all(keys.map(([bucket, key]) => limiter.refund(bucket, key)));
      const refused = decisions.filter((decision) => !decision.allowed);
      if (refused.length > 0) {
        await giveBack();
        return {
          outcome: "limited",
          retryAfterSeconds: Math.max(1, ...refused.map((decision) => decision.resetSeconds)),
        };
      }
      let value: T | null;
      try {
        value = await check();
      } catch (error) {
        await giveBack();
        throw error;
      }
      if (value === null) return { outcome: "failed" };
      await giveBack();
      return { outcome: "passed", value };
    },
  };
}
