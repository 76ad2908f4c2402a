import { DomUtils, parseDocument } from "htmlparser2";
import {
  addressesFromJsonLd,
  addressesFromMailto,
  addressesInText,
  CONTEXT_BEFORE_CHARS,
  chooseContactEmail,
  cloudflareHexFromHref,
  decodeCloudflareEmail,
  type EmailFinding,
  noEmailEvidence,
} from "./contact-email.ts";
import { NON_CONFORMING_TAGS } from "./non-conforming-tags.ts";
import { findParking } from "./parking-markers.ts";
import { findSolicitationRefusal } from "./solicitation.ts";
import type { AnalyzeOutput, AuditEvidence, AuditSignals } from "./types.ts";

/** One decoded homepage and what is known about its business. */
export interface HomepageInput {
  html: string;
  /** Final URL of the page (after redirects). */
  url: string;
  /** ISO 3166-1 alpha-2 country of the place's address, if the provider gave one. */
  country: string | null;
  now: Date;
  /** false skips the contact email (the benchmark's baseline only); default true. */
  findContactEmail?: boolean;
  /** false skips the parked-domain check (the benchmark's baseline only); default true. */
  findParkedDomain?: boolean;
  /**
   * false reads the page as before DESIGN "Audit precision" (no placeholder wordings, no
   * third-person refusals, icons glued to the text beside them, French read by word count only):
   * the benchmark's baseline only; default true.
   */
  auditPrecision?: boolean;
}

/** A year this many years before the current one (or older) is stale. */
const STALE_AFTER_YEARS = 2;
const OLDEST_COPYRIGHT_YEAR = 1990;
const OLDEST_MEDIA_YEAR = 1995;
const MAX_EVIDENCE_ITEMS = 10;
const MAX_SNIPPET_CHARS = 200;

/**
 * Computes every audit signal of one homepage and what each was based on. Pure: the result
 * depends only on the input (the current year comes from `now`).
 */
export function analyzeHomepage(input: HomepageInput): AnalyzeOutput {
  const findContactEmail = input.findContactEmail !== false;
  const precise = input.auditPrecision !== false;
  const page = indexPage(input.html, findContactEmail, precise);
  const currentYear = input.now.getUTCFullYear();

  const viewport = findViewport(page);
  const jqueryVersion = oldestJqueryVersion(page);
  const jqueryIsLegacy = jqueryVersion !== null && isLegacyJqueryVersion(jqueryVersion);
  const flash = findFlash(page);
  const legacyTags = [...page.legacyTags].sort();
  const tableLayout = findTableLayout(page);
  const legacySiteTech = jqueryIsLegacy || flash.length > 0 || legacyTags.length > 0 || tableLayout !== null;

  const copyright = findCopyrightNotice(page.textLines, currentYear);
  const staleCopyright = copyright.year === null ? null : currentYear - copyright.year >= STALE_AFTER_YEARS;

  const media = findDatedMedia(page, currentYear);
  const staleContent = media.newestYear !== null && currentYear - media.newestYear >= STALE_AFTER_YEARS;

  const canada = canadianEvidence(input, page.textLines);
  const frenchVersion = canada.by === null ? null : findFrenchVersion(page, input.url, precise);

  const contactEmail = findContactEmail
    ? chooseContactEmail(page.emailFindings, input.url)
    : { email: null, evidence: noEmailEvidence() };

  const parkingMarker = input.findParkedDomain === false ? null : findParkedDomain(page, precise);
  const solicitationText = findSolicitationRefusal(page.textLines, precise);

  const signals: AuditSignals = {
    no_mobile_viewport: viewport === null,
    legacy_site_tech: legacySiteTech,
    stale_copyright: staleCopyright,
    last_media_year: media.newestYear,
    stale_content: staleContent,
    no_french_version: canada.by === null ? null : frenchVersion === null,
    not_mobile_friendly: viewport === null || !isResponsiveViewport(viewport) || flash.length > 0,
    outdated_website: legacySiteTech || staleCopyright === true,
    email: contactEmail.email,
    parked_domain: parkingMarker !== null,
    solicitation_refused: solicitationText !== null,
  };
  const evidence: AuditEvidence = {
    viewport,
    jquery_version: jqueryVersion,
    legacy_tags: legacyTags,
    flash,
    table_layout: tableLayout,
    copyright_text: copyright.text,
    copyright_year: copyright.year,
    media_paths: media.paths,
    french_version: frenchVersion,
    canadian_by: canada.by,
    canadian_postal_code: canada.postalCode,
    parking_marker: parkingMarker,
    ...contactEmail.evidence,
    solicitation_text: solicitationText,
    email_page_url: contactEmail.email === null ? null : input.url,
  };
  return { signals, evidence };
}

// ---------------------------------------------------------------------------------------------
// One pass over the DOM
//
// Everything the signals need is collected in a single iterative walk over htmlparser2's DOM.
// CSS selectors (cheerio, css-select) and domutils' traversal cost O(depth) per node: with about
// ten queries, a page of 20,000 unclosed tags took 50 s. This walk stays linear; what remains
// superlinear is htmlparser2's parse itself, which the pool's abort signal bounds.

type HtmlDocument = ReturnType<typeof parseDocument>;
type HtmlNode = HtmlDocument | HtmlDocument["children"][number];
type HtmlElement = Extract<HtmlNode, { attribs: Record<string, string> }>;

function isElement(node: HtmlNode): node is HtmlElement {
  return "attribs" in node;
}

/** Elements whose content a visitor does not see as page text. */
const INVISIBLE_ELEMENTS = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "head",
  "title",
  "textarea",
  "select",
  "iframe",
  "svg",
  "math",
]);

/** Elements that start a new line of text. */
const BLOCK_ELEMENTS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "caption",
  "center",
  "dd",
  "details",
  "dialog",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "html",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);

const MAX_LINK_TEXT_CHARS = 100;

interface TableInfo {
  element: HtmlElement;
  /** The nearest table this one is nested in. */
  enclosingTable: TableInfo | null;
  /** Has header cells, a header row group or a caption of its own: a data table. */
  hasHeaders: boolean;
  /** Visible text characters and elements inside (counted for outer tables only). */
  textLength: number;
  elementCount: number;
}

interface LinkInfo {
  element: HtmlElement;
  /** Visible text, at most MAX_LINK_TEXT_CHARS characters. */
  text: string;
  /** alt texts of the images inside. */
  imageAlts: string[];
}

/** What the signals read from one page, collected in one walk. */
interface PageIndex {
  htmlElement: HtmlElement | null;
  /** Every element, in document order. */
  elements: HtmlElement[];
  /** The visible text, one entry per block (paragraph, cell, `<br>`-separated line). */
  textLines: string[];
  /** Visible text characters and elements of the whole page. */
  textLength: number;
  elementCount: number;
  legacyTags: Set<string>;
  tables: TableInfo[];
  links: LinkInfo[];
  /** Every address seen where one may be shown (never comments, script code or asset names). */
  emailFindings: EmailFinding[];
}

/** Where in the document a node is; shared by siblings, copied only when it changes. */
interface WalkContext {
  /** Inside svg or math, whose `<font>` and the like are not HTML's. */
  foreign: boolean;
  invisible: boolean;
  table: TableInfo | null;
  outerTable: TableInfo | null;
  link: LinkInfo | null;
  /** Inside a footer, an `<address>`, a block named "contact"/"footer", or a mailto link. */
  contact: boolean;
  /** Inside an element marked `itemprop="email"` without a value attribute: its text is collected. */
  microdataEmail: { text: string } | null;
}

/** Elements whose content is where a site shows how to reach the business. */
const CONTACT_ELEMENTS = new Set(["footer", "address"]);
const CONTACT_BLOCK_NAME = /contact|footer|kontakt/i;
/** Elements whose id or class is read for "contact"/"footer" (not every inline element's). */
const CONTAINER_ELEMENTS = new Set([
  "div",
  "section",
  "aside",
  "article",
  "p",
  "ul",
  "ol",
  "dl",
  "td",
  "table",
  "span",
]);
const MAILTO_HREF = /^\s*mailto:/i;
const ITEMPROP_EMAIL = /(?:^|\s)email(?:\s|$)/i;
/** An `itemprop="email"` element holds one address; a page-sized one is not read further. */
const MAX_MICRODATA_EMAIL_CHARS = 1000;

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The walk's state between nodes: the page so far, and the line of text being read. */
interface PageWalk {
  page: PageIndex;
  findContactEmail: boolean;
  iconsBreakWords: boolean;
  currentLine: string;
  currentLineIsContact: boolean;
  microdataEmails: Array<{ text: string }>;
  mailtoLinks: Array<{ finding: EmailFinding; link: LinkInfo }>;
  /** The visible text before an element on its line, for an "Email:" label or a "Website by" credit. */
  textBefore: () => string;
}

type PendingNode = { node: HtmlNode; context: WalkContext } | "break";

function indexPage(html: string, findContactEmail: boolean, iconsBreakWords: boolean): PageIndex {
  const walk: PageWalk = {
    page: {
      htmlElement: null,
      elements: [],
      textLines: [],
      textLength: 0,
      elementCount: 0,
      legacyTags: new Set(),
      tables: [],
      links: [],
      emailFindings: [],
    },
    findContactEmail,
    iconsBreakWords,
    currentLine: "",
    currentLineIsContact: false,
    microdataEmails: [],
    mailtoLinks: [],
    textBefore: () => collapseWhitespace(walk.currentLine.slice(-2 * CONTEXT_BEFORE_CHARS)),
  };
  const rootContext: WalkContext = {
    foreign: false,
    invisible: false,
    table: null,
    outerTable: null,
    link: null,
    contact: false,
    microdataEmail: null,
  };
  // Iterative, so deeply nested markup cannot overflow the stack; "break" ends a block's line.
  const pending: PendingNode[] = [{ node: parseDocument(html), context: rootContext }];
  while (pending.length > 0) {
    const item = pending.pop()!;
    if (item === "break") {
      breakLine(walk);
      continue;
    }
    const { node } = item;
    let context = item.context;
    if (node.nodeType === 3 && "data" in node) {
      if (!context.invisible) readText(walk, node.data, context);
      continue;
    }
    if (isElement(node)) {
      context = enterElement(walk, node, context, pending);
    } else if (node.nodeType !== 9) {
      continue; // comments, doctype, CDATA
    }
    if ("children" in node) {
      for (let index = node.children.length - 1; index >= 0; index--) {
        pending.push({ node: node.children[index]!, context });
      }
    }
  }
  breakLine(walk);
  return finishPage(walk);
}

/** Ends the line being read: its text is a line of the page, and its addresses are findings. */
function breakLine(walk: PageWalk): void {
  const line = collapseWhitespace(walk.currentLine);
  if (line !== "") {
    walk.page.textLines.push(line);
    if (walk.findContactEmail) {
      for (const { raw, before } of addressesInText(line)) {
        walk.page.emailFindings.push({ raw, source: "text", contact: walk.currentLineIsContact, before });
      }
    }
  }
  walk.currentLine = "";
  walk.currentLineIsContact = false;
}

/** A visible text node: onto the line, and counted for the page, its table and its link. */
function readText(walk: PageWalk, data: string, context: WalkContext): void {
  const { page } = walk;
  walk.currentLine += data;
  if (context.contact) walk.currentLineIsContact = true;
  if (context.microdataEmail !== null && context.microdataEmail.text.length < MAX_MICRODATA_EMAIL_CHARS) {
    context.microdataEmail.text += data;
  }
  // Approximate (inner whitespace runs count), which is enough for "most of the page".
  const visibleLength = data.trim().length;
  page.textLength += visibleLength;
  if (context.outerTable !== null) context.outerTable.textLength += visibleLength;
  if (context.link !== null && context.link.text.length < MAX_LINK_TEXT_CHARS) {
    context.link.text = (context.link.text + data).slice(0, MAX_LINK_TEXT_CHARS);
  }
}

/** An element: recorded in the page; the context its children are read in. */
function enterElement(
  walk: PageWalk,
  node: HtmlElement,
  parentContext: WalkContext,
  pending: PendingNode[],
): WalkContext {
  const { page } = walk;
  const name = node.name;
  let context = parentContext;
  page.elements.push(node);
  if (name === "html" && page.htmlElement === null) page.htmlElement = node;
  if (!context.foreign && NON_CONFORMING_TAGS.has(name)) page.legacyTags.add(name);
  if (!context.invisible) {
    page.elementCount++;
    if (context.outerTable !== null) context.outerTable.elementCount++;
  }

  if (name === "th" || name === "thead" || name === "caption") {
    if (context.table !== null) context.table.hasHeaders = true;
  } else if (name === "table") {
    const table: TableInfo = {
      element: node,
      enclosingTable: context.table,
      hasHeaders: false,
      textLength: 0,
      elementCount: 0,
    };
    page.tables.push(table);
    context = { ...context, table, outerTable: context.outerTable ?? table };
  } else if (name === "a") {
    const link: LinkInfo = { element: node, text: "", imageAlts: [] };
    page.links.push(link);
    context = { ...context, link };
  } else if (name === "img" && context.link !== null && node.attribs.alt !== undefined) {
    context.link.imageAlts.push(node.attribs.alt);
  } else if (name === "br" && !context.invisible) {
    breakLine(walk);
  } else if (
    walk.iconsBreakWords &&
    !context.invisible &&
    (node.children.length === 0 || name === "svg" || name === "math") &&
    name !== "wbr" &&
    !BLOCK_ELEMENTS.has(name)
  ) {
    // An icon (an empty <i class="fa-envelope">, an image, an inline svg) sits between words:
    // "USA<i …></i>info@acme.ca" reads "USA info@acme.ca" to a visitor, never "USAinfo@…".
    walk.currentLine += " ";
  }
  if (walk.findContactEmail) {
    context = collectEmailFindings(
      node,
      context,
      page.emailFindings,
      walk.textBefore,
      walk.microdataEmails,
      walk.mailtoLinks,
    );
  }
  if ((name === "svg" || name === "math") && !context.foreign) context = { ...context, foreign: true };
  if (INVISIBLE_ELEMENTS.has(name) && !context.invisible) context = { ...context, invisible: true };
  if (BLOCK_ELEMENTS.has(name) && !context.invisible) {
    breakLine(walk);
    pending.push("break");
  }
  return context;
}

/** After the walk: mailto links get their text, and microdata blocks their addresses. */
function finishPage(walk: PageWalk): PageIndex {
  const { page } = walk;
  for (const { finding, link } of walk.mailtoLinks) finding.linkText = collapseWhitespace(link.text);
  for (const { text } of walk.microdataEmails) {
    for (const { raw } of addressesInText(collapseWhitespace(text))) {
      page.emailFindings.push({ raw, source: "microdata", contact: true, before: "" });
    }
  }
  return page;
}

/**
 * The addresses an element carries (mailto and Cloudflare-protected hrefs, `data-cfemail`,
 * microdata, a JSON-LD block) and the context its content is in. Other attribute values (image
 * names like `logo@2x.png`, form placeholders) and script code are never read.
 */
function collectEmailFindings(
  element: HtmlElement,
  context: WalkContext,
  findings: EmailFinding[],
  textBefore: () => string,
  microdataEmails: Array<{ text: string }>,
  mailtoLinks: Array<{ finding: EmailFinding; link: LinkInfo }>,
): WalkContext {
  const { name, attribs } = element;
  if (context.invisible && name !== "script") return context; // head, templates, iframes' fallbacks
  let contact = context.contact;
  if (!contact && (CONTACT_ELEMENTS.has(name) || (CONTAINER_ELEMENTS.has(name) && isContactBlock(attribs)))) {
    contact = true;
  }

  const href = name === "a" || name === "area" ? attribs.href : undefined;
  if (href !== undefined) {
    if (MAILTO_HREF.test(href)) {
      contact = true;
      for (const raw of addressesFromMailto(href)) {
        const finding: EmailFinding = { raw, source: "mailto", contact, before: textBefore() };
        findings.push(finding);
        // The link's visible text is read once the walk has passed it (see indexPage).
        if (context.link !== null) mailtoLinks.push({ finding, link: context.link });
      }
    } else if (href.includes("email-protection#")) {
      const protectedHex = cloudflareHexFromHref(href);
      const decoded = protectedHex === null ? null : decodeCloudflareEmail(protectedHex);
      if (decoded !== null) {
        findings.push({ raw: decoded, source: "cloudflare", contact: true, before: textBefore() });
      }
    }
  }
  const cfemail = attribs["data-cfemail"];
  if (cfemail !== undefined) {
    const decoded = decodeCloudflareEmail(cfemail);
    if (decoded !== null)
      findings.push({ raw: decoded, source: "cloudflare", contact, before: textBefore() });
  }

  let microdataEmail = context.microdataEmail;
  const itemprop = attribs.itemprop;
  if (itemprop !== undefined && ITEMPROP_EMAIL.test(itemprop)) {
    const value = attribs.content ?? (href === undefined ? undefined : addressesFromMailto(href).join(","));
    if (value !== undefined && value !== "") {
      for (const raw of value.split(","))
        findings.push({ raw, source: "microdata", contact: true, before: "" });
    } else if (microdataEmail === null) {
      microdataEmail = { text: "" };
      microdataEmails.push(microdataEmail);
    }
  }

  if (name === "script" && attribs.type?.trim().toLowerCase() === "application/ld+json") {
    const json = element.children.map((child) => ("data" in child ? child.data : "")).join("");
    for (const raw of addressesFromJsonLd(json))
      findings.push({ raw, source: "json_ld", contact: true, before: "" });
  }

  return contact === context.contact && microdataEmail === context.microdataEmail
    ? context
    : { ...context, contact, microdataEmail };
}

function isContactBlock(attribs: Record<string, string>): boolean {
  const { id, class: className } = attribs;
  return (
    (id !== undefined && CONTACT_BLOCK_NAME.test(id)) ||
    (className !== undefined && CONTACT_BLOCK_NAME.test(className))
  );
}

function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1).trimEnd()}…`;
}

/** The opening tag of an element as short text, for evidence. */
function describeTag(element: HtmlElement): string {
  const attributes = Object.entries(element.attribs).map(([name, value]) => ` ${name}="${value}"`);
  return truncate(`<${element.name}${attributes.join("")}>`, 120);
}

function elementsNamed(page: PageIndex, name: string): HtmlElement[] {
  return page.elements.filter((element) => element.name === name);
}

// ---------------------------------------------------------------------------------------------
// Parked domain

const MAX_HEADLINES = 12;
/** Headings read for for-sale and placeholder wordings (before "Audit precision": h1 and h2 only). */
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/** The page's parking evidence (parking-markers.ts reads it), or null: one pass over the elements. */
function findParkedDomain(page: PageIndex, precise: boolean): string | null {
  const structuralUrls: string[] = [];
  const headlines: string[] = [];
  for (const element of page.elements) {
    const name = element.name;
    if (name === "title" || (precise ? HEADINGS.has(name) : name === "h1" || name === "h2")) {
      if (headlines.length < MAX_HEADLINES) headlines.push(DomUtils.textContent(element).slice(0, 300));
      continue;
    }
    switch (name) {
      case "script":
      case "iframe":
      case "frame":
        if (element.attribs.src !== undefined) structuralUrls.push(element.attribs.src);
        break;
      case "form":
        if (element.attribs.action !== undefined) structuralUrls.push(element.attribs.action);
        break;
      case "meta":
        if (element.attribs["http-equiv"]?.toLowerCase() === "refresh") {
          const target = /url\s*=\s*['"]?([^'"\s]+)/i.exec(element.attribs.content ?? "")?.[1];
          if (target !== undefined) structuralUrls.push(target);
        }
        break;
    }
  }
  const marker = findParking({
    structuralUrls,
    headlines,
    textLines: page.textLines,
    textLength: page.textLength,
    placeholders: precise,
  });
  return marker === null ? null : truncate(marker, MAX_SNIPPET_CHARS);
}

// ---------------------------------------------------------------------------------------------
// Viewport

/** The content of the page's viewport meta tag (the last one wins, as in browsers); null if none. */
function findViewport(page: PageIndex): string | null {
  const last = elementsNamed(page, "meta")
    .filter((meta) => meta.attribs.name?.trim().toLowerCase() === "viewport")
    .at(-1);
  return last === undefined ? null : collapseWhitespace(last.attribs.content ?? "");
}

/**
 * A viewport that lays the page out for the device: `width=device-width` (or no width but an
 * `initial-scale` of at least 1, which browsers treat the same) and no zoomed-out initial scale.
 */
export function isResponsiveViewport(content: string): boolean {
  const properties = new Map<string, string>();
  for (const part of content.split(/[,;]/)) {
    const [name, value] = part.split("=", 2);
    if (name !== undefined && value !== undefined) {
      properties.set(name.trim().toLowerCase(), value.trim().toLowerCase());
    }
  }
  const width = properties.get("width");
  const initialScaleText = properties.get("initial-scale");
  const initialScale = initialScaleText === undefined ? null : Number.parseFloat(initialScaleText);
  if (initialScale !== null && !(initialScale >= 1)) return false;
  if (width !== undefined) return width === "device-width";
  return initialScale !== null;
}

// ---------------------------------------------------------------------------------------------
// jQuery

const VERSION = String.raw`\d+\.\d+(?:\.\d+)?`;
/**
 * jQuery core's file name: `jquery.js`, `jquery-1.8.2.min.js`, `jquery.slim.min.js`, plus the
 * hex hash suffixes (with a digit) of bundlers and site mirrors (`jqueryb8ff.js`,
 * `jquery.min_1863…b21.js`). Plugins (`jquery.cycle.js`, `jquery.fade.js`, `jquery-migrate-1.4.1.js`,
 * `jquery-ui.min.js`) do not match.
 */
const JQUERY_FILE_NAME = new RegExp(
  String.raw`^jquery(?:[-.](${VERSION}))?(?:\.slim)?(?:\.min)?(?:[-_.]?(?=[0-9a-f]*\d)[0-9a-f]{4,32})?\.js$`,
  "i",
);
const VERSION_SEGMENT = new RegExp(`^(${VERSION})$`);
const NPM_JQUERY_SEGMENT = new RegExp(`^jquery@(${VERSION})`, "i");
const VERSION_PREFIX = new RegExp(`^(${VERSION})`);

function safeDecodeUriComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Reads jQuery's version from a script URL: from the file name (`jquery-1.8.2.min.js`), its
 * folder (`/1.8.2/jquery.min.js`, `jquery@3.7.1/dist/jquery.min.js`) or a version query
 * (`jquery.js?ver=1.12.4`). Returns `{ version: null }` for jQuery of unknown version and null
 * for a script that is not jQuery core.
 */
export function jqueryFromScriptUrl(src: string): { version: string | null } | null {
  const withoutFragment = src.trim().split("#", 1)[0] ?? "";
  const queryStart = withoutFragment.indexOf("?");
  const path = queryStart === -1 ? withoutFragment : withoutFragment.slice(0, queryStart);
  const query = queryStart === -1 ? "" : withoutFragment.slice(queryStart + 1);
  const segments = path.split("/").map(safeDecodeUriComponent);
  const fileName = segments.at(-1) ?? "";
  const fileMatch = JQUERY_FILE_NAME.exec(fileName);
  if (fileMatch === null) return null;
  if (fileMatch[1] !== undefined) return { version: fileMatch[1] };

  const folders = segments.slice(0, -1);
  const parent = folders.at(-1);
  const folderVersion =
    (parent === "dist" ? folders.at(-2) : parent)?.match(VERSION_SEGMENT)?.[1] ??
    folders.map((folder) => NPM_JQUERY_SEGMENT.exec(folder)?.[1]).find((version) => version !== undefined);
  if (folderVersion !== undefined) return { version: folderVersion };

  const parameters = new URLSearchParams(query);
  for (const name of ["ver", "v", "version"]) {
    const queryVersion = VERSION_PREFIX.exec(parameters.get(name) ?? "")?.[1];
    if (queryVersion !== undefined) return { version: queryVersion };
  }
  return { version: null };
}

function compareVersions(left: string, right: string): number {
  const leftParts = left.split(".").map(Number);
  const rightParts = right.split(".").map(Number);
  for (let index = 0; index < Math.max(leftParts.length, rightParts.length); index++) {
    const difference = (leftParts[index] ?? 0) - (rightParts[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The oldest jQuery version the page loads; null when it loads none of known version. */
function oldestJqueryVersion(page: PageIndex): string | null {
  let oldest: string | null = null;
  for (const script of elementsNamed(page, "script")) {
    const version = jqueryFromScriptUrl(script.attribs.src ?? "")?.version ?? null;
    if (version !== null && (oldest === null || compareVersions(version, oldest) < 0)) oldest = version;
  }
  return oldest;
}

function isLegacyJqueryVersion(version: string): boolean {
  const major = Number.parseInt(version, 10);
  return major === 1 || major === 2;
}

// ---------------------------------------------------------------------------------------------
// Flash

const FLASH_TYPE = /x-shockwave-flash|futuresplash/i;
const FLASH_ACTIVEX_CLASS_ID = /D27CDB6E-AE6D-11CF-96B8-444553540000/i;

function isSwfUrl(url: string): boolean {
  const path = url.split(/[?#]/, 1)[0] ?? "";
  return path.trim().toLowerCase().endsWith(".swf");
}

/**
 * Flash movies embedded with `<object>` / `<embed>` (by type, ActiveX class id, or a `.swf` in
 * src, data or a movie param), as their decoded `.swf` URLs or the embedding tag. A `.swf` string
 * inside a script is not an embedded movie.
 */
function findFlash(page: PageIndex): string[] {
  const found = new Set<string>();
  for (const element of page.elements) {
    if (element.name !== "object" && element.name !== "embed") continue;
    const urls =
      element.name === "embed"
        ? [element.attribs.src ?? ""]
        : [
            element.attribs.data ?? "",
            ...element.children
              .filter(isElement)
              .filter(
                (child) =>
                  child.name === "param" && /^(?:movie|src|filename)$/i.test(child.attribs.name ?? ""),
              )
              .map((param) => param.attribs.value ?? ""),
          ];
    const swfUrls = urls.filter(isSwfUrl).map((url) => safeDecodeUriComponent(url.trim()));
    if (swfUrls.length > 0) {
      for (const url of swfUrls) found.add(url);
    } else if (
      FLASH_TYPE.test(element.attribs.type ?? "") ||
      FLASH_ACTIVEX_CLASS_ID.test(element.attribs.classid ?? "")
    ) {
      found.add(describeTag(element));
    }
  }
  return [...found].slice(0, MAX_EVIDENCE_ITEMS);
}

// ---------------------------------------------------------------------------------------------
// Table layout

const MIN_FIXED_LAYOUT_WIDTH_PX = 600;
const MOST_OF_THE_PAGE = 0.5;

/** The table's width in CSS pixels from its width attribute or inline style; null if not fixed. */
function fixedPixelWidth(table: HtmlElement): number | null {
  const attribute = /^\s*(\d+(?:\.\d+)?)\s*(?:px)?\s*$/i.exec(table.attribs.width ?? "");
  if (attribute?.[1] !== undefined) return Number(attribute[1]);
  const style = /(?:^|;)\s*(?:min-)?width\s*:\s*(\d+(?:\.\d+)?)px/i.exec(table.attribs.style ?? "");
  return style?.[1] === undefined ? null : Number(style[1]);
}

/** Most of the visible text, or of the elements on a page with little text (image-only pages). */
function holdsMostOfThePage(table: TableInfo, page: PageIndex): boolean {
  if (page.textLength >= 200) return table.textLength >= page.textLength * MOST_OF_THE_PAGE;
  return page.elementCount > 0 && table.elementCount >= page.elementCount * MOST_OF_THE_PAGE;
}

/**
 * A table-based page layout: a fixed-pixel-width outer table (at least 600px) holding most of the
 * page, or a table nested inside a layout table (one marked presentational, or without headers
 * or caption of its own). Returns what was found, or null.
 */
function findTableLayout(page: PageIndex): string | null {
  for (const table of page.tables) {
    if (table.enclosingTable !== null) continue;
    const width = fixedPixelWidth(table.element);
    if (width !== null && width >= MIN_FIXED_LAYOUT_WIDTH_PX && holdsMostOfThePage(table, page)) {
      return `fixed-width layout table: ${describeTag(table.element)}`;
    }
  }
  for (const table of page.tables) {
    const outer = table.enclosingTable;
    if (outer === null) continue;
    const role = (outer.element.attribs.role ?? "").toLowerCase();
    if (role === "presentation" || role === "none" || !outer.hasHeaders) {
      return `nested layout tables: ${describeTag(outer.element)}`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Copyright

/** What marks a copyright notice (`&copy;` is already decoded to `©`). */
const COPYRIGHT_MARKER =
  /©|\(c\)|\bcopyright\b|\bcopr\.|\btous droits\b|\bdroits (?:r[ée]serv[ée]s|d['’]auteur)|\bderechos reservados\b|\brights reserved\b/giu;
const YEAR = /(?<!\d)(?:19|20)\d{2}(?!\d)/g;
const NOTICE_CONTEXT_BEFORE = 60;
const NOTICE_CONTEXT_AFTER = 140;

interface CopyrightNotice {
  text: string | null;
  year: number | null;
}

function yearsIn(text: string, oldest: number, newest: number): number[] {
  return [...text.matchAll(YEAR)].map((match) => Number(match[0])).filter((y) => y >= oldest && y <= newest);
}

/**
 * The copyright notice with the newest year (a range like 2012-2020 counts as 2020). Years are
 * read from the notice's own line (or a window around the marker on long lines), and from the
 * next short line when the year was put after a line break. A notice without a year is returned
 * with year null; no notice gives nulls.
 */
function findCopyrightNotice(lines: readonly string[], currentYear: number): CopyrightNotice {
  let best: { text: string; year: number } | null = null;
  let firstWithoutYear: string | null = null;
  for (const [index, line] of lines.entries()) {
    for (const marker of line.matchAll(COPYRIGHT_MARKER)) {
      let notice =
        line.length <= MAX_SNIPPET_CHARS
          ? line
          : line
              .slice(Math.max(0, marker.index - NOTICE_CONTEXT_BEFORE), marker.index + NOTICE_CONTEXT_AFTER)
              .trim();
      let years = yearsIn(notice, OLDEST_COPYRIGHT_YEAR, currentYear + 1);
      const nextLine = lines[index + 1];
      if (
        years.length === 0 &&
        nextLine !== undefined &&
        notice.length + nextLine.length < MAX_SNIPPET_CHARS
      ) {
        const nextYears = yearsIn(nextLine, OLDEST_COPYRIGHT_YEAR, currentYear + 1);
        if (nextYears.length > 0) {
          notice = `${notice} ${nextLine}`;
          years = nextYears;
        }
      }
      if (years.length === 0) {
        firstWithoutYear ??= truncate(notice, MAX_SNIPPET_CHARS);
        continue;
      }
      const year = Math.max(...years);
      if (best === null || year > best.year) best = { text: truncate(notice, MAX_SNIPPET_CHARS), year };
    }
  }
  return best ?? { text: firstWithoutYear, year: null };
}

// ---------------------------------------------------------------------------------------------
// Dated media paths

const MONTH = "(0[1-9]|1[0-2])";
/** CMS upload folders named after the upload date; groups: year, month. */
const DATED_MEDIA_PATHS = [
  new RegExp(String.raw`(?<![\w.-])wp-content/uploads/(?:sites/\d+/)?(\d{4})/${MONTH}/`, "i"),
  new RegExp(String.raw`(?<![\w.-])files/(\d{4})-${MONTH}/`, "i"),
  new RegExp(String.raw`(?<![\w.-])content/images/(?:size/[\w-]+/)?(\d{4})/${MONTH}/`, "i"),
];
/** Cheap pre-check: most attribute values hold none of the dated folders. */
const MAY_HOLD_DATED_PATH = /uploads|files|images/i;
const MEDIA_META_PROPERTIES = new Set([
  "og:image",
  "og:image:url",
  "og:image:secure_url",
  "twitter:image",
  "twitter:image:src",
]);

function isMediaAttribute(element: HtmlElement, name: string): boolean {
  if (name === "src" || name === "srcset" || name === "href" || name === "poster" || name === "style")
    return true;
  if (name === "background" || name.startsWith("data-")) return true;
  if (element.name !== "meta" || name !== "content") return false;
  const property = (element.attribs.property ?? element.attribs.name ?? "").toLowerCase();
  return MEDIA_META_PROPERTIES.has(property);
}

/**
 * The newest year of the dated media paths (WordPress, Drupal, Ghost upload folders) in
 * src/srcset/href/data-* attributes, inline and `<style>` CSS, and og:image; years outside
 * 1995..next year are ignored. Paths are returned newest first (year, then month), deduplicated.
 */
function findDatedMedia(
  page: PageIndex,
  currentYear: number,
): { newestYear: number | null; paths: string[] } {
  const sources: string[] = [];
  for (const element of page.elements) {
    for (const [name, value] of Object.entries(element.attribs)) {
      if (value.length > 0 && isMediaAttribute(element, name)) sources.push(value);
    }
    if (element.name === "style") {
      for (const child of element.children) if ("data" in child) sources.push(child.data);
    }
  }

  const datedPaths = new Map<string, { year: number; month: number }>();
  for (const source of sources) {
    if (!MAY_HOLD_DATED_PATH.test(source)) continue;
    // JSON inside data-* attributes escapes slashes; srcset and CSS separate URLs by these.
    for (const token of source.replaceAll("\\/", "/").split(/[\s"'(),]+/)) {
      if (datedPaths.has(token)) continue;
      for (const pattern of DATED_MEDIA_PATHS) {
        const match = pattern.exec(token);
        const year = Number(match?.[1]);
        if (year >= OLDEST_MEDIA_YEAR && year <= currentYear + 1) {
          datedPaths.set(token, { year, month: Number(match?.[2]) });
          break;
        }
      }
    }
  }
  // Newest first; Array.prototype.sort is stable, so equal dates keep document order.
  const newestFirst = [...datedPaths].sort(
    ([, left], [, right]) => right.year - left.year || right.month - left.month,
  );
  return {
    newestYear: newestFirst[0]?.[1].year ?? null,
    paths: newestFirst.slice(0, MAX_EVIDENCE_ITEMS).map(([path]) => path),
  };
}

// ---------------------------------------------------------------------------------------------
// Canada and French

const CANADIAN_POSTAL_CODE = /\b[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ -]?\d[ABCEGHJ-NPRSTV-Z]\d\b/;

/**
 * Whether the business is Canadian: the address country decides when known; otherwise a `.ca`
 * host, then a Canadian postal code in the page text.
 */
function canadianEvidence(
  input: HomepageInput,
  textLines: readonly string[],
): { by: AuditEvidence["canadian_by"]; postalCode: string | null } {
  const country = input.country?.trim().toUpperCase() ?? "";
  if (country !== "") return { by: country === "CA" ? "address" : null, postalCode: null };
  if (hostnameOf(input.url)?.endsWith(".ca")) return { by: "tld", postalCode: null };
  for (const line of textLines) {
    const postalCode = CANADIAN_POSTAL_CODE.exec(line)?.[0];
    if (postalCode !== undefined) return { by: "postal_code", postalCode };
  }
  return { by: null, postalCode: null };
}

function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return null;
  }
}

const FRENCH_LANGUAGE_TAG = /^fr(?:$|[-_])/i;
const FRENCH_LINK_LABEL = /^(?:fr|fra|french|fran[cç]ais|en fran[cç]ais|version fran[cç]aise)$/i;
const FRENCH_PATH_SEGMENT = /^fr(?:[-_][a-z]{2})?$/i;
const FRENCH_PAGE_FILE = /^(?:index[-_.])?fr(?:[-_][a-z]{2})?\.(?:html?|php|aspx?)$/i;
const LANGUAGE_QUERY_PARAMETERS = ["lang", "language", "locale", "hl", "lng"];

/** Why a link leads to a French version of the site, or null if it doesn't. */
function frenchLinkReason(href: string, pageUrl: string): string | null {
  let target: URL;
  try {
    // An unparsable page URL still lets relative links like "/fr" be read.
    target = new URL(href, URL.canParse(pageUrl) ? pageUrl : "http://page.invalid/");
  } catch {
    return null;
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") return null;
  const decodedHref = safeDecodeUriComponent(href).normalize("NFC").toLowerCase();
  const segments = target.pathname.split("/").filter((segment) => segment !== "");
  const fileName = segments.at(-1) ?? "";
  const isFrench =
    decodedHref.includes("francais") ||
    decodedHref.includes("français") ||
    decodedHref.includes("-fra.") ||
    target.hostname.toLowerCase().startsWith("fr.") ||
    segments.some((segment) => FRENCH_PATH_SEGMENT.test(segment)) ||
    FRENCH_PAGE_FILE.test(fileName) ||
    LANGUAGE_QUERY_PARAMETERS.some((name) => FRENCH_LANGUAGE_TAG.test(target.searchParams.get(name) ?? ""));
  return isFrench ? `link href=${href}` : null;
}

function isFrenchLabel(text: string): boolean {
  return FRENCH_LINK_LABEL.test(collapseWhitespace(text).normalize("NFC"));
}

/** Common French words that are rare in English and Spanish text. */
const FRENCH_WORDS = new Set([
  "les",
  "des",
  "et",
  "est",
  "une",
  "vous",
  "nous",
  "pour",
  "avec",
  "dans",
  "sur",
  "aux",
  "du",
  "au",
  "qui",
  "cette",
  "sont",
  "votre",
  "vos",
  "notre",
  "leur",
  "mais",
  "être",
  "très",
  "chez",
  "pas",
  "ces",
  "à",
  "où",
  "été",
  "également",
  "aussi",
]);
const ENGLISH_WORDS = new Set([
  "the",
  "and",
  "you",
  "your",
  "for",
  "with",
  "our",
  "we",
  "are",
  "is",
  "of",
  "to",
  "in",
  "this",
  "that",
  "it",
  "be",
  "will",
  "from",
  "by",
  "have",
]);
const MIN_FRENCH_WORDS = 20;
/**
 * A page of few words (a name, an offer, hours, an address) holds few of the words above even when
 * it is all French: there their share decides. French prose is about a quarter these words; a
 * 62-word French homepage of names and numbers still about a sixth; an English page with a French
 * name or phrase a few in a hundred.
 */
const MIN_FRENCH_SHARE = 0.1;
const MIN_FRENCH_WORDS_BY_SHARE = 3;

/** Whether the visible text is (mostly or substantially) French: a page in French is a French version. */
function isFrenchText(textLines: readonly string[], byShare: boolean): boolean {
  let french = 0;
  let english = 0;
  let words = 0;
  for (const line of textLines) {
    for (const word of line.toLowerCase().match(/[\p{L}’']+/gu) ?? []) {
      words++;
      if (FRENCH_WORDS.has(word)) french++;
      else if (ENGLISH_WORDS.has(word)) english++;
    }
  }
  if (french >= MIN_FRENCH_WORDS && french * 2 >= english) return true;
  return (
    byShare && french >= MIN_FRENCH_WORDS_BY_SHARE && french >= words * MIN_FRENCH_SHARE && french >= english
  );
}

/**
 * What shows a French version of the page: a French `lang` on `<html>`, a French hreflang or
 * content language, a link to a French URL, a link labelled Français / French / FR (by its text,
 * title or an image's alt), or page text in French. Null when nothing does.
 */
function findFrenchVersion(page: PageIndex, pageUrl: string, precise: boolean): string | null {
  const htmlLanguage = (page.htmlElement?.attribs.lang ?? page.htmlElement?.attribs["xml:lang"])?.trim();
  if (htmlLanguage !== undefined && FRENCH_LANGUAGE_TAG.test(htmlLanguage))
    return `html lang=${htmlLanguage}`;
  for (const element of page.elements) {
    const hreflang = element.attribs.hreflang?.trim();
    if (hreflang !== undefined && FRENCH_LANGUAGE_TAG.test(hreflang)) return `hreflang=${hreflang}`;
  }
  for (const meta of elementsNamed(page, "meta")) {
    const key = (
      meta.attribs["http-equiv"] ??
      meta.attribs.property ??
      meta.attribs.name ??
      ""
    ).toLowerCase();
    const content = (meta.attribs.content ?? "").trim();
    const isLanguageMeta =
      key === "content-language" ||
      key === "language" ||
      key === "og:locale" ||
      key === "og:locale:alternate";
    const languages = content.split(/[,\s]+/);
    if (isLanguageMeta && languages.some((tag) => FRENCH_LANGUAGE_TAG.test(tag) || isFrenchLabel(tag))) {
      return `meta ${key}=${content}`;
    }
  }
  for (const link of page.links) {
    const href = link.element.attribs.href?.trim();
    const reason = href === undefined || href === "" ? null : frenchLinkReason(href, pageUrl);
    if (reason !== null) return reason;
    if (isFrenchLabel(link.text)) return `link text ${collapseWhitespace(link.text)}`;
    for (const label of [link.element.attribs.title, link.element.attribs["aria-label"]]) {
      if (label !== undefined && isFrenchLabel(label)) return `link label ${collapseWhitespace(label)}`;
    }
    for (const alt of link.imageAlts) {
      if (isFrenchLabel(alt)) return `image alt ${collapseWhitespace(alt)}`;
    }
  }
  return isFrenchText(page.textLines, precise) ? "page text in French" : null;
}
