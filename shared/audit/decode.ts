import iconv from "iconv-lite";

/**
 * How far into the body a `<meta charset>` is looked for. The HTML standard's prescan stops at
 * 1024 bytes; real pages often put several kilobytes of comments and scripts before it.
 */
const META_PRESCAN_BYTES = 4096;

/**
 * Labels that browsers decode as another, wider encoding (WHATWG Encoding Standard): a page that
 * says "iso-8859-1" and uses 0x80-0x9F (curly quotes, euro) means windows-1252.
 */
const BROWSER_ENCODING_ALIASES: Readonly<Record<string, string>> = {
  "iso-8859-1": "windows-1252",
  iso8859_1: "windows-1252",
  "iso8859-1": "windows-1252",
  "iso_8859-1": "windows-1252",
  latin1: "windows-1252",
  l1: "windows-1252",
  "us-ascii": "windows-1252",
  ascii: "windows-1252",
  "ansi_x3.4-1968": "windows-1252",
  cp819: "windows-1252",
  ibm819: "windows-1252",
  "iso-ir-100": "windows-1252",
  csisolatin1: "windows-1252",
  "iso-8859-9": "windows-1254",
  "iso8859-9": "windows-1254",
  latin5: "windows-1254",
  "iso-8859-11": "windows-874",
  "tis-620": "windows-874",
  gb2312: "gbk",
  "x-gbk": "gbk",
  "ks_c_5601-1987": "cp949",
  "euc-kr": "cp949",
  "x-sjis": "shift_jis",
  // A meta tag can't truthfully declare UTF-16 (the tag itself was read as ASCII).
  "utf-16": "utf-8",
  "utf-16le": "utf-8",
  "utf-16be": "utf-8",
};

/**
 * Decodes a response body with its declared charset: byte order mark, then the Content-Type
 * header's `charset=`, then a `<meta charset>` / `<meta http-equiv="Content-Type">` near the top;
 * undeclared or unknown charsets decode as UTF-8 when the bytes are valid UTF-8, else as
 * windows-1252 (what browsers do for Western pages). Never throws.
 */
export function decodeHtml(body: Uint8Array, contentType: string | null): string {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);

  const bomEncoding = encodingFromByteOrderMark(bytes);
  if (bomEncoding !== null) return iconv.decode(bytes, bomEncoding);

  const declared =
    supportedEncoding(charsetFromContentType(contentType)) ?? supportedEncoding(charsetFromMetaTags(bytes));
  if (declared !== null) return iconv.decode(bytes, declared);

  return isValidUtf8(bytes) ? iconv.decode(bytes, "utf-8") : iconv.decode(bytes, "windows-1252");
}

function encodingFromByteOrderMark(bytes: Buffer): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return null;
}

/** Reads `charset=` from a Content-Type header value (quoted or not). */
export function charsetFromContentType(contentType: string | null): string | null {
  if (contentType === null) return null;
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"',]+))/i.exec(contentType);
  if (match === null) return null;
  const label = (match[1] ?? match[2] ?? match[3] ?? "").trim();
  return label === "" ? null : label;
}

/**
 * Finds the charset declared by the first `<meta charset>` or
 * `<meta http-equiv="Content-Type" content="...; charset=...">` in the first bytes, ignoring
 * comments. The bytes are read as latin1 so that every byte maps to one character.
 */
function charsetFromMetaTags(bytes: Buffer): string | null {
  const head = bytes
    .subarray(0, META_PRESCAN_BYTES)
    .toString("latin1")
    .replace(/<!--[\s\S]*?(?:-->|$)/g, "");
  for (const metaTag of head.matchAll(/<meta\b[^>]*>/gi)) {
    const tag = metaTag[0];
    const charsetAttribute = /[\s/]charset\s*=\s*["']?\s*([^\s"'/>;]+)/i.exec(tag);
    if (charsetAttribute?.[1] !== undefined) return charsetAttribute[1];
    if (/[\s/]http-equiv\s*=\s*["']?\s*content-type/i.test(tag)) {
      const content = /[\s/]content\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
      const charset = charsetFromContentType(`;${content?.[1] ?? content?.[2] ?? content?.[3] ?? ""}`);
      if (charset !== null) return charset;
    }
  }
  return null;
}

/** Maps a charset label to an encoding iconv-lite knows, with browsers' aliases; null if unknown. */
function supportedEncoding(label: string | null): string | null {
  if (label === null) return null;
  const normalized = label.trim().toLowerCase();
  const encoding = BROWSER_ENCODING_ALIASES[normalized] ?? normalized;
  return iconv.encodingExists(encoding) ? encoding : null;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function isValidUtf8(bytes: Buffer): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
