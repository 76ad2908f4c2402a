import { z } from "zod";

/**
 * The languages the service speaks (console, account mail, drafts, checkout, legal pages): the one
 * list every validator, type and per-language table is built from. A `Record<Language, ...>` of
 * words then fails to compile until a new language has its words.
 */
export const LANGUAGES = ["en", "fr"] as const;

export type Language = (typeof LANGUAGES)[number];

/** "en or fr", as validation messages and descriptions name the choice. */
export const LANGUAGE_CHOICES = LANGUAGES.join(" or ");

export const languageSchema = z.enum(LANGUAGES);

export const isLanguage = (value: string): value is Language =>
  (LANGUAGES as readonly string[]).includes(value);

/** The locale `Intl` formats dates and money with, in the page's language (Canadian service). */
export const INTL_LOCALES: Record<Language, string> = { en: "en-CA", fr: "fr-CA" };
