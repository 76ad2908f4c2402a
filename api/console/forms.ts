import { z } from "zod";
import { MAX_CREDIT_CAP } from "../../shared/credits/caps.ts";
import { languageSchema } from "../../shared/languages.ts";
import { recordOf } from "../../shared/lists.ts";
import { MAX_RESULTS, YES_NO_FILTERS } from "../../shared/search/schemas.ts";
import { decimalInteger } from "../../shared/text-input.ts";
import {
  WORKSPACE_TEXT_SETTING_MAX_LENGTHS,
  type WorkspaceSettings,
} from "../../shared/workspaces/workspaces.ts";
import type { MessageKey, Translator } from "./i18n.ts";
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
/** No password: it is chosen on the mailed link's page, by whoever owns the mailbox. */
export const signUpForm = z.object({
  name: personName,
  email: z.email().max(320),
  agency_name: z.string().trim().min(1).max(200),
  language: languageSchema.optional(),
});
export const signUpConfirmForm = z.object({ token: linkToken, password: z.string().default("") });
export const profileForm = z.object({ name: z.string().trim().min(1).max(200), language: languageSchema });
export const passwordForm = z.object({ current_password: typed(1000), new_password: z.string().default("") });
const settingLength = WORKSPACE_TEXT_SETTING_MAX_LENGTHS;
/** Every setting has its field (the compiler checks it against the one list of settings). */
const settingsFields = {
  language: languageSchema,
  sender_name: optionalText(settingLength.sender_name),
  sender_company: optionalText(settingLength.sender_company),
  // Absent (a form of before the field): left as it is.
  offer_en: optionalText(settingLength.offer_en).optional(),
  offer_fr: optionalText(settingLength.offer_fr).optional(),
  postal_address: optionalText(settingLength.postal_address).optional(),
} satisfies Record<keyof WorkspaceSettings, z.ZodType>;
export const settingsForm = z.object(settingsFields);
/** A spending cap as typed (kept as typed, so a refused form shows it again). */
const capText = z.string().max(100).catch("").default("");
/** The two spending caps of a key or a connected app, as typed. */
export const capsForm = z.object({ daily_credit_cap: capText, total_credit_cap: capText });
export type CapsTyped = z.output<typeof capsForm>;
export type CapField = keyof CapsTyped;
/** A new key: its name and caps as typed, checked by `readKeyForm` so errors sit beside the inputs. */
export const keyForm = capsForm.extend({ name: z.string().max(1000).catch("").default("") });
export type KeyTyped = z.output<typeof keyForm>;

/** Spaces a person may put between thousands (`1 000`, with a no-break or narrow no-break space). */
const THOUSANDS_SPACES = /[\s\u00a0\u202f]/g;

/**
 * The caps as typed, read: empty is no cap (null); a whole number of credits from 0 to
 * MAX_CREDIT_CAP otherwise. Each field that is not gets the message to show beside it.
 */
export function readCapsForm(typed: CapsTyped): {
  caps: { daily_credit_cap: number | null; total_credit_cap: number | null };
  errors: Partial<Record<CapField, MessageKey>>;
} {
  const errors: Partial<Record<CapField, MessageKey>> = {};
  const read = (field: CapField): number | null => {
    const text = typed[field].replace(THOUSANDS_SPACES, "");
    if (text === "") return null;
    if (!/^[0-9]{1,9}$/.test(text) || Number(text) > MAX_CREDIT_CAP) {
      errors[field] = "capInvalid";
      return null;
    }
    return Number(text);
  };
  return {
    caps: { daily_credit_cap: read("daily_credit_cap"), total_credit_cap: read("total_credit_cap") },
    errors,
  };
}

/** A new key's form, read: its name (1 to 200 characters once trimmed) and caps, or what to show beside each field. */
export function readKeyForm(typed: KeyTyped) {
  const { caps, errors } = readCapsForm(typed);
  const name = typed.name.trim();
  const nameError: MessageKey | undefined =
    name === "" ? "keyNameMissing" : name.length > 200 ? "keyNameTooLong" : undefined;
  return { name, caps, errors: { ...errors, ...(nameError ? { name: nameError } : {}) } };
}
export const inviteForm = z.object({ email: z.email().max(320), name: optionalText(200) });
export const draftForm = z.object({ locale: languageSchema.optional(), confirm: z.literal("on").optional() });
/** Buy: the pack's credits (the operation checks that such a pack is on sale). */
export const checkoutForm = z.object({ pack: z.coerce.number().int().min(1).max(1_000_000) });
/** The leads list's bulk draft: the ticked leads (one or many), one draft each. */
export const bulkDraftForm = z.object({
  locale: languageSchema.optional(),
  lead_id: z
    .union([z.string(), z.array(z.string())])
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .pipe(z.array(z.guid()).min(1).max(25)),
});
export const markForm = z.object({ status: z.enum(["sent", "skipped"]) });
/** A checkbox: present ("on") when ticked, absent otherwise. */
const checkbox = z
  .literal("on")
  .optional()
  .transform((value) => value === "on");
const row = z.string().trim().default("");
/**
 * The search form: five rows of place and trade (empty rows ignored), the filters, the limit.
 * Bounds (1 to 5 queries, 1 to 25 results, the free-trial cap) are the search operation's own.
 */
export const searchForm = z.object({
  location_1: row,
  category_1: row,
  location_2: row,
  category_2: row,
  location_3: row,
  category_3: row,
  location_4: row,
  category_4: row,
  location_5: row,
  category_5: row,
  max_results: decimalInteger(z.number().int().min(1).max(MAX_RESULTS)),
  min_rating: z
    .string()
    .trim()
    .default("")
    .transform((value) => (value === "" ? undefined : Number(value.replace(",", "."))))
    .pipe(z.number().min(0).max(5).optional()),
  ...recordOf(YES_NO_FILTERS, () => checkbox),
});
export type SearchForm = z.output<typeof searchForm>;
export const SEARCH_ROWS = [1, 2, 3, 4, 5] as const;

/** One do-not-contact entry as typed: its kind is read from its shape (shared/suppressions). */
export const suppressionForm = z.object({
  value: z.string().trim().min(1).max(300),
  reason: optionalText(500),
});
export const suppressionImportForm = z.object({ csv: z.string().max(500_000) });
export const doNotContactForm = z.object({ reason: optionalText(500).optional() });
/** Every form carries it; checked before the handler runs. */
export const csrfForm = z.object({ csrf_token: z.string().catch("") }).catch({ csrf_token: "" });

/** Every console form: the fields a refusal names are theirs (messages `field_<name>`). */
const consoleForms = {
  signInForm,
  inviteNewAccountForm,
  inviteAcceptForm,
  forgotPasswordForm,
  resetPasswordForm,
  signUpForm,
  signUpConfirmForm,
  profileForm,
  passwordForm,
  settingsForm,
  capsForm,
  keyForm,
  inviteForm,
  draftForm,
  checkoutForm,
  bulkDraftForm,
  markForm,
  searchForm,
  suppressionForm,
  suppressionImportForm,
  doNotContactForm,
};
/** A field of one of the console's forms (the compiler checks each has its name in both languages). */
export type FormField = {
  [Form in keyof typeof consoleForms]: keyof z.input<(typeof consoleForms)[Form]> & string;
}[keyof typeof consoleForms];
const FORM_FIELDS = new Set<string>(Object.values(consoleForms).flatMap((form) => Object.keys(form.shape)));

/** Why a field was refused, as the console says it (messages `fieldReason_<reason>`, `{bound}` its limit). */
export type FieldReason =
  | "missing"
  | "tooShort"
  | "tooLong"
  | "notNumber"
  | "tooSmall"
  | "tooBig"
  | "notEmail"
  | "notOffered"
  | "unstorable"
  | "alreadyMember"
  | "alreadyInvited"
  | "invalid";

/** One refused field, said in the member's words when the page is drawn (`describeProblems`). */
export interface FieldProblem {
  /** Null: a field no form declares (a hand-made request); the reason is said alone. */
  field: FormField | null;
  reason: FieldReason;
  bound?: number;
}

export const formFieldOf = (name: string): FormField | null =>
  FORM_FIELDS.has(name) ? (name as FormField) : null;

/** What was sent at the issue's path (zod's issues do not carry it). */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * What zod found wrong with `sent` (the value at the issue's path), as reasons the console words in
 * each language (never zod's English).
 */
export function problemOf(issue: z.core.$ZodIssue, field: FormField | null, sent: unknown): FieldProblem {
  const reasonOf = (): Omit<FieldProblem, "field"> => {
    switch (issue.code) {
      case "too_small": {
        const bound = Number(issue.minimum);
        if (issue.origin === "string" || issue.origin === "array")
          return bound <= 1 ? { reason: "missing" } : { reason: "tooShort", bound };
        return { reason: "tooSmall", bound };
      }
      case "too_big":
        return { reason: issue.origin === "string" ? "tooLong" : "tooBig", bound: Number(issue.maximum) };
      case "invalid_format":
        return { reason: issue.format === "email" ? "notEmail" : "invalid" };
      case "invalid_type":
        if (sent === undefined || sent === "") return { reason: "missing" };
        return { reason: issue.expected === "number" ? "notNumber" : "invalid" };
      case "invalid_value":
        return { reason: "notOffered" };
      default:
        return { reason: "invalid" };
    }
  };
  return { field, ...reasonOf() };
}

/** A 400 page naming each refused field and why, in the member's language. */
export const formError = (problems: readonly FieldProblem[]): PageError =>
  new PageError(400, "invalidInput", {}, problems);

/** The problems as one line: "email: not an email address; name: missing", in the page's language. */
export function describeProblems(t: Translator, problems: readonly FieldProblem[]): string {
  return problems
    .map((problem) => {
      const reason = t.t(`fieldReason_${problem.reason}`, { bound: problem.bound ?? "" });
      return problem.field === null ? reason : `${t.t(`field_${problem.field}`)}${t.colon} ${reason}`;
    })
    .join(t.language === "fr" ? "\u00a0; " : "; ");
}

/** The form's fields as the schema declares them, or a 400 page naming what is wrong. */
export function parseForm<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    throw formError(
      parsed.error.issues.map((issue) =>
        problemOf(issue, formFieldOf(String(issue.path[0] ?? "")), valueAt(body, issue.path)),
      ),
    );
  }
  return parsed.data;
}
