import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export interface ProcessLogLine {
  stream: "stdout" | "stderr";
  raw: string;
  /** The parsed pino object; undefined for a line that is not JSON. */
  json: Record<string, unknown> | undefined;
}

function parseJsonObject(raw: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every non-empty line a child process writes on stdout and stderr, in order per stream, with its
 * pino JSON parsed. The child's "close" event comes after both streams ended, so by then every
 * line has been passed to `onLine`.
 */
export function collectLogLines(child: ChildProcess, onLine: (line: ProcessLogLine) => void): void {
  for (const [stream, source] of [
    ["stdout", child.stdout],
    ["stderr", child.stderr],
  ] as const) {
    if (!source) continue;
    createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (raw) => {
      if (raw.trim() !== "") onLine({ stream, raw, json: parseJsonObject(raw) });
    });
  }
}
