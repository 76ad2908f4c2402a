import { describe, expect, it } from "vitest";
import { auditJobId } from "../../../shared/audit/queue.ts";
import { MAX_LOGGED_TEXT, scrubText, serializeError } from "../../../shared/logger.ts";

describe("error logging", () => {
  it("drops a database error's parameter values (emails, names), keeps its message", () => {
    const error = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      query: "insert into members (email) values ($1)",
      params: ["owner@agency.test"],
      detail: "Key (email)=(owner@agency.test) already exists.",
    });
    const logged = JSON.stringify(serializeError(error));
    expect(logged).not.toContain("owner@agency.test");
    expect(logged).toContain("invalid byte sequence");
  });

  it("drops the value PostgreSQL quotes in its message, at the top and as a cause", () => {
    // The fields of a pg / PGlite DatabaseError.
    const databaseError = Object.assign(
      new Error('invalid input syntax for type uuid: "jane.doe@agency.test"'),
      { severity: "ERROR", code: "22P02", query: "select $1::uuid", params: ["jane.doe@agency.test"] },
    );
    const wrapped = new Error("search failed", { cause: databaseError });
    for (const logged of [serializeError(databaseError), serializeError(wrapped)]) {
      const text = JSON.stringify(logged);
      expect(text).not.toContain("jane.doe");
      expect(text).toContain("invalid input syntax for type uuid");
    }
  });

  it("truncates an upstream error body and scrubs what looks like a credential", () => {
    const echoed = `upstream said: Incorrect API key provided: sk-proj-${"A1b2".repeat(12)} ${"x".repeat(2000)}`;
    const error = Object.assign(new Error(echoed), { error: { message: echoed } });
    const logged = serializeError(error) as { message: string; error: { message: string }; stack: string };
    for (const text of [logged.message, logged.error.message, logged.stack.split("\n")[0] ?? ""]) {
      expect(text).not.toContain("sk-proj-");
      expect(text.length).toBeLessThanOrEqual(MAX_LOGGED_TEXT + 20);
    }
  });

  it("keeps audit job ids readable (no secret; they tie BullMQ's errors to a job), still scrubs keys", () => {
    const jobId = auditJobId({ placeId: "ChIJ-place", url: "https://plumber.example/" });
    const key = `ldk_${"Q7x".repeat(12)}`;
    const error = new Error(`Missing lock for job ${jobId}. moveToFinished; key ${key}`);
    const logged = serializeError(error) as { message: string; stack: string };
    for (const text of [logged.message, logged.stack.split("\n")[0] ?? ""]) {
      expect(text).toContain(jobId);
      expect(text).not.toContain(key);
    }
    // Only the exact shape: a longer token that starts the same way is still scrubbed.
    expect(scrubText(`${jobId}0123456789abcdef`)).toBe("[redacted]");
  });
});
