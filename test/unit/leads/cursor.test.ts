import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../../shared/leads/cursor.ts";

const UUID = "7d444840-9dc0-41d1-b245-5ffdce74fad2";
const TIMESTAMP = "2026-03-01T10:00:00.123Z";

// Date#toISOString writes a 4-digit year only for years 0..9999; the cursor covers that range.
// The years a lead can have been added in; outside them a cursor is refused (see below).
const cursorDates = fc.date({
  min: new Date("2020-01-01T00:00:00.000Z"),
  max: new Date("2999-12-31T23:59:59.999Z"),
  noInvalidDate: true,
});

describe("lead cursor", () => {
  it("has the documented form <added_at>|<lead_id>", () => {
    expect(encodeCursor({ addedAt: new Date(TIMESTAMP), leadId: UUID })).toBe(`${TIMESTAMP}|${UUID}`);
  });

  it("round-trips any date and uuid", () => {
    fc.assert(
      fc.property(cursorDates, fc.uuid(), (addedAt, leadId) => {
        const raw = encodeCursor({ addedAt, leadId });
        const decoded = decodeCursor(raw);
        expect(decoded).not.toBeNull();
        expect(decoded?.addedAt.getTime()).toBe(addedAt.getTime());
        expect(decoded?.leadId).toBe(leadId.toLowerCase());
        // Re-encoding what was decoded gives the same cursor back.
        expect(encodeCursor(decoded!)).toBe(raw);
      }),
      { numRuns: 500 },
    );
  });

  it("normalises an upper-case uuid to lower case", () => {
    expect(decodeCursor(`${TIMESTAMP}|${UUID.toUpperCase()}`)).toEqual({
      addedAt: new Date(TIMESTAMP),
      leadId: UUID,
    });
  });

  it("never throws, and accepts only canonical cursors (one character changed)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (raw) => {
        expect(decodeCursor(raw)).toBeNull();
      }),
    );
    fc.assert(
      fc.property(
        cursorDates,
        fc.uuid(),
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 1 }),
        (date, id, index, replacement) => {
          const valid = encodeCursor({ addedAt: date, leadId: id });
          const at = index % valid.length;
          const mutated = `${valid.slice(0, at)}${replacement}${valid.slice(at + 1)}`;
          const decoded = decodeCursor(mutated);
          // Accepted only if it is still what encodeCursor writes (a digit changed into another valid one).
          if (decoded !== null) expect(encodeCursor(decoded).toLowerCase()).toBe(mutated.toLowerCase());
        },
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(cursorDates, fc.uuid(), fc.string({ minLength: 1, maxLength: 5 }), (date, id, junk) => {
        const raw = encodeCursor({ addedAt: date, leadId: id });
        expect(decodeCursor(`${raw}${junk}`)).toBeNull();
        expect(decodeCursor(`${junk}${raw}`)).toBeNull();
      }),
    );
  });

  it.each([
    ["empty", ""],
    ["no separator", `${TIMESTAMP}${UUID}`],
    ["separator only", "|"],
    ["plain text", "not-a-cursor"],
    ["timestamp only", `${TIMESTAMP}|`],
    ["uuid only", `|${UUID}`],
    ["reversed parts", `${UUID}|${TIMESTAMP}`],
    ["a space around the separator", `${TIMESTAMP} | ${UUID}`],
    ["trailing newline", `${TIMESTAMP}|${UUID}\n`],
    ["url-encoded separator", `${TIMESTAMP}%7C${UUID}`],
  ])("rejects a malformed cursor: %s", (_label, raw) => {
    expect(decodeCursor(raw)).toBeNull();
  });

  it.each([
    ["an offset instead of Z", `2026-03-01T10:00:00.123+01:00|${UUID}`],
    ["a zero offset instead of Z", `2026-03-01T10:00:00.123+00:00|${UUID}`],
    ["no zone at all", `2026-03-01T10:00:00.123|${UUID}`],
    ["a lower-case z", `2026-03-01T10:00:00.123z|${UUID}`],
    ["a space instead of T", `2026-03-01 10:00:00.123Z|${UUID}`],
  ])("rejects a timestamp that is not UTC as toISOString writes it: %s", (_label, raw) => {
    expect(decodeCursor(raw)).toBeNull();
  });

  it.each([
    ["seconds only", `2026-03-01T10:00:00Z|${UUID}`],
    ["one fraction digit", `2026-03-01T10:00:00.1Z|${UUID}`],
    ["two fraction digits", `2026-03-01T10:00:00.12Z|${UUID}`],
    ["microseconds", `2026-03-01T10:00:00.123456Z|${UUID}`],
    ["date only", `2026-03-01|${UUID}`],
    ["epoch milliseconds", `1772359200123|${UUID}`],
  ])("rejects a timestamp without millisecond precision: %s", (_label, raw) => {
    expect(decodeCursor(raw)).toBeNull();
  });

  it.each([
    ["month 13", `2026-13-01T00:00:00.000Z|${UUID}`],
    ["February 30", `2026-02-30T00:00:00.000Z|${UUID}`],
    ["hour 24", `2026-03-01T24:00:00.000Z|${UUID}`],
    ["minute 60", `2026-03-01T10:60:00.000Z|${UUID}`],
  ])("rejects an impossible date: %s", (_label, raw) => {
    expect(decodeCursor(raw)).toBeNull();
  });

  it.each([
    ["not a uuid", `${TIMESTAMP}|not-a-uuid`],
    ["too short", `${TIMESTAMP}|7d444840-9dc0-41d1-b245-5ffdce74fad`],
    ["too long", `${TIMESTAMP}|7d444840-9dc0-41d1-b245-5ffdce74fad22`],
    ["no dashes", `${TIMESTAMP}|7d4448409dc041d1b2455ffdce74fad2`],
    ["non-hex digit", `${TIMESTAMP}|7d444840-9dc0-41d1-b245-5ffdce74fadg`],
    ["braces", `${TIMESTAMP}|{${UUID}}`],
    ["dashes misplaced", `${TIMESTAMP}|7d44484-09dc0-41d1-b245-5ffdce74fad2`],
  ])("rejects a bad uuid: %s", (_label, raw) => {
    expect(decodeCursor(raw)).toBeNull();
  });

  it.each([
    ["a trailing separator", `${TIMESTAMP}|${UUID}|`],
    ["a doubled separator", `${TIMESTAMP}||${UUID}`],
    ["a leading separator", `|${TIMESTAMP}|${UUID}`],
    ["two uuids", `${TIMESTAMP}|${UUID}|${UUID}`],
    ["two timestamps", `${TIMESTAMP}|${TIMESTAMP}|${UUID}`],
  ])("rejects extra separators: %s", (_label, raw) => {
    expect(decodeCursor(raw)).toBeNull();
  });

  it("refuses dates outside the years a lead can have (year 0 broke embedded PostgreSQL)", () => {
    const id = "3f1c1d2e-8a4b-4c5d-9e6f-7a8b9c0d1e2f";
    for (const date of ["0000-01-01T00:00:00.000Z", "1999-12-31T23:59:59.999Z", "3000-01-01T00:00:00.000Z"]) {
      expect(decodeCursor(`${date}|${id}`)).toBeNull();
    }
    expect(decodeCursor(`2026-11-22T20:00:00.000Z|${id}`)).not.toBeNull();
  });
});
