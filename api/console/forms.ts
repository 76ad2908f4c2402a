import { z } from "zod";
import { PageError } from "./page-error.ts";

/**
 * Every console form's body, declared once and parsed with zod (the content-type parser gives
 * `Record<string, string>`; nothing reads a field without going through one of these).
 */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((value) => (value === "" ? null : value));
/** A secret typed by a person: what is missing is empty, what is too long is cut (then refused by the check). */
const typed = (max: number) =>
  z
    .string()
    .default("")
    .transform((value) => value.slice(0, max));
const language = z.enum(["en", "fr"]);

export const signInForm = z.object({ email: typed(320), password: typed(1000), next: z.string().optional() });
const personName = z.string().trim().min(1).max(200);
const linkToken = z.string().default("");
/** A new account from an invite link: the invited address is the link's, never typed. */
export const inviteNewAccountForm = z.object({
  token: linkToken,
  name: personName,
  password: z.string().default(""),
});
/** Accepting an invite as the signed-in account. */
export const inviteAcceptForm = z.object({ token: linkToken });
export const forgotPasswordForm = z.object({ email: z.email().max(320) });
export const resetPasswordForm = z.object({ token: linkToken, new_password: z.string().default("") });
export const signUpForm = z.object({
  name: personName,
  email: z.email().max(320),
  password: z.string().default(""),
  agency_name: z.string().trim().min(1).max(200),
  language: language.optional(),
});
export const signUpConfirmForm = z.object({ token: linkToken });
export const profileForm = z.object({ name: z.string().trim().min(1).max(200), language });
export const passwordForm = z.object({ current_password: typed(1000), new_password: z.string().default("") });
export const settingsForm = z.object({
  language,
  sender_name: optionalText(200),
  sender_company: optionalText(200),
  offer: optionalText(500),
});
export const keyForm = z.object({ name: z.string().trim().min(1).max(200) });
export const inviteForm = z.object({ email: z.email().max(320), name: optionalText(200) });
export const draftForm = z.object({ locale: language.optional() });
/** Every form carries it; checked before the handler runs. */
export const csrfForm = z.object({ csrf_token: z.string().catch("") }).catch({ csrf_token: "" });

/** The form's fields as the schema declares them, or a 400 page naming what is wrong. */
export function parseForm<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new PageError(400, "invalidInput", { detail });
  }
  return parsed.data;
}
