import type { MessageKey } from "./i18n.ts";

/** A page answer other than 200: its status and what to tell the person. */
export class PageError extends Error {
  readonly status: number;
  readonly key: MessageKey;
  readonly values: Record<string, string | number>;
  constructor(status: number, key: MessageKey, values: Record<string, string | number> = {}) {
    super(key);
    this.status = status;
    this.key = key;
    this.values = values;
  }
}
