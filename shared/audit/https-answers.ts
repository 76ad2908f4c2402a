import { LRUCache } from "lru-cache";
import { certificateProblemOf, type FetchedPage, type FetchFailure } from "./fetch-homepage.ts";

type Answer = FetchedPage | FetchFailure;

/**
 * What the https check of an http:// homepage learned about its host, kept per host and port: when
 * the https port refused the connection, or answered something that is not TLS, every page of that
 * host gets the same answer, so the next audits of the host reuse it instead of making another
 * TLS attempt (about 0.4 ms of the event loop each, and an exception). Checks of one host that run
 * at once wait for the first: hundreds of audits of one shared host finish together.
 *
 * Only those two answers are kept: a certificate problem, a page, an HTTP error or a timeout are
 * asked again at every audit, as before. An answer is kept for a few minutes at most, so a host
 * that turns https on is seen as such at its next audits.
 */
export interface HttpsAnswers {
  /** The https answer of `origin` (`https://host:port`): the one known, or `ask()`'s. */
  answer(origin: string, ask: () => Promise<Answer>): Promise<Answer>;
  /** Hosts whose answer is known now (metrics, tests). */
  readonly size: number;
}

const HTTPS_ANSWER_TTL_MS = 10 * 60 * 1000;

export function createHttpsAnswers(options: { maxHosts?: number; ttlMs?: number } = {}): HttpsAnswers {
  const known = new LRUCache<string, FetchFailure>({
    max: options.maxHosts ?? 10_000,
    ttl: options.ttlMs ?? HTTPS_ANSWER_TTL_MS,
  });
  const asking = new Map<string, Promise<Answer>>();

  return {
    get size() {
      return known.size;
    },
    async answer(origin, ask) {
      const key = origin.toLowerCase();
      const cached = known.get(key);
      if (cached !== undefined) return { ...cached };
      const first = asking.get(key);
      if (first !== undefined) {
        // Another audit of this host is asking: its answer serves this page too when it is one
        // about the host; otherwise this page is asked on its own.
        const theirs = await first;
        if (isAboutTheHost(theirs)) return { ...theirs };
      }
      const mine = ask();
      if (first === undefined) {
        asking.set(key, mine);
        mine.finally(() => asking.delete(key)).catch(() => {});
      }
      const answer = await mine;
      if (isAboutTheHost(answer)) known.set(key, { ...answer });
      return answer;
    },
  };
}

/**
 * Nothing listens on the https port, or what listens does not speak TLS: true of every page of the
 * host. A TLS failure about the certificate is left out (it is the page's own evidence, kept with
 * each audit as before), as is every other end.
 */
function isAboutTheHost(answer: Answer): answer is FetchFailure {
  if (answer.ok) return false;
  if (answer.failure === "connection_failed") return answer.errorCode === "ECONNREFUSED";
  return answer.failure === "tls_failed" && certificateProblemOf(answer) === null;
}
