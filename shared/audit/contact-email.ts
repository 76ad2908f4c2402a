/**
 * The rules of the homepage's contact email: reading candidates out of what the single DOM walk
 * of `signals.ts` hands over (a `mailto:` href, a JSON-LD block, a Cloudflare-protected hex
 * string, a line of visible text), rejecting placeholders, platform addresses and malformed ones,
 * and choosing one. Pure and small: no parsing of HTML here.
 *
 * Loaded by the piscina task through plain Node type stripping: erasable TypeScript only.
 */
import { getDomain, parse as parseHost } from "tldts";
import type { EmailChosenBy, EmailEvidence, EmailRejection, EmailSource } from "../db/site-audit-json.ts";

// The evidence of the chosen address is stored with the audit (site-audit-json.ts).
export type { EmailChosenBy, EmailEvidence, EmailSource } from "../db/site-audit-json.ts";

/** One address as the walk saw it, before any rule is applied. */
export interface EmailFinding {
  /** As written on the page (already entity-decoded by the parser, mailto already percent-decoded). */
  raw: string;
  source: EmailSource;
  /** Shown where a visitor looks for a way to write: a mailto link, structured data, a contact block, a footer. */
  contact: boolean;
  /** The visible text just before it on its line ("Email: ", "Website by Pixel, "); "" when none. */
  before: string;
  /** For a `mailto:` href: the link's own visible text (whitespace collapsed; "" for an icon). */
  linkText?: string;
}

export interface ContactEmail {
  email: string | null;
  evidence: EmailEvidence;
}

/** The evidence of a page without any address (a fresh object: evidence is not shared between audits). */
export function noEmailEvidence(): EmailEvidence {
  return { email_found_in: [], email_chosen_by: null, email_other_candidates: [], email_rejected: [] };
}

const MAX_LISTED = 10;
/** RFC 5321: 64 octets of local part, 254 for a whole forward path's address, 63 per label. */
const MAX_LOCAL_CHARS = 64;
const MAX_ADDRESS_CHARS = 254;
const MAX_DOMAIN_CHARS = 253;
/** A raw finding longer than this is not an address at all; cut before any regex runs on it. */
const MAX_RAW_CHARS = 512;

/** How much of the text before an address is read for a label or a credit. */
export const CONTEXT_BEFORE_CHARS = 40;

const SOURCE_STRENGTH: readonly EmailSource[] = ["mailto", "json_ld", "microdata", "cloudflare", "text"];

// ---------------------------------------------------------------------------------------------
// Reading candidates

/**
 * The recipients of a `mailto:` href: the query (`?subject=`) dropped, percent-decoded, split on
 * commas. Empty for any other href and for an empty `mailto:`.
 */
export function addressesFromMailto(href: string): string[] {
  const trimmed = href.trim();
  if (!/^mailto:/i.test(trimmed)) return [];
  const recipients = trimmed.slice("mailto:".length).split("?", 1)[0] ?? "";
  return safeDecodeUriComponent(recipients)
    .split(/[,;]/)
    .map((recipient) => recipient.trim())
    .filter((recipient) => recipient !== "");
}

/** The hex of Cloudflare's protected-link href (`/cdn-cgi/l/email-protection#<hex>`), or null. */
export function cloudflareHexFromHref(href: string): string | null {
  return /\/cdn-cgi\/l\/email-protection#([0-9a-f]+)$/i.exec(href.trim())?.[1] ?? null;
}

/**
 * Cloudflare email protection: the first byte is a key, every following byte is XORed with it,
 * and the result is UTF-8. Null for anything that is not such a string.
 */
export function decodeCloudflareEmail(hex: string): string | null {
  const text = hex.trim();
  if (text.length < 4 || text.length % 2 !== 0 || text.length > MAX_RAW_CHARS || !/^[0-9a-f]+$/i.test(text)) {
    return null;
  }
  const key = Number.parseInt(text.slice(0, 2), 16);
  const bytes = new Uint8Array(text.length / 2 - 1);
  for (let index = 2; index < text.length; index += 2) {
    bytes[index / 2 - 1] = Number.parseInt(text.slice(index, index + 2), 16) ^ key;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** The `email` values of a JSON-LD block: of each top-level node (or `@graph` member) and its `contactPoint`s. */
export function addressesFromJsonLd(json: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return []; // hand-written JSON-LD is often invalid; nothing is guessed from it
  }
  const addresses: string[] = [];
  const readEmail = (node: unknown): void => {
    if (!isRecord(node)) return;
    for (const value of asArray(node.email)) {
      if (typeof value === "string") addresses.push(value.replace(/^mailto:/i, ""));
    }
  };
  const topLevel = asArray(data).flatMap((node) =>
    isRecord(node) && node["@graph"] !== undefined ? asArray(node["@graph"]) : [node],
  );
  // Only the described entities themselves: an `author` or `creator` nested deeper is someone else.
  for (const node of topLevel) {
    readEmail(node);
    if (isRecord(node)) for (const point of asArray(node.contactPoint)) readEmail(point);
  }
  return addresses;
}

/** Fast pre-check before the patterns below run on a line of text. */
const MAY_HOLD_ADDRESS = /@|＠|\bat\b/i;
const BRACKETED_AT = /\s*(?:\[\s*at\s*\]|\(\s*at\s*\)|\{\s*at\s*\})\s*/gi;
const BRACKETED_DOT = /\s*(?:\[\s*dot\s*\]|\(\s*dot\s*\)|\{\s*dot\s*\})\s*/gi;
/*
 * The two patterns below start only where a run of address characters starts (the lookbehind)
 * and bound every repetition, so a page-long run of such characters costs linear time, not
 * quadratic: the analysis must stay fast on hostile pages.
 */
/** `name at domain dot com`: only with at least one spelled-out "dot", which prose never has. */
const SPELLED_OUT =
  /(?<![a-z0-9._+-])([a-z0-9][a-z0-9._+-]{0,63}) at ([a-z0-9-]{1,63}(?: dot [a-z0-9-]{1,63}){1,8})(?![a-z0-9-])/gi;
const ADDRESS_IN_TEXT = /(?<![a-z0-9._%+-])[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,8}/gi;

/**
 * The addresses written in a line of visible text, each with the text just before it, including
 * the common obfuscations (`name [at] domain [dot] com`, `name(at)domain.com`,
 * `name at domain dot com`, a full-width `＠`); `&#64;` and other entities were already decoded
 * by the parser. Expects whitespace collapsed to single spaces.
 */
export function addressesInText(line: string): Array<{ raw: string; before: string }> {
  if (!MAY_HOLD_ADDRESS.test(line)) return [];
  const readable = line
    .replace(/＠/g, "@")
    .replace(BRACKETED_AT, "@")
    .replace(BRACKETED_DOT, ".")
    .replace(
      SPELLED_OUT,
      (_match, local: string, domain: string) => `${local}@${domain.replace(/ dot /gi, ".")}`,
    );
  if (!readable.includes("@")) return [];
  return [...readable.matchAll(ADDRESS_IN_TEXT)].map((match) => ({
    raw: match[0],
    before: readable.slice(Math.max(0, match.index - CONTEXT_BEFORE_CHARS), match.index),
  }));
}

// ---------------------------------------------------------------------------------------------
// Rejecting

const DOT_ATOM_LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Reserved for documentation and testing (RFC 2606, RFC 6761). */
const RESERVED_TLDS = new Set(["example", "test", "invalid", "localhost", "local"]);
/** Second-level names that templates and form placeholders use (`you@yourdomain.com`, `email@address.com`). */
const PLACEHOLDER_DOMAIN_NAMES = new Set([
  "example",
  "domain",
  "yourdomain",
  "your-domain",
  "mydomain",
  "yoursite",
  "yourwebsite",
  "mysite",
  "mywebsite",
  "sitename",
  "yourcompany",
  "companyname",
  "company",
  "yourbusiness",
  "website",
  "emailaddress",
  "youremail",
  "address",
  "sample",
  "test",
  "placeholder",
]);
const PLACEHOLDER_LOCAL_PARTS = new Set([
  "name",
  "yourname",
  "your.name",
  "your-name",
  "firstname",
  "firstname.lastname",
  "first.last",
  "user",
  "username",
  "test",
  "testing",
  "you",
  "your",
  "youremail",
  "your.email",
  "your-email",
  "someone",
  "somebody",
  "johndoe",
  "john.doe",
  "janedoe",
  "jane.doe",
  "example",
  "sample",
  "xxx",
  "xxxx",
]);
/**
 * Registrable domains of site builders, hosts, tracking and library vendors whose addresses end
 * up in templates and embeds (`…@sentry.wixpress.com`, `support@squarespace.com`).
 */
const PLATFORM_DOMAINS = new Set([
  "wix.com",
  "wixpress.com",
  "wixsite.com",
  "sentry.io",
  "getsentry.com",
  "godaddy.com",
  "secureserver.net",
  "wordpress.com",
  "wordpress.org",
  "wpengine.com",
  "automattic.com",
  "woocommerce.com",
  "elementor.com",
  "yoast.com",
  "squarespace.com",
  "mailchimp.com",
  "list-manage.com",
  "mcsv.net",
  "sendgrid.net",
  "mailgun.org",
  "w3.org",
  "schema.org",
  "shopify.com",
  "myshopify.com",
  "weebly.com",
  "jimdo.com",
  "webflow.io",
  "webflow.com",
  "hubspot.com",
  "cloudflare.com",
  "github.com",
  "jquery.com",
  "getbootstrap.com",
  "fontawesome.com",
  "amazonaws.com",
  "herokuapp.com",
  "netlify.com",
  "vercel.app",
]);
/** Machine senders: nobody reads these. */
const AUTOMATED_LOCAL_PARTS =
  /^(?:no-?reply|no_reply|do-?not-?reply|do_not_reply|mailer-daemon|postmaster|hostmaster|abuse|bounces?|unsubscribe)(?:[+.-].*)?$/;
/** A long hex or digit run is a key or an id (Sentry DSNs, tracking), not a mailbox. */
const KEY_LIKE_LOCAL_PART = /^[0-9a-f]{16,}$/;
/** Asset file names that look like addresses (`logo@2x.png`); some of these are real TLDs (.zip, .mov). */
const ASSET_EXTENSIONS = new Set([
  "png",
  "jpg",
  "jpeg",
  "gif",
  "svg",
  "webp",
  "avif",
  "ico",
  "bmp",
  "css",
  "js",
  "json",
  "map",
  "woff",
  "woff2",
  "ttf",
  "mp3",
  "mp4",
  "mov",
  "zip",
  "pdf",
]);
/** A credit to whoever built or hosts the site, just before an address: the address is theirs. */
const SITE_CREDIT =
  /\b(?:web\s*site|site|web\s*design|designed|developed|built|made|created|hosted|powered|maintained)\s+by\b|\bweb\s*design(?:er)?\b/i;
/** A label that presents what follows as the way to write ("Email: ", "Write to us at ", "Courriel : "). */
const CONTACT_LABEL =
  /(?:\be-?mail|\bcourriel|\bcorreo|\bmail|\bcontact|\bkontakt|\bwrite to us|\breach us)\b[^@]{0,20}$/i;

export type CheckedAddress =
  | { ok: true; address: string }
  | { ok: false; address: string; reason: EmailRejection };

/**
 * Normalises (trimmed, lower-cased) and applies every rejection rule to one address. `pageHost`:
 * the host the page came from.
 */
export function checkAddress(raw: string, pageHost?: string): CheckedAddress {
  const address = raw
    .slice(0, MAX_RAW_CHARS)
    .trim()
    .replace(/^[<("'[\s]+|[>)"'\]\s.,;:]+$/g, "")
    .toLowerCase();
  const at = address.lastIndexOf("@");
  if (at <= 0 || at === address.length - 1) return { ok: false, address, reason: "invalid" };
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (
    local.length > MAX_LOCAL_CHARS ||
    domain.length > MAX_DOMAIN_CHARS ||
    address.length > MAX_ADDRESS_CHARS
  ) {
    return { ok: false, address, reason: "too_long" };
  }
  const labels = domain.split(".");
  if (
    !DOT_ATOM_LOCAL.test(local) ||
    labels.length < 2 ||
    !labels.every((label) => DOMAIN_LABEL.test(label))
  ) {
    return { ok: false, address, reason: "invalid" };
  }
  const tld = labels.at(-1)!;
  if (ASSET_EXTENSIONS.has(tld)) return { ok: false, address, reason: "invalid" };
  if (RESERVED_TLDS.has(tld)) {
    // A reserved TLD never resolves, so no real page comes from one: an address at the very host
    // of the page is a test or demo site's own; anywhere else it is a placeholder.
    return domain === pageHost && !PLACEHOLDER_LOCAL_PARTS.has(local)
      ? { ok: true, address }
      : { ok: false, address, reason: "placeholder" };
  }
  const host = parseHost(domain);
  // The suffix must be a real (ICANN) public suffix with a registrable name under it.
  if (!host.isIcann || host.domain === null || host.domainWithoutSuffix === null) {
    return { ok: false, address, reason: "invalid" };
  }
  if (PLACEHOLDER_DOMAIN_NAMES.has(host.domainWithoutSuffix) || PLACEHOLDER_LOCAL_PARTS.has(local)) {
    return { ok: false, address, reason: "placeholder" };
  }
  if (PLATFORM_DOMAINS.has(host.domain)) return { ok: false, address, reason: "platform" };
  if (AUTOMATED_LOCAL_PARTS.test(local) || KEY_LIKE_LOCAL_PART.test(local)) {
    return { ok: false, address, reason: "automated" };
  }
  return { ok: true, address };
}

// ---------------------------------------------------------------------------------------------
// Choosing

/** Shared mailboxes of a business, most general first (English, French, Spanish, German). */
const ROLE_LOCAL_PARTS = [
  "info",
  "contact",
  "hello",
  "office",
  "sales",
  "enquiries",
  "enquiry",
  "inquiries",
  "inquiry",
  "general",
  "mail",
  "email",
  "team",
  "reception",
  "admin",
  "service",
  "services",
  "customerservice",
  "support",
  "help",
  "bookings",
  "booking",
  "reservations",
  "orders",
  "shop",
  "store",
  "studio",
  "hi",
  "bonjour",
  "courriel",
  "accueil",
  "ventes",
  "contacto",
  "ventas",
  "kontakt",
];
const ROLE_RANK = new Map(ROLE_LOCAL_PARTS.map((local, index) => [local, index]));

function roleRank(address: string): number {
  return ROLE_RANK.get(address.slice(0, address.lastIndexOf("@"))) ?? Number.POSITIVE_INFINITY;
}

interface Candidate {
  address: string;
  sources: Set<EmailSource>;
  contact: boolean;
  order: number;
}

/**
 * Chooses the business's address among the page's findings: one on the site's own registrable
 * domain first (Public Suffix List, private suffixes such as github.io included, so another
 * github.io site is not "own"), then a role address (info@, contact@...), then one shown in a
 * contact context; within a tier the more general role, then a contact context, then page order.
 * Null when none qualifies: a wrong address is worse than none.
 */
export function chooseContactEmail(findings: readonly EmailFinding[], pageUrl: string): ContactEmail {
  if (findings.length === 0) return { email: null, evidence: noEmailEvidence() }; // most pages
  const candidates = new Map<string, Candidate>();
  const rejected = new Map<string, EmailRejection>();
  const siteDomain = registrableDomainOf(pageUrl);
  const pageHost = hostOf(pageUrl);
  for (const finding of reconcileMailtoLinks(findings, siteDomain)) {
    const checked = checkAddress(finding.raw, pageHost);
    if (!checked.ok) {
      if (!rejected.has(checked.address)) rejected.set(checked.address, checked.reason);
      continue;
    }
    const before = finding.before.slice(-CONTEXT_BEFORE_CHARS);
    if (SITE_CREDIT.test(before)) {
      if (!rejected.has(checked.address)) rejected.set(checked.address, "site_credit");
      continue;
    }
    const contact = finding.contact || CONTACT_LABEL.test(before);
    const known = candidates.get(checked.address);
    if (known) {
      known.sources.add(finding.source);
      known.contact ||= contact;
    } else {
      candidates.set(checked.address, {
        address: checked.address,
        sources: new Set([finding.source]),
        contact,
        order: candidates.size,
      });
    }
  }
  // Credited on one line, shown plainly on another: still the credit's address.
  for (const address of rejected.keys()) candidates.delete(address);

  const tierOf = (candidate: Candidate): EmailChosenBy | null => {
    if (
      siteDomain !== null &&
      getDomain(domainOf(candidate.address), { allowPrivateDomains: true }) === siteDomain
    ) {
      return "own_domain";
    }
    if (roleRank(candidate.address) !== Number.POSITIVE_INFINITY) return "role_address";
    return candidate.contact ? "contact_context" : null;
  };
  const TIERS: readonly EmailChosenBy[] = ["own_domain", "role_address", "contact_context"];
  const ranked = [...candidates.values()]
    .map((candidate) => ({ candidate, tier: tierOf(candidate) }))
    .filter((entry): entry is { candidate: Candidate; tier: EmailChosenBy } => entry.tier !== null)
    .sort(
      (left, right) =>
        TIERS.indexOf(left.tier) - TIERS.indexOf(right.tier) ||
        roleRank(left.candidate.address) - roleRank(right.candidate.address) ||
        Number(right.candidate.contact) - Number(left.candidate.contact) ||
        left.candidate.order - right.candidate.order,
    );
  const chosen = ranked[0] ?? null;

  const evidence: EmailEvidence = {
    email_found_in:
      chosen === null ? [] : SOURCE_STRENGTH.filter((source) => chosen.candidate.sources.has(source)),
    email_chosen_by: chosen?.tier ?? null,
    email_other_candidates: [...candidates.values()]
      .filter((candidate) => candidate !== chosen?.candidate)
      .slice(0, MAX_LISTED)
      .map((candidate) => ({
        address: candidate.address,
        source: SOURCE_STRENGTH.find((source) => candidate.sources.has(source))!,
      })),
    email_rejected: [...rejected].slice(0, MAX_LISTED).map(([address, reason]) => ({ address, reason })),
  };
  return { email: chosen?.candidate.address ?? null, evidence };
}

/**
 * What a visitor reads wins over what a link's href says, in two cases seen on real pages:
 * - a `mailto:` link whose own visible text is another address (a footer whose href is still the
 *   template's placeholder on another domain while the text is the business's address): the
 *   finding takes the text's address (still a mailto finding: the link is how a visitor writes);
 * - an address only in the href of links that show no address (an envelope icon), on another
 *   domain than the site's, while the page shows other addresses as text and never this one:
 *   set aside, as a theme's leftover is far likelier than a hidden real address. An icon link
 *   on the site's own domain, or on a page that shows no address as text, is kept.
 */
function reconcileMailtoLinks(findings: readonly EmailFinding[], siteDomain: string | null): EmailFinding[] {
  const normalise = (raw: string) => checkAddress(raw).address;
  const shownAsText = new Set(findings.filter((f) => f.source === "text").map((f) => normalise(f.raw)));
  const reconciled: EmailFinding[] = [];
  for (const finding of findings) {
    if (finding.source !== "mailto" || finding.linkText === undefined) {
      reconciled.push(finding);
      continue;
    }
    const address = normalise(finding.raw);
    const inText = addressesInText(finding.linkText).map((found) => normalise(found.raw));
    if (inText.length > 0 && !inText.includes(address)) {
      reconciled.push({ ...finding, raw: inText[0] ?? finding.raw });
      continue;
    }
    // An icon shows no words at all (an <i> or <svg> glyph, an image without alt text).
    const iconOnly = !/[\p{L}\p{N}]/u.test(finding.linkText);
    const ownDomain =
      siteDomain !== null && getDomain(domainOf(address), { allowPrivateDomains: true }) === siteDomain;
    if (iconOnly && !ownDomain && shownAsText.size > 0 && !shownAsText.has(address)) continue;
    reconciled.push(finding);
  }
  return reconciled;
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf("@") + 1);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function registrableDomainOf(url: string): string | null {
  try {
    return getDomain(new URL(url).hostname, { allowPrivateDomains: true });
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function safeDecodeUriComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
