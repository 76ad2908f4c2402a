import { INTL_LOCALES, type Language } from "../../shared/languages.ts";
import { en, type MessageKey, type Messages } from "./messages/en.ts";
import { fr } from "./messages/fr.ts";

export type { MessageKey };

/** A message said in the singular or the plural: both `<key>_one` and `<key>_other` exist. */
type CountedKey = {
  [K in MessageKey]: K extends `${infer Base}_one`
    ? `${Base}_other` extends MessageKey
      ? Base
      : never
    : never;
}[MessageKey];

const catalogs: Record<Language, Messages> = { en, fr };

export interface Translator {
  language: Language;
  t(key: MessageKey, values?: Record<string, string | number>): string;
  /** The message for `count` ({count} in it) in the singular or the plural, by the language's rule (French: 0 and 1 singular). */
  count(key: CountedKey, count: number, values?: Record<string, string | number>): string;
  date(value: Date | null): string;
  /** The colon after a label: French puts a no-break space before it ("Objet\u00a0:"). */
  colon: string;
}

export function translator(language: Language): Translator {
  const messages = catalogs[language];
  const dates = new Intl.DateTimeFormat(INTL_LOCALES[language], {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "UTC",
  });
  const plurals = new Intl.PluralRules(INTL_LOCALES[language]);
  const t: Translator["t"] = (key, values = {}) =>
    messages[key].replace(/\{(\w+)\}/g, (match, name: string) =>
      values[name] === undefined ? match : String(values[name]),
    );
  return {
    language,
    t,
    count: (key, count, values = {}) =>
      t(`${key}_${plurals.select(count) === "one" ? "one" : "other"}`, { ...values, count }),
    date: (value) => (value ? `${dates.format(value)} UTC` : messages.never),
    colon: language === "fr" ? "\u00a0:" : ":",
  };
}

/** Before sign-in: the browser's preference, French when it asks for it first. */
export function languageFromHeader(acceptLanguage: string | undefined): Language {
  return /^\s*fr\b/i.test(acceptLanguage ?? "") ? "fr" : "en";
}
