import { Writable } from "node:stream";
import { type Logger, pino } from "pino";

export interface CapturedLogs {
  logger: Logger;
  /** Every line logged so far, parsed. */
  lines: Record<string, unknown>[];
  /** The lines whose message or error mentions `text` (case-insensitive). */
  mentioning(text: string): Record<string, unknown>[];
}

/** A pino logger at `level` whose lines a test reads (the app's own log lines, as an operator's alerts would). */
export function captureLogs(level: pino.Level = "warn"): CapturedLogs {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString("utf8").split("\n")) if (text.trim()) lines.push(JSON.parse(text));
      callback();
    },
  });
  return {
    logger: pino({ level }, stream),
    lines,
    mentioning: (text) =>
      lines.filter((line) => JSON.stringify(line).toLowerCase().includes(text.toLowerCase())),
  };
}
