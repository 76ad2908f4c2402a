import { describe, expect, it, vi } from "vitest";
import type { FetchedPage, FetchFailure } from "../../../shared/audit/fetch-homepage.ts";
import { createHttpsAnswers } from "../../../shared/audit/https-answers.ts";

const ORIGIN = "https://bakery.example";
const refused: FetchFailure = {
  ok: false,
  failure: "connection_failed",
  detail: "ECONNREFUSED",
  errorCode: "ECONNREFUSED",
};
const notTls: FetchFailure = { ok: false, failure: "tls_failed", detail: "EPROTO", errorCode: "EPROTO" };
const expired: FetchFailure = {
  ok: false,
  failure: "tls_failed",
  detail: "CERT_HAS_EXPIRED",
  errorCode: "CERT_HAS_EXPIRED",
};
const page: FetchedPage = {
  ok: true,
  finalUrl: `${ORIGIN}/`,
  status: 200,
  contentType: "text/html",
  body: new Uint8Array(0),
};

/** An ask whose answers are settled by the test, one per call. */
function pendingAsk() {
  const resolvers: ((answer: FetchedPage | FetchFailure) => void)[] = [];
  const ask = vi.fn(() => new Promise<FetchedPage | FetchFailure>((resolve) => resolvers.push(resolve)));
  return { ask, settle: (index: number, answer: FetchedPage | FetchFailure) => resolvers[index]?.(answer) };
}

describe("https answers per host", () => {
  it.each([
    ["a refused connection", refused],
    ["a port that does not speak TLS", notTls],
  ])("%s is kept: the host is not asked again", async (_case, answer) => {
    const answers = createHttpsAnswers();
    const ask = vi.fn(async () => answer);
    expect(await answers.answer(ORIGIN, ask)).toEqual(answer);
    expect(await answers.answer(ORIGIN, ask)).toEqual(answer);
    expect(await answers.answer("HTTPS://Bakery.example", ask)).toEqual(answer);
    expect(ask).toHaveBeenCalledTimes(1);
    expect(answers.size).toBe(1);
  });

  it.each([
    ["a certificate problem (the page's own evidence)", expired],
    ["a page", page],
    ["an HTTP error", { ok: false, failure: "http_503" } as FetchFailure],
    ["our own timeout", { ok: false, failure: "timeout" } as FetchFailure],
    [
      "a reset connection",
      { ok: false, failure: "connection_failed", errorCode: "ECONNRESET" } as FetchFailure,
    ],
  ])("%s is asked again at every audit", async (_case, answer) => {
    const answers = createHttpsAnswers();
    const ask = vi.fn(async () => answer);
    await answers.answer(ORIGIN, ask);
    await answers.answer(ORIGIN, ask);
    expect(ask).toHaveBeenCalledTimes(2);
    expect(answers.size).toBe(0);
  });

  it("checks of one host at once wait for the first, and share a host-wide answer", async () => {
    const answers = createHttpsAnswers();
    const { ask, settle } = pendingAsk();
    const all = Promise.all([1, 2, 3].map(() => answers.answer(ORIGIN, ask)));
    await Promise.resolve();
    expect(ask).toHaveBeenCalledTimes(1);
    settle(0, notTls);
    expect(await all).toEqual([notTls, notTls, notTls]);
    expect(ask).toHaveBeenCalledTimes(1);
  });

  it("checks that waited on an answer about one page ask on their own", async () => {
    const answers = createHttpsAnswers();
    const { ask, settle } = pendingAsk();
    const first = answers.answer(ORIGIN, ask);
    const second = answers.answer(ORIGIN, ask);
    settle(0, page);
    expect(await first).toEqual(page);
    await vi.waitFor(() => expect(ask).toHaveBeenCalledTimes(2));
    settle(1, expired);
    expect(await second).toEqual(expired);
  });

  it("other hosts, and other ports of one host, are asked on their own", async () => {
    const answers = createHttpsAnswers();
    const ask = vi.fn(async () => refused);
    await answers.answer(ORIGIN, ask);
    await answers.answer("https://bakery.example:8443", ask);
    await answers.answer("https://florist.example", ask);
    expect(ask).toHaveBeenCalledTimes(3);
  });

  it("keeps at most maxHosts hosts, the least recently used leaving first", async () => {
    const answers = createHttpsAnswers({ maxHosts: 2 });
    const ask = vi.fn(async () => refused);
    for (const origin of [
      "https://a.example",
      "https://b.example",
      "https://c.example",
      "https://a.example",
    ]) {
      await answers.answer(origin, ask);
    }
    expect(ask).toHaveBeenCalledTimes(4);
    expect(answers.size).toBe(2);
  });
});
