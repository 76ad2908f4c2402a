/**
 * A real HTTP server on 127.0.0.1 that speaks enough of the OpenAI chat completions API for the
 * `openai` SDK: POST /v1/chat/completions. Tests program what it answers and read back every
 * request it received (to check what left the service, e.g. that no website text did).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeBehaviour =
  /** 200 with this string as the assistant message content; `finishReason` default "stop". */
  | { kind: "content"; content: string; finishReason?: string }
  /** 200 whose answer is a function tool call with these arguments (content null), as tool-using models do. */
  | { kind: "toolCall"; arguments: string }
  /** 200 as server-sent events (chat.completion.chunk), a few characters per chunk, even though no stream was asked for. */
  | { kind: "stream"; content: string }
  /** Waits for `gate` before behaving as `answer`: lets a test hold a generation open. */
  | { kind: "afterGate"; gate: Promise<unknown>; answer: FakeBehaviour }
  /** 200 with JSON.stringify(value) as the content. */
  | { kind: "json"; value: unknown }
  /** 200 whose content is not JSON at all. */
  | { kind: "malformed" }
  /** An HTTP error with an OpenAI-style error body. `retryAfterMs` sets the SDK's retry delay. */
  | { kind: "status"; status: number; retryAfterMs?: number }
  /** Never answers: the client's timeout has to end it. */
  | { kind: "hang" };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body as received, for "does this text appear anywhere" checks. */
  rawBody: string;
  /** The parsed body; null when it was not JSON. */
  json: unknown;
}

export type BehaviourChooser = FakeBehaviour | ((request: RecordedRequest, index: number) => FakeBehaviour);

export interface FakeOpenAiServer {
  /** Base URL to give the SDK, including `/v1`. */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** What to answer from now on: a fixed behaviour, or one chosen per request (index from 0). */
  respondWith(behaviour: BehaviourChooser): void;
  /** Completion requests received (what a model call costs), since the last reset. */
  completionCalls(): number;
  /** Forget recorded requests and go back to the default behaviour (a 500). */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_BEHAVIOUR: FakeBehaviour = { kind: "status", status: 500 };

export async function startFakeOpenAi(): Promise<FakeOpenAiServer> {
  const requests: RecordedRequest[] = [];
  let chooser: BehaviourChooser = DEFAULT_BEHAVIOUR;
  let completionCount = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { message: String(error), type: "fake_server_error" } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      path,
      headers: { ...req.headers },
      rawBody,
      json: parseJson(rawBody),
    };
    requests.push(recorded);

    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      sendJson(res, 404, {
        error: { message: `No fake for ${req.method} ${path}`, type: "invalid_request_error" },
      });
      return;
    }
    const behaviour = typeof chooser === "function" ? chooser(recorded, completionCount) : chooser;
    completionCount += 1;
    await answer(behaviour, recorded, res);
  }

  async function answer(
    behaviour: FakeBehaviour,
    recorded: RecordedRequest,
    res: ServerResponse,
  ): Promise<void> {
    switch (behaviour.kind) {
      case "afterGate":
        await behaviour.gate;
        await answer(behaviour.answer, recorded, res);
        return;
      case "toolCall":
        sendJson(res, 200, completion(recorded, null, "tool_calls", behaviour.arguments));
        return;
      case "stream":
        sendStream(res, recorded, behaviour.content);
        return;
      case "hang":
        // Keep the socket open without answering; close() destroys it.
        return;
      case "status": {
        const headers: Record<string, string> = {};
        if (behaviour.retryAfterMs !== undefined) headers["retry-after-ms"] = String(behaviour.retryAfterMs);
        sendJson(
          res,
          behaviour.status,
          { error: { message: "fake upstream failure", type: "server_error" } },
          headers,
        );
        return;
      }
      case "malformed":
        sendJson(res, 200, completion(recorded, "Sure! Here is your email: Dear owner, ..."));
        return;
      case "json":
        sendJson(res, 200, completion(recorded, JSON.stringify(behaviour.value)));
        return;
      case "content":
        sendJson(res, 200, completion(recorded, behaviour.content, behaviour.finishReason ?? "stop"));
        return;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    respondWith(behaviour) {
      chooser = behaviour;
    },
    completionCalls() {
      return requests.filter((request) => request.path === "/v1/chat/completions").length;
    },
    reset() {
      requests.length = 0;
      chooser = DEFAULT_BEHAVIOUR;
      completionCount = 0;
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging requests would otherwise keep close() waiting forever.
        server.closeAllConnections();
      });
    },
  };
}

function modelOf(request: RecordedRequest): string {
  return typeof request.json === "object" && request.json !== null && "model" in request.json
    ? String(request.json.model)
    : "fake-model";
}

/** A chat.completion object as the SDK expects it; with `toolArguments`, a tool call instead of content. */
function completion(
  request: RecordedRequest,
  content: string | null,
  finishReason = "stop",
  toolArguments?: string,
): object {
  const model = modelOf(request);
  const message =
    toolArguments === undefined
      ? { role: "assistant", content, refusal: null }
      : {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls: [
            {
              id: "call_fake_1",
              type: "function",
              function: { name: "write_draft", arguments: toolArguments },
            },
          ],
        };
  return {
    id: `chatcmpl-fake-${Date.now()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
  };
}

/** The answer as chat.completion.chunk server-sent events, 7 characters a chunk, then [DONE]. */
function sendStream(res: ServerResponse, request: RecordedRequest, content: string): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const base = {
    id: "chatcmpl-fake-stream",
    object: "chat.completion.chunk",
    created: 0,
    model: modelOf(request),
  };
  const event = (choice: object) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, ...choice }] })}\n\n`;
  res.write(event({ delta: { role: "assistant", content: "" }, finish_reason: null }));
  for (let at = 0; at < content.length; at += 7) {
    res.write(event({ delta: { content: content.slice(at, at + 7) }, finish_reason: null }));
  }
  res.write(event({ delta: {}, finish_reason: "stop" }));
  res.end("data: [DONE]\n\n");
}

/**
 * Answers 400, as many local servers do, to a request whose `response_format` type is one of
 * `types` (e.g. json_schema, json_object); otherwise behaves as `otherwise`.
 */
export function rejectingResponseFormat(
  types: readonly string[],
  otherwise: BehaviourChooser,
): BehaviourChooser {
  return (request, index) => {
    const format = (request.json as { response_format?: { type?: string } } | null)?.response_format?.type;
    if (format !== undefined && types.includes(format)) return { kind: "status", status: 400 };
    return typeof otherwise === "function" ? otherwise(request, index) : otherwise;
  };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
