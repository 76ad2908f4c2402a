/**
 * Obsolete presentational and legacy elements of the HTML standard's "non-conforming features".
 * Left out: `rb`/`rtc` (still used for ruby annotations), `param` and `menuitem` (not a sign of
 * an old page by themselves).
 */
export const NON_CONFORMING_TAGS: ReadonlySet<string> = new Set([
  "acronym",
  "applet",
  "basefont",
  "bgsound",
  "big",
  "blink",
  "center",
  "dir",
  "font",
  "frame",
  "frameset",
  "isindex",
  "keygen",
  "listing",
  "marquee",
  "multicol",
  "nextid",
  "nobr",
  "noembed",
  "noframes",
  "plaintext",
  "spacer",
  "strike",
  "tt",
  "xmp",
]);
