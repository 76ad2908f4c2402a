/**
 * Where the member console lives. Account mail links into it from below the console (the
 * password-failure warning is sent by the limiter the node's services build), so the address
 * lives below both, as the legal pages' do (`legal-pages.ts`).
 */
export const CONSOLE_PREFIX = "/app";

/** The console's forgot-password page, as a link in a mail. */
export const forgotPasswordUrl = (publicUrl: string): string =>
  `${publicUrl}${CONSOLE_PREFIX}/forgot-password`;
