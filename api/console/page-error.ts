import type { FieldProblem } from "./forms.ts";
import type { MessageKey } from "./i18n.ts";

/** A page answer other than 200: its status and what to tell the person. */
export class PageError extends Error {
  readonly status: number;
  readonly key: MessageKey;
  readonly values: Record<string, string | number>;
  /** A refused form's fields: said as the message's `{detail}` in the page's language. */
  readonly problems: readonly FieldProblem[];
  constructor(
    status: number,
    key: MessageKey,
    values: Record<string, string | number> = {},
    problems: readonly FieldProblem[] = [],
  ) {
    super(key);
    this.status = status;
    this.key = key;
    this.values = values;
    this.problems = problems;
  }
}
