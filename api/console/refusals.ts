import { ApiError, type RefusalReason } from "../../shared/errors.ts";
import type { MessageKey } from "./i18n.ts";

/**
 * Every refusal reason in the member's words. A record over the closed union: a new reason
 * without its message, or a message missing from either catalog (en, fr), does not compile.
 * A page may word a reason its own way (`{ ...REFUSAL_MESSAGES, account_exists: ... }`).
 */
export const REFUSAL_MESSAGES: Record<RefusalReason, MessageKey> = {
  wrong_credentials: "wrongCredentials",
  wrong_password: "wrongPassword",
  too_many_attempts: "tooManyAttempts",
  too_short: "tooShort",
  too_long: "tooLong",
  disposable_address: "disposableAddress",
  account_exists: "accountExistsSignIn",
  wrong_account: "inviteWrongAccount",
  sign_up_invalid: "signUpInvalid",
  reset_invalid: "resetInvalid",
  invite_invalid: "inviteInvalid",
  list_full: "suppressionListFull",
};

/** The reason of a refusal, or undefined for any other error (which the page rethrows). */
export const refusalOf = (error: unknown): RefusalReason | undefined =>
  error instanceof ApiError ? error.reason : undefined;

/** How long a rate-limited refusal asks to wait (its Retry-After, else a minute), and in whole minutes. */
export function retryWait(error: ApiError): { seconds: number; minutes: number } {
  const seconds = Number(error.headers["Retry-After"] ?? 60);
  return { seconds, minutes: Math.ceil(seconds / 60) };
}
