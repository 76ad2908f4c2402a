import fc from "fast-check";
import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import analyzeTask from "../../../shared/audit/analyze-task.ts";
import { charsetFromContentType, decodeHtml } from "../../../shared/audit/decode.ts";

const ascii = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "latin1"));

/** Bytes of an HTML page: ASCII markup around raw body bytes. */
function page(head: string, bodyBytes: number[]): Uint8Array {
  return new Uint8Array([
    ...ascii(`<html><head>${head}</head><body><p>`),
    ...bodyBytes,
    ...ascii("</p></body></html>"),
  ]);
}

const COPYRIGHT_1252 = 0xa9;
const EURO_1252 = 0x80;
const E_ACUTE_1252 = 0xe9;

describe("decodeHtml", () => {
  it("decodes a windows-1252 © byte with the meta charset", () => {
    const html = decodeHtml(page('<meta charset="windows-1252">', [COPYRIGHT_1252, ...ascii(" 2009")]), null);
    expect(html).toContain("<p>© 2009</p>");
  });

  it("reads the charset of <meta http-equiv=Content-Type>", () => {
    const head = '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">';
    expect(decodeHtml(page(head, [E_ACUTE_1252]), null)).toContain("<p>é</p>");
  });

  it("reads an unquoted http-equiv content attribute", () => {
    const head = "<meta http-equiv=content-type content=text/html;charset=windows-1252>";
    expect(decodeHtml(page(head, [E_ACUTE_1252]), null)).toContain("<p>é</p>");
  });

  it("gives the Content-Type header precedence over the meta tag", () => {
    const utf8Copyright = [0xc2, 0xa9];
    const html = decodeHtml(page('<meta charset="windows-1252">', utf8Copyright), "text/html; charset=UTF-8");
    expect(html).toContain("<p>©</p>");
  });

  it.each(["latin1", "iso-8859-1", "ISO-8859-1", '"iso-8859-1"', "us-ascii"])(
    "decodes header charset %s as windows-1252 (like browsers)",
    (label) => {
      const html = decodeHtml(page("", [COPYRIGHT_1252, EURO_1252]), `text/html; charset=${label}`);
      expect(html).toContain("<p>©€</p>");
    },
  );

  it("decodes windows-1255 (Hebrew)", () => {
    const hebrew = [...iconv.encode("משנה", "windows-1255")];
    const html = decodeHtml(
      page('<meta http-equiv="Content-Type" content="text/html; charset=windows-1255">', hebrew),
      null,
    );
    expect(html).toContain("<p>משנה</p>");
  });

  it("ignores a meta charset inside a comment", () => {
    const head = '<!-- <meta charset="windows-1255"> --><meta charset="windows-1252">';
    expect(decodeHtml(page(head, [COPYRIGHT_1252]), null)).toContain("<p>©</p>");
  });

  it("lets a byte order mark win over the declared charset, and strips it", () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from("<p>é</p>", "utf8")]);
    expect(decodeHtml(body, "text/html; charset=windows-1252")).toBe("<p>é</p>");
  });

  it("treats a meta tag claiming UTF-16 as UTF-8 (the tag itself was readable as ASCII)", () => {
    const utf8Body = [...Buffer.from("é", "utf8")];
    expect(decodeHtml(page('<meta charset="utf-16">', utf8Body), null)).toContain("<p>é</p>");
  });

  describe("without a usable declaration", () => {
    it("decodes valid UTF-8 as UTF-8", () => {
      expect(decodeHtml(page("", [...Buffer.from("Français ©", "utf8")]), null)).toContain(
        "<p>Français ©</p>",
      );
    });

    it("decodes bytes that are not valid UTF-8 as windows-1252", () => {
      expect(decodeHtml(page("", [COPYRIGHT_1252, ...ascii(" 2010")]), null)).toContain("<p>© 2010</p>");
    });

    it.each(["text/html; charset=klingon", "text/html; charset=", 'text/html; charset=""'])(
      "falls back on an unknown header label (%s) to the meta tag",
      (contentType) => {
        expect(decodeHtml(page('<meta charset="windows-1252">', [COPYRIGHT_1252]), contentType)).toContain(
          "<p>©</p>",
        );
      },
    );

    it("falls back to windows-1252 when the meta label is unknown too", () => {
      const html = decodeHtml(
        page('<meta charset="x-unknown-42">', [COPYRIGHT_1252]),
        "text/html; charset=bogus",
      );
      expect(html).toContain("<p>©</p>");
    });
  });

  it("decodes only the bytes of a Uint8Array view into a larger buffer", () => {
    const whole = Buffer.from("xxxx<p>ok</p>yyyy", "latin1");
    expect(decodeHtml(new Uint8Array(whole.buffer, whole.byteOffset + 4, 9), null)).toBe("<p>ok</p>");
  });

  it("never throws, whatever the bytes and header", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.option(fc.string()), (bytes, contentType) => {
        expect(typeof decodeHtml(bytes, contentType)).toBe("string");
      }),
    );
  });
});

describe("charsetFromContentType", () => {
  it.each([
    ["text/html; charset=UTF-8", "UTF-8"],
    ["text/html;charset=windows-1252", "windows-1252"],
    ['text/html; charset="iso-8859-1"', "iso-8859-1"],
    ["text/html; CHARSET='latin1'; foo=bar", "latin1"],
    ["text/html", null],
    ["", null],
  ])("%s -> %s", (contentType, expected) => {
    expect(charsetFromContentType(contentType)).toBe(expected);
  });

  it("returns null without a header", () => {
    expect(charsetFromContentType(null)).toBeNull();
  });
});

describe("analyze task (decode, then analyse)", () => {
  it("finds a copyright notice whose © is a windows-1252 byte", () => {
    const body = page('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">', [
      ...ascii("Acme Inc. "),
      COPYRIGHT_1252,
      ...ascii(" 2009"),
    ]);
    const result = analyzeTask({
      body,
      contentType: "text/html",
      url: "https://acme.example/",
      country: "US",
      now: Date.UTC(2026, 10, 22),
    });
    expect(result.evidence.copyright_text).toBe("Acme Inc. © 2009");
    expect(result.evidence.copyright_year).toBe(2009);
    expect(result.signals.stale_copyright).toBe(true);
  });

  it("takes the current year from the input's epoch milliseconds", () => {
    const body = new Uint8Array(Buffer.from("<p>© 2024 Acme</p>", "utf8"));
    const input = {
      body,
      contentType: "text/html; charset=utf-8",
      url: "https://acme.example/",
      country: "US",
    };
    expect(analyzeTask({ ...input, now: Date.UTC(2025, 11, 31, 23, 59) }).signals.stale_copyright).toBe(
      false,
    );
    expect(analyzeTask({ ...input, now: Date.UTC(2026, 0, 1) }).signals.stale_copyright).toBe(true);
  });
});
