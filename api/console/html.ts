import { escapeHtml } from "../../shared/html-escape.ts";

/**
 * A tiny escaping template: every interpolated value is HTML-escaped unless it is already
 * `SafeHtml` (the result of another `html` template), so a page cannot forget to escape.
 */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

export type Interpolation =
  | SafeHtml
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? "");
  });
  return new SafeHtml(out);
}
