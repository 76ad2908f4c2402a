/** One JSON answer over real HTTP, with how long it took and when it arrived. */
export interface JsonAnswer {
  status: number;
  /** The parsed JSON, or the raw text when the answer is not JSON (kept for failure messages). */
  body: unknown;
  ms: number;
  at: number;
}

/**
 * One request over real HTTP (fetch). A refused connection, or a hang past `timeoutMs`, throws:
 * it is a failure of the test, never an answer.
 */
export async function requestJson(
  url: string,
  method: "GET" | "POST",
  options: { token?: string | undefined; body?: unknown; timeoutMs: number },
): Promise<JsonAnswer> {
  const started = Date.now();
  const response = await fetch(url, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the failure message.
  }
  return { status: response.status, body, ms: Date.now() - started, at: Date.now() };
}
