import freeMailList from "email-providers/all.json" with { type: "json" };
import { LRUCache } from "lru-cache";
import { isValid as acceptedByDisposableList } from "mailchecker";
import { getDomain, parse as parseHost } from "tldts";
import type { EmailStatus, EmailStatusReason } from "./types.ts";

/**
 * Whether a contact address can receive mail, from DNS alone: no SMTP conversation is ever
 * opened with the business's mail server (a probe is intrusive, often blocked, and says little).
 *
 * - undeliverable: the domain is not a public one (`isPublicMailDomain`: never looked up), does not exist (NXDOMAIN), publishes a null MX (RFC 7505: "this
 *   domain accepts no mail"), has neither MX nor address records, or is a disposable-mail domain
 *   (the maintained list of `mailchecker`, which sign-ups use too);
 * - deliverable: an MX record, or an implicit MX (no MX, but A or AAAA records: RFC 5321 §5.1)
 *   on the website's own registrable domain;
 * - risky: the same, for a free webmail or ISP mailbox (`email-providers`' list) or a domain that
 *   is not the website's: mail may arrive, but is less likely to reach the business;
 * - unknown: DNS did not answer in time, or failed (SERVFAIL, refused, unreachable).
 *
 * One lookup per domain, kept a day and shared by concurrent callers; a DNS failure is not kept,
 * so the next audit asks again. Each check ends within `timeoutMs` whatever DNS does (`unknown`),
 * while the lookup itself goes on and fills the cache.
 */

/** The part of a c-ares `dns.promises.Resolver` the check uses. */
interface MailDnsQueries {
  resolveMx(hostname: string): Promise<Array<{ exchange: string; priority: number }>>;
  resolve4(hostname: string): Promise<string[]>;
  resolve6(hostname: string): Promise<string[]>;
}

export interface EmailStatusOptions {
  queries: MailDnsQueries;
  /** How long a verdict about a domain is kept. Default: a day. */
  cacheMs?: number;
  /** Longest wait for one check; past it the answer is `unknown`. Default 4 000. */
  timeoutMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/** What DNS says about a mail domain. */
type DomainVerdict = "no_domain" | "null_mx" | "no_mail" | "mail" | "dns_failure";

/** The status and why: the console shows the reason beside the status. */
interface EmailStatusVerdict {
  status: EmailStatus;
  reason: EmailStatusReason;
}

export type EmailStatusCheck = (email: string, websiteUrl: string | null) => Promise<EmailStatusVerdict>;

const DAY_MS = 24 * 3600 * 1000;
const DEFAULT_TIMEOUT_MS = 4_000;
const DEFAULT_MAX_ENTRIES = 10_000;

const freeMailDomains = new Set<string>(freeMailList);

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

/** No such name (NXDOMAIN), as c-ares reports it. */
const isNoDomain = (error: unknown) => errorCode(error) === "ENOTFOUND";
/** The name exists without records of that type (NODATA). */
const isNoData = (error: unknown) => errorCode(error) === "ENODATA";

async function lookupDomain(queries: MailDnsQueries, domain: string): Promise<DomainVerdict> {
  try {
    const records = await queries.resolveMx(domain);
    // RFC 7505: a single MX of preference 0 with the root as exchange says "no mail here".
    const nullMx =
      records.length > 0 && records.every((record) => record.exchange === "" || record.exchange === ".");
    if (nullMx) return "null_mx";
    if (records.length > 0) return "mail";
  } catch (error) {
    if (isNoDomain(error)) return "no_domain";
    if (!isNoData(error)) return "dns_failure";
  }
  // No MX: the domain's own address records are its implicit MX.
  const [v4, v6] = await Promise.allSettled([queries.resolve4(domain), queries.resolve6(domain)]);
  const answered = [v4, v6].some((result) => result.status === "fulfilled" && result.value.length > 0);
  if (answered) return "mail";
  const failures = [v4, v6].flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
  if (failures.some((error) => !isNoData(error) && !isNoDomain(error))) return "dns_failure";
  return failures.length > 0 && failures.every(isNoDomain) ? "no_domain" : "no_mail";
}

/**
 * Public suffixes of special-use names (RFC 6761, 7686, 8375: `.arpa` and `home.arpa`, `.onion`)
 * that the public suffix list nonetheless lists under ICANN.
 */
const SPECIAL_USE_SUFFIX = /(?:^|\.)(?:arpa|onion)$/;

/**
 * Whether a mail domain is one the public internet can resolve: a name under an ICANN public
 * suffix, not an IP literal, not a special-use or reserved name (`.arpa`, `.onion`, `.local`,
 * `.test`, `.internal`, single labels...). Anything else is never looked up: a hostile page
 * would otherwise choose what this service asks its resolvers (`printer.home.arpa`) and read the
 * answer back in `email_status`.
 */
function isPublicMailDomain(domain: string): boolean {
  const parsed = parseHost(domain, { allowPrivateDomains: false });
  return (
    parsed.isIcann === true &&
    parsed.isIp !== true &&
    parsed.domain !== null &&
    parsed.hostname === domain &&
    !SPECIAL_USE_SUFFIX.test(parsed.publicSuffix ?? "")
  );
}

function registrableDomain(host: string): string | null {
  return getDomain(host, { allowPrivateDomains: true });
}

function websiteDomain(url: string | null): string | null {
  if (url === null) return null;
  try {
    return registrableDomain(new URL(url).hostname);
  } catch {
    return null;
  }
}

export function createEmailStatusCheck(options: EmailStatusOptions): EmailStatusCheck {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cache = new LRUCache<string, DomainVerdict>({
    max: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
    ttl: options.cacheMs ?? DAY_MS,
    // The clock read at every look (no 1 ms reading kept, so an injected clock is seen at once).
    ttlResolution: 0,
    perf: { now: options.now ?? Date.now },
  });
  const inFlight = new Map<string, Promise<DomainVerdict>>();

  const verdictOf = (domain: string): Promise<DomainVerdict> => {
    const cached = cache.get(domain);
    if (cached !== undefined) return Promise.resolve(cached);
    const pending = inFlight.get(domain);
    if (pending !== undefined) return pending;
    const started = lookupDomain(options.queries, domain)
      .then((verdict) => {
        if (verdict !== "dns_failure") cache.set(domain, verdict);
        return verdict;
      })
      .finally(() => inFlight.delete(domain));
    inFlight.set(domain, started);
    return started;
  };

  return async (email, websiteUrl) => {
    const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
    // The same maintained list sign-ups are checked against (it answers for the whole address).
    if (!acceptedByDisposableList(`postmaster@${domain}`))
      return { status: "undeliverable", reason: "disposable" };
    // No mail from the internet reaches a name the internet cannot resolve: nothing is asked.
    if (!isPublicMailDomain(domain)) return { status: "undeliverable", reason: "not_public" };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"dns_failure">((resolve) => {
      timer = setTimeout(() => resolve("dns_failure"), timeoutMs);
    });
    const verdict = await Promise.race([verdictOf(domain), timeout]).finally(() => clearTimeout(timer));
    switch (verdict) {
      case "dns_failure":
        return { status: "unknown", reason: "dns_failed" };
      case "no_domain":
      case "null_mx":
      case "no_mail":
        return { status: "undeliverable", reason: verdict };
      case "mail": {
        const own = registrableDomain(domain);
        if (freeMailDomains.has(domain) || (own !== null && freeMailDomains.has(own)))
          return { status: "risky", reason: "free_mail" };
        return own === null || own !== websiteDomain(websiteUrl)
          ? { status: "risky", reason: "other_domain" }
          : { status: "deliverable", reason: "own_domain" };
      }
    }
  };
}
