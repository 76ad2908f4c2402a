/**
 * The audit of real homepages: the pages of ../shared/corpus/sites are served over HTTP on
 * 127.0.0.1 (Content-Type without a charset, so each page's own meta charset decides), fetched,
 * and analysed by the piscina pool. The expectations below were written by reading each page
 * (its viewport tag, script URLs, copyright line, upload paths, lang attributes, addresses), not
 * by recording the analysis' output. The contact email is checked apart, with each page served under
 * its own site's host name (which decides what "the site's own domain" is).
 *
 * The pages are third-party and unlicensed: they are read from the corpus folder at test time and
 * must never be copied into this repository.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, fetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnalysisPool, createAnalysisPool } from "../../../shared/audit/analysis-pool.ts";
import type { EmailChosenBy, EmailEvidence, EmailSource } from "../../../shared/audit/contact-email.ts";
import { decodeHtml } from "../../../shared/audit/decode.ts";
import type { AnalysisEvidence, AnalyzeOutput, AuditSignals } from "../../../shared/audit/types.ts";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const corpusDir = path.resolve(repoRoot, "../shared/corpus/sites");
const NOW = Date.UTC(2026, 10, 22);

interface CorpusPage {
  file: string;
  /** Host name the page is fetched under (resolved to 127.0.0.1); default 127.0.0.1 itself. */
  host?: string;
  /** The place's address country given to the analysis. */
  country: string | null;
  /** Every signal but the contact email (checked in `emailPages`). */
  signals: Omit<AuditSignals, "email">;
  /** Every evidence field but the email's; strings may be asymmetric matchers. */
  evidence: Record<
    Exclude<keyof Required<AnalysisEvidence>, keyof EmailEvidence | "email_page_url">,
    unknown
  >;
}

/** The contact address a person reading the page would write to, or null when the page shows none. */
interface EmailPage {
  file: string;
  /** The site's own host, where the page tells it (links to itself, its repository's name); default 127.0.0.1. */
  host?: string;
  email: string | null;
  /** For a chosen address: where it was found and why it was chosen. */
  foundIn?: EmailSource[];
  chosenBy?: EmailChosenBy;
}

const none = {
  viewport: null,
  jquery_version: null,
  legacy_tags: [],
  flash: [],
  table_layout: null,
  copyright_text: null,
  copyright_year: null,
  media_paths: [],
  french_version: null,
  canadian_by: null,
  canadian_postal_code: null,
  parking_marker: null,
  solicitation_text: null,
} as const;

const DEVICE_WIDTH_SCALE_1 = "width=device-width, initial-scale=1";
const DEVICE_WIDTH_SCALE_1_0 = "width=device-width, initial-scale=1.0";

const pages: CorpusPage[] = [
  {
    // English markup; the FR/EN switch lives in a navbar fetched by script at runtime, and the
    // French strings only inside a <script>: the served page shows no French version.
    file: "amadeo-drafting.html",
    country: "CA",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: false,
      stale_copyright: null,
      last_media_year: null,
      stale_content: false,
      no_french_version: true,
      not_mobile_friendly: false,
      outdated_website: false,
      solicitation_refused: false,
    },
    evidence: { ...none, viewport: DEVICE_WIDTH_SCALE_1_0, canadian_by: "address" },
  },
  {
    file: "autospace.html",
    country: null,
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: true,
      stale_copyright: true,
      last_media_year: 2015,
      stale_content: true,
      no_french_version: null,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: DEVICE_WIDTH_SCALE_1,
      jquery_version: "1.12.4", // wp-includes/js/jquery/jquery.js?ver=1.12.4 (migrate 1.4.1 is not jQuery)
      copyright_text: "Copyright © 2012-2020 · AutoSpace · Contact Us · Developed by Aditya Pandey",
      copyright_year: 2020,
      media_paths: [
        "https://autospace.co/wp-content/uploads/2015/06/cover.jpg", // inline style url()
        "https://autospace.co/wp-content/uploads/2014/03/Koenigsegg_One1_Front_02-1-374x264.jpg",
        "https://autospace.co/wp-content/uploads/2013/12/huracan_side_green-374x210.jpg",
        "https://autospace.co/wp-content/uploads/2013/02/377184_10151155258599709_175932490_n-374x249.jpg",
        "https://autospace.co/wp-content/uploads/2013/02/2-374x250.png",
        "https://autospace.co/wp-content/uploads/2013/02/vii2-374x210.jpg",
      ],
    },
  },
  {
    file: "badminton-club-alt.html",
    country: "CA",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: true,
      stale_copyright: null,
      last_media_year: null,
      stale_content: false,
      no_french_version: false,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: DEVICE_WIDTH_SCALE_1_0,
      jquery_version: "1.10.2", // jquery-1.10.2.js and /1.11.3/jquery.min.js: the oldest
      french_version: "html lang=fr",
      canadian_by: "address",
    },
  },
  {
    // Same club, English file: no lang, its header (with any language link) loaded by script.
    file: "badminton-club-home.html",
    country: "CA",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: true,
      stale_copyright: null,
      last_media_year: null,
      stale_content: false,
      no_french_version: true,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: { ...none, viewport: DEVICE_WIDTH_SCALE_1_0, jquery_version: "1.10.2", canadian_by: "address" },
  },
  {
    // Apple iWeb export: a 960px viewport, absolutely positioned divs, no tables or old tags.
    file: "berkeley-masjid.html",
    country: "US",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: false,
      stale_copyright: null,
      last_media_year: null,
      stale_content: false,
      no_french_version: null,
      not_mobile_friendly: true,
      outdated_website: false,
      solicitation_refused: false,
    },
    evidence: { ...none, viewport: "width=960" },
  },
  {
    // UTF-8 with a byte order mark; "Copyright © 2012--" with an open-ended range.
    file: "brett-mccue-auto.html",
    country: "US",
    signals: {
      no_mobile_viewport: true,
      legacy_site_tech: false,
      stale_copyright: true,
      last_media_year: null,
      stale_content: false,
      no_french_version: null,
      not_mobile_friendly: true,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      copyright_text: "Brett McCue's Auto Service Copyright © 2012-- Designed by Ross Higley",
      copyright_year: 2012,
    },
  },
  {
    // Canadian by its .ca host; French version linked as <a href="./fr">Français</a>.
    file: "canada-learning-code.html",
    host: "canadalearningcode.ca",
    country: null,
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: false,
      stale_copyright: true,
      last_media_year: null,
      stale_content: false,
      no_french_version: false,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: DEVICE_WIDTH_SCALE_1_0,
      jquery_version: "3.2.1",
      copyright_text: "©2017 Canada Learning Code",
      copyright_year: 2017,
      french_version: "link href=./fr",
      canadian_by: "tld",
    },
  },
  {
    // iso-8859-1; a 780px table wrapping the page, tables nested in it, <font> and one <big>.
    file: "cangelosi-insurance.html",
    country: "US",
    signals: {
      no_mobile_viewport: true,
      legacy_site_tech: true,
      stale_copyright: true,
      last_media_year: null,
      stale_content: false,
      no_french_version: null,
      not_mobile_friendly: true,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      legacy_tags: ["big", "font"],
      table_layout: expect.stringMatching(/^fixed-width layout table: <table width="780"/),
      copyright_text: "Copyright © 2005-2011. All rights reserved.",
      copyright_year: 2011,
    },
  },
  {
    // windows-1255 (Hebrew), FrontPage, <font> everywhere, no copyright line.
    file: "chaver-index-old.html",
    country: null,
    signals: {
      no_mobile_viewport: true,
      legacy_site_tech: true,
      stale_copyright: null,
      last_media_year: null,
      stale_content: false,
      no_french_version: null,
      not_mobile_friendly: true,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: { ...none, legacy_tags: ["font"] },
  },
  {
    // jQuery 2.2.4 from code.jquery.com; "&copy; 2016" in the footer; Ontario, English only.
    file: "cirs-radiant-heat.html",
    country: "CA",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: true,
      stale_copyright: true,
      last_media_year: null,
      stale_content: false,
      no_french_version: true,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: DEVICE_WIDTH_SCALE_1,
      jquery_version: "2.2.4",
      copyright_text: "© 2016 Canadian In-Floor Radiant Solutions",
      copyright_year: 2016,
      canadian_by: "address",
    },
  },
  {
    // FrontPage 4: a header table nested in the navigation table; years in the text, no notice.
    file: "corvette-page.html",
    country: "US",
    signals: {
      no_mobile_viewport: true,
      legacy_site_tech: true,
      stale_copyright: null,
      last_media_year: null,
      stale_content: false,
      no_french_version: null,
      not_mobile_friendly: true,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      legacy_tags: ["font"],
      table_layout: expect.stringMatching(/^nested layout tables: <table border="0"/),
    },
  },
  {
    // HTTrack mirror of a WordPress site: jqueryb8ff.js?ver=1.12.4; ".swf" only inside scripts.
    file: "guateprenda.html",
    country: "GT",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: true,
      stale_copyright: true,
      last_media_year: 2019,
      stale_content: true,
      no_french_version: null,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport:
        "width=device-width, initial-scale=1.0, minimum-scale=1.0, maximum-scale=1.0, user-scalable=0",
      jquery_version: "1.12.4",
      copyright_text: "ZEN Interactive Media - Todos los derechos reservados © 2021",
      copyright_year: 2021,
      media_paths: [
        "wp-content/uploads/2019/09/1-1.jpg",
        "wp-content/uploads/2019/09/2-1.jpg",
        "wp-content/uploads/2019/04/v001.jpg",
        "wp-content/uploads/2019/04/v002.jpg",
        "wp-content/uploads/2019/04/v003.jpg",
        "wp-content/uploads/2019/04/v004.jpg",
        "wp-content/uploads/2016/06/Favicon-gt.png", // <link rel="shortcut icon" href>
        "wp-content/uploads/2016/05/Logo-Guateprenda-footer-001.png",
        "wp-content/uploads/2015/10/logo-new-gp.png",
        "https://www.guateprenda.com/wp-content/uploads/2015/08/whity2.jpg", // JSON in data-mk-img-set
      ],
    },
  },
  {
    // FrontPage; <center>, <font>, <nobr>; two width="100%" tables side by side, not nested.
    file: "gyrobot.html",
    country: "GB",
    signals: {
      no_mobile_viewport: true,
      legacy_site_tech: true,
      stale_copyright: null,
      last_media_year: null,
      stale_content: false,
      no_french_version: null,
      not_mobile_friendly: true,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: { ...none, legacy_tags: ["center", "font", "nobr"] },
  },
  {
    // googleapis /1.8.2/jquery.min.js; jquery.parallax-1.1.3.js is a plugin.
    file: "hdcc-projects.html",
    country: "US",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: true,
      stale_copyright: true,
      last_media_year: null,
      stale_content: false,
      no_french_version: null,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: "width=device-width, initial-scale=1.0, maximum-scale=1.0, user-scalable=no",
      jquery_version: "1.8.2",
      copyright_text: "© 2013 All Rights Reserved.",
      copyright_year: 2013,
    },
  },
  {
    // Joomla export: jquery.min_<hash>.js (no version) and a module's jquery-1.8.2.min.js; the
    // French version is an <a href="francais"> around a flag image (alt "french").
    file: "icon-gold-recovery.html",
    country: "CA",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: true,
      stale_copyright: true,
      last_media_year: null,
      stale_content: false,
      no_french_version: false,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: DEVICE_WIDTH_SCALE_1_0,
      jquery_version: "1.8.2",
      copyright_text: "Copyright© 2018 iCON Gold Recovery - All Rights Reserved",
      copyright_year: 2018,
      french_version: "link href=francais",
      canadian_by: "address",
    },
  },
  {
    // The 2015 upload (truck-at-night-smaller.jpg) is inside an HTML comment: the newest shown is 2014.
    file: "imtas-lojistik.html",
    country: "TR",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: true,
      stale_copyright: null,
      last_media_year: 2014,
      stale_content: true,
      no_french_version: null,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: "width=device-width, initial-scale=1.0, maximum-scale=1.0, user-scalable=0",
      jquery_version: "1.12.4",
      media_paths: [
        "wp-content/uploads/2014/04/speedometer_64px.png",
        "wp-content/uploads/2014/01/circle-compass_64px.png",
        "wp-content/uploads/2014/01/warehouse-pallets-reduced.jpg",
      ],
    },
  },
  {
    // Quebec company, whole page in French without a lang attribute; "Tous droits réservés." has
    // no year; Canadian by the postal code of its address (J0R 1B0).
    file: "logicus.html",
    country: null,
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: false,
      stale_copyright: null,
      last_media_year: null,
      stale_content: false,
      no_french_version: false,
      not_mobile_friendly: false,
      outdated_website: false,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: "width=device-width",
      copyright_text: "Tous droits réservés.",
      french_version: "page text in French",
      canadian_by: "postal_code",
      canadian_postal_code: "J0R 1B0",
    },
  },
  {
    // hreflang alternates include fr-CA (and a /fr/ link); country given to exercise that path.
    file: "north359.html",
    country: "CA",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: false,
      stale_copyright: null,
      last_media_year: null,
      stale_content: false,
      no_french_version: false,
      not_mobile_friendly: false,
      outdated_website: false,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: DEVICE_WIDTH_SCALE_1,
      french_version: "hreflang=fr-CA",
      canadian_by: "address",
    },
  },
  {
    // windows-1252: the © of "Copyright © 2009" is the single byte 0xA9. Six Flash movies
    // (object + param movie + embed each), nested tables, <font>.
    file: "power-hungry-foods.html",
    country: "US",
    signals: {
      no_mobile_viewport: true,
      legacy_site_tech: true,
      stale_copyright: true,
      last_media_year: null,
      stale_content: false,
      no_french_version: null,
      not_mobile_friendly: true,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      legacy_tags: ["font"],
      flash: [
        "PHFBorderLogoFlash2.swf",
        "Flash Home Stick Real02.swf",
        "Flash Home Text Top 14.swf",
        "Split Into Bottom12.swf",
        "Flash Home Text Bottom 10.swf",
        "Flash Home Box Right Real 05.swf",
      ],
      table_layout: expect.stringMatching(/^nested layout tables: <table /),
      copyright_text: expect.stringMatching(
        /^Copyright © 2009\. All Rights Reserved\. Power Hungry Foods LLC/,
      ),
      copyright_year: 2009,
    },
  },
  {
    file: "second-wind-music.html",
    country: "US",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: false,
      stale_copyright: false,
      last_media_year: null,
      stale_content: false,
      no_french_version: null,
      not_mobile_friendly: false,
      outdated_website: false,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: DEVICE_WIDTH_SCALE_1_0,
      copyright_text: "© 2026 Second Wind Music Productions. All rights reserved.",
      copyright_year: 2026,
    },
  },
  {
    // HTTrack mirror: jquery4a5f.js?ver=1.12.4-wp; the second "viewport" is a script URL.
    file: "ska-skt.html",
    country: "ID",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: true,
      stale_copyright: null,
      last_media_year: 2019,
      stale_content: true,
      no_french_version: null,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: DEVICE_WIDTH_SCALE_1,
      jquery_version: "1.12.4",
      media_paths: [
        "wp-content/uploads/2019/09/sktcontoh-400x450.jpg",
        "wp-content/uploads/2019/09/sktcontoh.jpg",
        "wp-content/uploads/2019/09/skacontoh-400x450.jpg",
        "wp-content/uploads/2019/09/skacontoh.jpg",
        "wp-content/uploads/2019/09/SIUJK-OSS-400x450.jpg",
        "wp-content/uploads/2019/09/SIUJK-OSS.jpg",
        "wp-content/uploads/2019/09/45001-400x450.jpg",
        "wp-content/uploads/2019/09/45001.jpg",
        "wp-content/uploads/2019/09/siujk-ptsp-2_LI-400x450.jpg",
        "wp-content/uploads/2019/09/siujk-ptsp-2_LI.jpg",
      ],
    },
  },
  {
    // No viewport; © 2025 is one year old; Canadian by "Ajax ON L1S 7G8" (two older addresses
    // are inside a comment).
    file: "st-marys-church.html",
    country: null,
    signals: {
      no_mobile_viewport: true,
      legacy_site_tech: false,
      stale_copyright: false,
      last_media_year: null,
      stale_content: false,
      no_french_version: true,
      not_mobile_friendly: true,
      outdated_website: false,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      copyright_text: "Copyright © 2025 St. Mary's Malankara Orthodox Syrian Church of Toronto",
      copyright_year: 2025,
      canadian_by: "postal_code",
      canadian_postal_code: "L1S 7G8",
    },
  },
  {
    // French version: <a class="french" href="francais.html"><img src="img/logo-FR.png"></a>.
    file: "uottawa-eco-marathon.html",
    country: "CA",
    signals: {
      no_mobile_viewport: false,
      legacy_site_tech: false,
      stale_copyright: true,
      last_media_year: null,
      stale_content: false,
      no_french_version: false,
      not_mobile_friendly: false,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      viewport: DEVICE_WIDTH_SCALE_1,
      copyright_text: "© 2019 uOttawa Mini Eco-Marathon.",
      copyright_year: 2019,
      french_version: "link href=francais.html",
      canadian_by: "address",
    },
  },
  {
    // "Copyright ?2008": the © was lost to a literal "?" in the file itself.
    file: "victek-machinery.html",
    country: "US",
    signals: {
      no_mobile_viewport: true,
      legacy_site_tech: true,
      stale_copyright: true,
      last_media_year: null,
      stale_content: false,
      no_french_version: null,
      not_mobile_friendly: true,
      outdated_website: true,
      solicitation_refused: false,
    },
    evidence: {
      ...none,
      legacy_tags: ["font", "nobr"],
      table_layout: expect.stringMatching(/^nested layout tables: <table /),
      copyright_text: "Copyright ?2008 Victek Machinery Inc.,",
      copyright_year: 2008,
    },
  },
];

/**
 * Read by eye in each page's HTML (every '@', 'mailto', 'cfemail', '[at]', '(at)', '&#64;').
 * Pages with email null show no address a visitor could write to.
 */
const emailPages: EmailPage[] = [
  // Two mailto links and "Email us at info@<br>canada<wbr>learning<wbr>code.ca"; the form's
  // placeholder "your@emailaddress.com" and "educational-programs-@2x.jpg" are not addresses.
  {
    file: "canada-learning-code.html",
    host: "canadalearningcode.ca",
    email: "info@canadalearningcode.ca",
    foundIn: ["mailto"],
    chosenBy: "own_domain",
  },
  // "Email: <a href="mailto:vcangelosi@aol.com">vcangelosi@aol.com</a>", twice.
  {
    file: "cangelosi-insurance.html",
    email: "vcangelosi@aol.com",
    foundIn: ["mailto", "text"],
    chosenBy: "contact_context",
  },
  // <a href="mailto:">servicioalcliente@guateprenda.com</a>: an empty mailto around the address.
  {
    file: "guateprenda.html",
    host: "www.guateprenda.com",
    email: "servicioalcliente@guateprenda.com",
    foundIn: ["text"],
    chosenBy: "own_domain",
  },
  // Both addresses (pwinston@yahoo.com, tjak@get2net.dk) are script credits inside HTML comments.
  { file: "gyrobot.html", host: "www.gyrobot.co.uk", email: null },
  // ventes@, services@, info@, support@ (mailto with ?subject=); the page's general address is
  // "l'adresse courriel suivante info@logicus.qc.ca".
  {
    file: "logicus.html",
    host: "logicus.qc.ca",
    email: "info@logicus.qc.ca",
    foundIn: ["mailto", "text"],
    chosenBy: "own_domain",
  },
  // "Greg Baker / admin@secondwindmusic.com" and an "Email" button, both mailto.
  {
    file: "second-wind-music.html",
    email: "admin@secondwindmusic.com",
    foundIn: ["mailto", "text"],
    chosenBy: "role_address",
  },
  // "email : sertifikasicoid@gmail.com", three times, as the text of links whose Cloudflare
  // attribute was renamed "data-cfemail----" by the mirror (so never decoded: visitors see the
  // gmail address); "email=cs%40skaskt.github.io" is a script URL's query.
  {
    file: "ska-skt.html",
    host: "skaskt.github.io",
    email: "sertifikasicoid@gmail.com",
    foundIn: ["text"],
    chosenBy: "contact_context",
  },
  // "Donations accepted through Interac e-transfer trustee@stmarysorthodoxchurch.ca", on the
  // church's own domain (its menu links to //stmarysorthodoxchurch.ca).
  {
    file: "st-marys-church.html",
    host: "stmarysorthodoxchurch.ca",
    email: "trustee@stmarysorthodoxchurch.ca",
    foundIn: ["text"],
    chosenBy: "own_domain",
  },
  // An envelope icon linked to "mailto: eco-marathon@uottawaminichallenges.ca" (leading space).
  {
    file: "uottawa-eco-marathon.html",
    email: "eco-marathon@uottawaminichallenges.ca",
    foundIn: ["mailto"],
    chosenBy: "contact_context",
  },
  // "E-mail: vmonroe8888@yahoo.com", a mailto link (its text between FrontPage webbot comments).
  {
    file: "victek-machinery.html",
    email: "vmonroe8888@yahoo.com",
    foundIn: ["mailto", "text"],
    chosenBy: "contact_context",
  },
  { file: "amadeo-drafting.html", email: null },
  // JSON-LD WebSite/SearchAction only, no email.
  { file: "autospace.html", host: "autospace.co", email: null },
  { file: "badminton-club-alt.html", email: null },
  { file: "badminton-club-home.html", email: null },
  { file: "berkeley-masjid.html", email: null },
  { file: "brett-mccue-auto.html", email: null },
  { file: "chaver-index-old.html", host: "chaver.com", email: null },
  { file: "cirs-radiant-heat.html", email: null },
  { file: "corvette-page.html", email: null },
  { file: "hdcc-projects.html", email: null },
  // Only "@font-face" in its CSS.
  { file: "icon-gold-recovery.html", host: "iconcentrator.net", email: null },
  // Only "@media" and a script's "Invalid email" message.
  { file: "imtas-lojistik.html", email: null },
  // A twitter handle "@stevemykytyn" in a meta tag.
  { file: "north359.html", host: "359north.com", email: null },
  { file: "power-hungry-foods.html", email: null },
];

describe("analysis pool", () => {
  const input = (body: Uint8Array) => ({
    body,
    contentType: "text/html; charset=utf-8",
    url: "https://acme.example/",
    country: "US",
    now: NOW,
  });

  it("runs the TypeScript task file on worker threads, moving a body that owns its buffer", async () => {
    const pool = createAnalysisPool({ threads: 1 });
    try {
      const body = new Uint8Array(Buffer.from("<p>© 2015 Acme</p><center>x</center>", "utf8"));
      const { signals, evidence } = await pool.analyze(input(body));
      expect(evidence.copyright_year).toBe(2015);
      expect(signals.legacy_site_tech).toBe(true);
      expect(body.byteLength).toBe(0); // transferred, not copied
    } finally {
      await pool.close();
    }
  });

  it("copies a body that is a view into a larger buffer, leaving its neighbours intact", async () => {
    const pool = createAnalysisPool({ threads: 1 });
    try {
      const shared = Buffer.from("xxxx<p>© 2024 Acme</p>yyyy", "utf8");
      const view = shared.subarray(4, shared.byteLength - 4);
      const { evidence } = await pool.analyze(input(view));
      expect(evidence.copyright_year).toBe(2024);
      expect(shared.toString("utf8")).toBe("xxxx<p>© 2024 Acme</p>yyyy");
    } finally {
      await pool.close();
    }
  });

  it("stops a pathological page when the signal aborts, and keeps serving", async () => {
    const pool = createAnalysisPool({ threads: 1 });
    try {
      // htmlparser2 is quadratic in nesting depth: this page would take far longer than the test.
      const deeplyNested = new Uint8Array(Buffer.from("<div><font>".repeat(300_000), "utf8"));
      const started = performance.now();
      await expect(pool.analyze(input(deeplyNested), { signal: AbortSignal.timeout(200) })).rejects.toThrow(
        /abort/i,
      );
      expect(performance.now() - started).toBeLessThan(5_000);
      const body = new Uint8Array(Buffer.from("<p>© 2020 Acme</p>", "utf8"));
      expect((await pool.analyze(input(body))).evidence.copyright_year).toBe(2020);
    } finally {
      await pool.close();
    }
  });
});

if (!existsSync(corpusDir)) {
  describe("audit of the homepage corpus", () => {
    it("needs the corpus folder", () => {
      throw new Error(
        `The homepage corpus is missing: expected the pages in ${corpusDir} (CI always has them).`,
      );
    });
  });
} else {
  describe("audit of the homepage corpus", () => {
    let server: Server;
    let origin: string;
    let pool: AnalysisPool;
    // Resolves every host name to the local server, so pages can be fetched under their .ca host.
    const loopbackAgent = new Agent({
      connect: {
        lookup: (_hostname, options, callback) => {
          if (options.all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
          else callback(null, "127.0.0.1", 4);
        },
      },
    });
    const results = new Map<string, { output: AnalyzeOutput; body: Uint8Array }>();
    const emailResults = new Map<string, AnalyzeOutput>();

    /** Fetches a corpus page from the local server under `host` and analyses it in the pool. */
    async function fetchAndAnalyze(file: string, host: string, country: string | null) {
      const response = await fetch(`http://${host}/${file}`, { dispatcher: loopbackAgent });
      expect(response.status, file).toBe(200);
      const bytes = new Uint8Array(await response.arrayBuffer());
      const output = await pool.analyze({
        body: bytes.slice(), // the pool takes ownership of the buffer it is given
        contentType: response.headers.get("content-type"),
        url: response.url,
        country,
        now: NOW,
      });
      return { output, body: bytes };
    }

    beforeAll(async () => {
      server = createServer((request, response) => {
        const file = path.basename(decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname));
        readFile(path.join(corpusDir, file)).then(
          (body) => {
            response.writeHead(200, { "content-type": "text/html" });
            response.end(body);
          },
          () => {
            response.writeHead(404).end();
          },
        );
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as AddressInfo;
      origin = `127.0.0.1:${port}`;
      pool = createAnalysisPool({ threads: 2 });

      await Promise.all(
        pages.map(async (page) => {
          const host = page.host === undefined ? origin : `${page.host}:${port}`;
          results.set(page.file, await fetchAndAnalyze(page.file, host, page.country));
        }),
      );
      await Promise.all(
        emailPages.map(async (page) => {
          const host = page.host === undefined ? origin : `${page.host}:${port}`;
          emailResults.set(page.file, (await fetchAndAnalyze(page.file, host, null)).output);
        }),
      );
    });

    afterAll(async () => {
      await pool?.close();
      await loopbackAgent.close();
      await new Promise((resolve) => server?.close(resolve));
    });

    it("covers every page of the corpus", async () => {
      const { readdir } = await import("node:fs/promises");
      const corpusFiles = (await readdir(corpusDir)).filter((file) => file.endsWith(".html")).sort();
      expect(pages.map((page) => page.file).sort()).toEqual(corpusFiles);
      expect(emailPages.map((page) => page.file).sort()).toEqual(corpusFiles);
    });

    it.each(pages)("$file", ({ file, signals, evidence }) => {
      const result = results.get(file);
      expect(result, `no analysis for ${file}`).toBeDefined();
      const { email: _email, ...otherSignals } = result!.output.signals;
      const {
        email_found_in: _foundIn,
        email_chosen_by: _chosenBy,
        email_other_candidates: _others,
        email_rejected: _rejected,
        email_page_url: _pageUrl,
        ...otherEvidence
      } = result!.output.evidence;
      // Every page of the corpus is a business's own site: none is parked.
      expect(otherSignals).toEqual({ parked_domain: false, ...signals });
      expect(otherEvidence).toEqual(evidence);
    });

    it.each(emailPages)("contact email of $file", ({ file, email, foundIn, chosenBy }) => {
      const output = emailResults.get(file);
      expect(output, `no analysis for ${file}`).toBeDefined();
      expect(output!.signals.email).toBe(email);
      expect(output!.evidence.email_found_in).toEqual(foundIn ?? []);
      expect(output!.evidence.email_chosen_by).toBe(chosenBy ?? null);
    });

    it("finds no wrong address on any page (a wrong address is worse than none)", () => {
      const wrong: string[] = [];
      const missed: string[] = [];
      for (const { file, email } of emailPages) {
        const found = emailResults.get(file)?.signals.email ?? null;
        if (found !== null && found !== email) wrong.push(`${file}: found ${found}, expected ${email}`);
        if (found === null && email !== null) missed.push(`${file}: expected ${email}`);
      }
      const expected = emailPages.filter((page) => page.email !== null).length;
      console.log(
        `contact email over ${emailPages.length} corpus pages: ${expected} show an address, ` +
          `${expected - missed.length} found, ${missed.length} missed, ${wrong.length} wrong`,
      );
      expect(wrong).toEqual([]);
    });

    it("serves the pages without a charset, so each page's meta charset decides", () => {
      const chaver = results.get("chaver-index-old.html")!;
      expect(decodeHtml(chaver.body, "text/html")).toContain("<title>Mishnah משנה</title>");
      const powerHungry = results.get("power-hungry-foods.html")!;
      expect(decodeHtml(powerHungry.body, "text/html")).toContain("Copyright © 2009");
    });
  });
}
