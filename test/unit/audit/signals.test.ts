import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  analyzeHomepage,
  type HomepageInput,
  isResponsiveViewport,
  jqueryFromScriptUrl,
} from "../../../shared/audit/signals.ts";

const NOW = new Date("2026-11-22T12:00:00Z");
const GOOD_VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

/** Analyses a small page: a modern head (unless given) and the given body. */
function analyze(
  body: string,
  options: { head?: string; url?: string; country?: string | null; now?: Date } = {},
) {
  const input: HomepageInput = {
    html: `<!doctype html><html><head>${options.head ?? GOOD_VIEWPORT}</head><body>${body}</body></html>`,
    url: options.url ?? "https://business.example/",
    country: options.country === undefined ? "US" : options.country,
    now: options.now ?? NOW,
  };
  return analyzeHomepage(input);
}

describe("viewport", () => {
  it("flags a page without a viewport meta tag", () => {
    const { signals, evidence } = analyze("<p>Hi</p>", { head: "<title>x</title>" });
    expect(signals.no_mobile_viewport).toBe(true);
    expect(signals.not_mobile_friendly).toBe(true);
    expect(evidence.viewport).toBeNull();
  });

  it("accepts width=device-width, initial-scale=1", () => {
    const { signals, evidence } = analyze("<p>Hi</p>");
    expect(signals.no_mobile_viewport).toBe(false);
    expect(signals.not_mobile_friendly).toBe(false);
    expect(evidence.viewport).toBe("width=device-width, initial-scale=1");
  });

  it("finds the tag whatever the case of its name", () => {
    const { signals } = analyze("", { head: '<META NAME="Viewport" CONTENT="width=device-width">' });
    expect(signals.no_mobile_viewport).toBe(false);
    expect(signals.not_mobile_friendly).toBe(false);
  });

  it("calls a fixed-width viewport (width=960) not mobile friendly, though it has a viewport", () => {
    const { signals, evidence } = analyze("", { head: '<meta name="viewport" content="width=960">' });
    expect(signals.no_mobile_viewport).toBe(false);
    expect(signals.not_mobile_friendly).toBe(true);
    expect(evidence.viewport).toBe("width=960");
  });

  it("calls initial-scale=0.5 not mobile friendly", () => {
    const head = '<meta name="viewport" content="width=device-width, initial-scale=0.5">';
    expect(analyze("", { head }).signals.not_mobile_friendly).toBe(true);
  });

  it.each([
    ["width=device-width", true],
    ["width = device-width ; initial-scale = 1.0", true],
    ["width=device-width, initial-scale=1, maximum-scale=1, user-scalable=no", true],
    ["initial-scale=1", true],
    ["initial-scale=2", true],
    ["width=1024", false],
    ["width=device-width, initial-scale=0.86", false],
    ["initial-scale=abc", false],
    ["", false],
    ["user-scalable=no", false],
  ])("isResponsiveViewport(%j) is %s", (content, expected) => {
    expect(isResponsiveViewport(content)).toBe(expected);
  });
});

describe("jQuery version from a script URL", () => {
  it.each([
    ["https://code.jquery.com/jquery-1.8.2.min.js", "1.8.2"],
    ["//ajax.googleapis.com/ajax/libs/jquery/1.8.2/jquery.min.js", "1.8.2"],
    ["/wp-includes/js/jquery/jquery.js?ver=1.12.4", "1.12.4"],
    ["/js/jquery.min.js?v=2.1.0", "2.1.0"],
    ["wp-includes/js/jquery/jqueryb8ff.js?ver=1.12.4", "1.12.4"],
    ["wp-includes/js/jquery/jquery4a5f.js?ver=1.12.4-wp", "1.12.4"],
    ["https://cdn.jsdelivr.net/npm/jquery@2.2.4/dist/jquery.min.js", "2.2.4"],
    ["https://code.jquery.com/jquery-3.7.1.slim.min.js", "3.7.1"],
    ["/js/jquery.1.11.0.min.js#x", "1.11.0"],
  ])("%s -> %s", (src, version) => {
    expect(jqueryFromScriptUrl(src)).toEqual({ version });
  });

  it.each([
    "scripts/jquery.js",
    "media/jui/js/jquery.min_186342d2c701a655a4e946f445207b21.js",
    "/static/1.0/js/jquery.js",
  ])("%s is jQuery of unknown version", (src) => {
    expect(jqueryFromScriptUrl(src)).toEqual({ version: null });
  });

  it.each([
    "/js/jquery-migrate-1.4.1.min.js",
    "/wp-includes/js/jquery/jquery-migrate.min.js?ver=1.4.1",
    "/js/jquery-ui-1.8.24.custom.min.js",
    "//ajax.googleapis.com/ajax/libs/jqueryui/1.8.2/jquery-ui.min.js",
    "/js/jquery.parallax-1.1.3.js",
    "/js/jquery.cycle.all.js?ver=2.9",
    "/js/jquery.cookie.js?ver=2.1",
    "/js/jquery.fade.js?ver=2.1",
    "modules/mod_spotlight/assets/js/jquery-noconflict.js",
    "/js/app.js?ver=1.2.3",
  ])("%s is not jQuery core", (src) => {
    expect(jqueryFromScriptUrl(src)).toBeNull();
  });
});

describe("legacy_site_tech", () => {
  it("is false for a modern page, with empty evidence", () => {
    const { signals, evidence } = analyze('<main><p>Welcome</p></main><script src="/app.js"></script>');
    expect(signals.legacy_site_tech).toBe(false);
    expect(evidence).toMatchObject({ jquery_version: null, legacy_tags: [], flash: [], table_layout: null });
  });

  it("flags jQuery 1 read from jquery.js?ver=1.12.4", () => {
    const { signals, evidence } = analyze(
      '<script src="/wp-includes/js/jquery/jquery.js?ver=1.12.4"></script>',
    );
    expect(signals.legacy_site_tech).toBe(true);
    expect(signals.outdated_website).toBe(true);
    expect(evidence.jquery_version).toBe("1.12.4");
  });

  it("flags jQuery 1 read from /1.8.2/jquery.min.js", () => {
    const { signals, evidence } = analyze(
      '<script src="https://ajax.googleapis.com/ajax/libs/jquery/1.8.2/jquery.min.js"></script>',
    );
    expect(signals.legacy_site_tech).toBe(true);
    expect(evidence.jquery_version).toBe("1.8.2");
  });

  it("flags jQuery 2", () => {
    expect(analyze('<script src="/js/jquery-2.2.4.min.js"></script>').signals.legacy_site_tech).toBe(true);
  });

  it("does not flag jQuery 3, nor count jquery-migrate 1.4.1 as jQuery 1", () => {
    const { signals, evidence } = analyze(
      '<script src="/js/jquery-3.6.0.min.js"></script><script src="/js/jquery-migrate-1.4.1.min.js"></script>' +
        '<script src="/wp-includes/js/jquery/jquery-migrate.min.js?ver=1.4.1"></script>',
    );
    expect(signals.legacy_site_tech).toBe(false);
    expect(evidence.jquery_version).toBe("3.6.0");
  });

  it("reports the oldest jQuery when a page loads several", () => {
    const { signals, evidence } = analyze(
      '<script src="/js/jquery-3.6.0.min.js"></script><script src="//code.jquery.com/jquery-1.10.2.js"></script>' +
        '<script src="/libs/jquery/1.11.3/jquery.min.js"></script>',
    );
    expect(signals.legacy_site_tech).toBe(true);
    expect(evidence.jquery_version).toBe("1.10.2");
  });

  it("ignores a jQuery URL written inside an inline script", () => {
    const body =
      "<script>window.jQuery || document.write('<script src=\"js/jquery-1.4.2.min.js\"><\\/script>')</script>";
    expect(analyze(body).signals.legacy_site_tech).toBe(false);
  });

  describe("Flash", () => {
    it("does not take a .swf string inside a script for Flash", () => {
      const { signals, evidence } = analyze(
        '<script>var links = \'a[href*=".swf"]\'; var intro = "intro.swf";</script><p>Hello</p>',
      );
      expect(evidence.flash).toEqual([]);
      expect(signals.legacy_site_tech).toBe(false);
      expect(signals.not_mobile_friendly).toBe(false);
    });

    it("flags <embed src=x.swf>, which also makes the page not mobile friendly", () => {
      const { signals, evidence } = analyze("<embed src=x.swf width=300 height=200>");
      expect(evidence.flash).toEqual(["x.swf"]);
      expect(signals.legacy_site_tech).toBe(true);
      expect(signals.not_mobile_friendly).toBe(true);
      expect(signals.no_mobile_viewport).toBe(false);
    });

    it("flags an <object> of Flash type and a movie <param>, once per movie", () => {
      const { evidence } = analyze(
        '<object classid="clsid:D27CDB6E-AE6D-11CF-96B8-444553540000" width="193" height="63">' +
          '<param name="movie" value="Intro Logo.swf"><param name="quality" value="High">' +
          '<embed src="Intro%20Logo.swf" type="application/x-shockwave-flash"></object>' +
          '<object type="application/x-shockwave-flash" data="/media/banner.swf?loop=1"></object>',
      );
      expect(evidence.flash).toEqual(["Intro Logo.swf", "/media/banner.swf?loop=1"]);
    });

    it("flags a Flash-typed embed without a .swf URL by its tag", () => {
      const { evidence } = analyze('<embed type="application/x-shockwave-flash" src="/player?id=3">');
      expect(evidence.flash).toEqual(['<embed type="application/x-shockwave-flash" src="/player?id=3">']);
    });

    it("does not flag other embedded objects or links to .swf files", () => {
      const { evidence, signals } = analyze(
        '<object type="application/pdf" data="/menu.pdf"></object><a href="/old/game.swf">Play</a>',
      );
      expect(evidence.flash).toEqual([]);
      expect(signals.legacy_site_tech).toBe(false);
    });
  });

  describe("non-conforming tags", () => {
    it("lists the obsolete tags found, sorted and distinct", () => {
      const { signals, evidence } = analyze(
        '<center><font face="Arial">Hi</font><FONT size=2>x</FONT></center><marquee>News</marquee><tt>a</tt>',
      );
      expect(signals.legacy_site_tech).toBe(true);
      expect(evidence.legacy_tags).toEqual(["center", "font", "marquee", "tt"]);
    });

    it.each([
      "frameset",
      "frame",
      "big",
      "strike",
      "nobr",
      "applet",
      "basefont",
      "bgsound",
      "spacer",
      "blink",
    ])("flags <%s>", (tag) => {
      expect(analyze(`<${tag}>x</${tag}>`).evidence.legacy_tags).toEqual([tag]);
    });

    it("ignores SVG's own <font>, and tags inside comments or scripts", () => {
      const { signals, evidence } = analyze(
        '<svg><defs><font id="f"><glyph/></font></defs></svg><!-- <center>old</center> -->' +
          "<script>document.write('<font color=red>x</font>')</script>",
      );
      expect(evidence.legacy_tags).toEqual([]);
      expect(signals.legacy_site_tech).toBe(false);
    });
  });

  describe("table layout", () => {
    const paragraphs = (count: number) =>
      "<p>Our shop repairs cars and trucks of every make.</p>".repeat(count);

    it("flags nested layout tables", () => {
      const { signals, evidence } = analyze(
        `<table width="100%"><tr><td><table><tr><td>Menu</td></tr></table></td><td>${paragraphs(3)}</td></tr></table>`,
      );
      expect(signals.legacy_site_tech).toBe(true);
      expect(evidence.table_layout).toBe('nested layout tables: <table width="100%">');
    });

    it("flags a fixed-pixel-width outer table holding most of the body (width attribute)", () => {
      const { evidence } = analyze(
        `<table width="780" align="center"><tr><td>${paragraphs(10)}</td></tr></table><p>Footer</p>`,
      );
      expect(evidence.table_layout).toBe('fixed-width layout table: <table width="780" align="center">');
    });

    it("flags a fixed-pixel-width outer table set by inline style", () => {
      const { evidence } = analyze(`<table style="width: 900px"><tr><td>${paragraphs(10)}</td></tr></table>`);
      expect(evidence.table_layout).toContain("fixed-width layout table");
    });

    it("does not flag a fixed-width table that holds a small part of the body", () => {
      const { evidence } = analyze(
        `${paragraphs(20)}<table width="700"><tr><td>Mon</td><td>9-5</td></tr></table>`,
      );
      expect(evidence.table_layout).toBeNull();
    });

    it("does not flag a narrow or fluid single table", () => {
      expect(
        analyze(`<table width="400"><tr><td>${paragraphs(5)}</td></tr></table>`).evidence.table_layout,
      ).toBeNull();
      expect(
        analyze(`<table width="100%"><tr><td>${paragraphs(5)}</td></tr></table>`).evidence.table_layout,
      ).toBeNull();
    });

    it("does not flag a table nested in a data table (one with headers)", () => {
      const { evidence } = analyze(
        "<table><thead><tr><th>Plan</th><th>Details</th></tr></thead>" +
          "<tr><td>Basic</td><td><table><tr><td>1 GB</td></tr></table></td></tr></table>",
      );
      expect(evidence.table_layout).toBeNull();
    });
  });
});

describe("stale_copyright", () => {
  it("takes the largest year of a range", () => {
    const { signals, evidence } = analyze(
      "<footer><p>Copyright &copy; 2012-2020 &middot; AutoSpace</p></footer>",
    );
    expect(signals.stale_copyright).toBe(true);
    expect(evidence.copyright_year).toBe(2020);
    expect(evidence.copyright_text).toBe("Copyright © 2012-2020 · AutoSpace");
  });

  it.each([
    ["<p>© 2024 Acme</p>", 2024, true],
    ["<p>© 2025 Acme</p>", 2025, false],
    ["<p>&copy; 2026 Acme</p>", 2026, false],
    ["<p>(c) 2019 Acme</p>", 2019, true],
    ["<p>(C) 2010&ndash;2025 Acme</p>", 2025, false],
    ["<p>Copyright 2015 Acme Inc.</p>", 2015, true],
    ["<p>Copyright ?2008 Victek Machinery Inc.,</p>", 2008, true],
    ["<p>&#169;2017 Canada Learning Code</p>", 2017, true],
    ["<p>Tous droits réservés 2015</p>", 2015, true],
    ["<p>Acme - Todos los derechos reservados © 2021</p>", 2021, true],
    ["<p>2018 Acme. All rights reserved.</p>", 2018, true],
  ])("%s -> year %s, stale %s (now 2026)", (body, year, stale) => {
    const { signals, evidence } = analyze(body);
    expect(evidence.copyright_year).toBe(year);
    expect(signals.stale_copyright).toBe(stale);
  });

  it("says nothing (null) for a notice without a year, and keeps the notice", () => {
    const { signals, evidence } = analyze(
      "<footer><h3>LOGICUS INC.</h3><h3> Tous droits réservés.</h3></footer>",
    );
    expect(signals.stale_copyright).toBeNull();
    expect(evidence.copyright_text).toBe("Tous droits réservés.");
    expect(evidence.copyright_year).toBeNull();
    expect(signals.outdated_website).toBe(false);
  });

  it("says nothing for a page without a notice, even with years in its text", () => {
    const { signals, evidence } = analyze("<p>Founded in 1994. Best of 2015.</p>");
    expect(signals.stale_copyright).toBeNull();
    expect(evidence.copyright_text).toBeNull();
  });

  it("ignores years outside 1990..next year", () => {
    const { signals, evidence } = analyze("<p>© 1985 - 2031 Acme</p>");
    expect(signals.stale_copyright).toBeNull();
    expect(evidence.copyright_year).toBeNull();
    expect(analyze("<p>© 1989, 2016 Acme</p>").evidence.copyright_year).toBe(2016);
  });

  it("reads a year put on the line after the notice", () => {
    expect(analyze("<p>Copyright<br>2016 Acme Plumbing</p>").evidence.copyright_year).toBe(2016);
  });

  it("ignores notices inside scripts and comments", () => {
    const { evidence } = analyze(
      '<script>var footer = "© 2010 Acme";</script><!-- © 2009 --><p>© 2025 Acme</p>',
    );
    expect(evidence.copyright_year).toBe(2025);
  });

  it("keeps the notice with the newest year when there are several", () => {
    const { evidence } = analyze("<p>Photos © 2011 J. Doe</p><footer><p>© 2014-2019 Acme</p></footer>");
    expect(evidence.copyright_year).toBe(2019);
    expect(evidence.copyright_text).toBe("© 2014-2019 Acme");
  });

  it("cuts the evidence of a long paragraph to at most 200 characters around the notice", () => {
    const filler = "We fix every make and model of car. ".repeat(20);
    const { evidence } = analyze(`<p>${filler}Copyright © 2013 Acme Auto. ${filler}</p>`);
    expect(evidence.copyright_year).toBe(2013);
    expect(evidence.copyright_text).toContain("Copyright © 2013 Acme Auto.");
    expect(evidence.copyright_text!.length).toBeLessThanOrEqual(200);
  });

  it("is stale from two calendar years on, by the injected now", () => {
    const body = "<p>© 2023 Acme</p>";
    expect(analyze(body, { now: new Date("2024-06-01T00:00:00Z") }).signals.stale_copyright).toBe(false);
    expect(analyze(body, { now: new Date("2025-12-31T23:59:59Z") }).signals.stale_copyright).toBe(true);
  });

  it("accepts next year (clock skew) but not the year after", () => {
    const now = new Date("2026-12-31T00:00:00Z");
    expect(analyze("<p>© 2027 Acme</p>", { now }).evidence.copyright_year).toBe(2027);
    expect(analyze("<p>© 2028 Acme</p>", { now }).evidence.copyright_year).toBeNull();
  });
});

describe("last_media_year and stale_content", () => {
  it("reads WordPress upload folders in src", () => {
    const { signals, evidence } = analyze('<img src="/wp-content/uploads/2019/04/shop.jpg">');
    expect(signals.last_media_year).toBe(2019);
    expect(signals.stale_content).toBe(true);
    expect(evidence.media_paths).toEqual(["/wp-content/uploads/2019/04/shop.jpg"]);
  });

  it("reads srcset, data-* attributes, inline style url(), <style> and og:image, newest first", () => {
    const { signals, evidence } = analyze(
      '<img srcset="/wp-content/uploads/2016/01/a-300x200.jpg 300w, /wp-content/uploads/2017/02/a.jpg 1024w">' +
        '<img data-src="https://shop.example/wp-content/uploads/sites/3/2018/03/lazy.jpg">' +
        "<div style=\"background-image: url('wp-content/uploads/2015/05/hero.jpg')\"></div>" +
        '<div data-mk-img-set=\'{"desktop":"https:\\/\\/shop.example\\/wp-content\\/uploads\\/2014\\/06\\/x.jpg"}\'></div>',
      {
        head: `${GOOD_VIEWPORT}<meta property="og:image" content="https://shop.example/wp-content/uploads/2021/07/og.png">
          <style>.banner { background: url(/wp-content/uploads/2020/08/banner.png) }</style>`,
      },
    );
    expect(signals.last_media_year).toBe(2021);
    expect(evidence.media_paths).toEqual([
      "https://shop.example/wp-content/uploads/2021/07/og.png",
      "/wp-content/uploads/2020/08/banner.png",
      "https://shop.example/wp-content/uploads/sites/3/2018/03/lazy.jpg",
      "/wp-content/uploads/2017/02/a.jpg",
      "/wp-content/uploads/2016/01/a-300x200.jpg",
      "wp-content/uploads/2015/05/hero.jpg",
      "https://shop.example/wp-content/uploads/2014/06/x.jpg",
    ]);
  });

  it("reads Drupal and Ghost dated folders, and links to media", () => {
    expect(analyze('<img src="/sites/default/files/2020-03/team.png">').signals.last_media_year).toBe(2020);
    expect(analyze('<img src="/content/images/2021/07/cover.png">').signals.last_media_year).toBe(2021);
    expect(analyze('<img src="/content/images/size/w600/2022/01/cover.png">').signals.last_media_year).toBe(
      2022,
    );
    expect(analyze('<a href="/wp-content/uploads/2013/09/menu.pdf">Menu</a>').signals.last_media_year).toBe(
      2013,
    );
  });

  it("ignores years outside 1995..next year and impossible months", () => {
    const { signals, evidence } = analyze(
      '<img src="/wp-content/uploads/1990/01/a.jpg"><img src="/wp-content/uploads/2031/01/b.jpg">' +
        '<img src="/wp-content/uploads/2019/13/c.jpg"><img src="/files/2018-00/d.jpg">',
    );
    expect(signals.last_media_year).toBeNull();
    expect(signals.stale_content).toBe(false);
    expect(evidence.media_paths).toEqual([]);
  });

  it("ignores media paths inside scripts and look-alike folders", () => {
    const { signals } = analyze(
      '<script>var img = "/wp-content/uploads/2012/01/x.jpg";</script>' +
        '<img src="/my-wp-content/uploads/2012/01/y.jpg"><img src="/uploads/2012/01/z.jpg">',
    );
    expect(signals.last_media_year).toBeNull();
  });

  it("is not stale for last year's media, and false without media", () => {
    expect(analyze('<img src="/wp-content/uploads/2025/12/new.jpg">').signals.stale_content).toBe(false);
    expect(analyze("<p>No media</p>").signals).toMatchObject({ last_media_year: null, stale_content: false });
  });

  it("deduplicates paths and keeps at most 10", () => {
    const images = Array.from(
      { length: 15 },
      (_, index) => `<img src="/wp-content/uploads/2018/05/p${index}.jpg">`,
    );
    const { evidence } = analyze(`${images.join("")}${images.join("")}`);
    expect(evidence.media_paths).toHaveLength(10);
    expect(new Set(evidence.media_paths).size).toBe(10);
  });
});

describe("no_french_version", () => {
  const ENGLISH_PAGE =
    "<nav><a href='/'>Home</a><a href='/contact'>Contact</a></nav><p>Welcome to our bakery.</p>";

  describe("when the business is not Canadian", () => {
    it("is null for an address outside Canada, even with a .ca host or a postal code", () => {
      const { signals, evidence } = analyze(`${ENGLISH_PAGE}<p>Ottawa ON K1A 0B1</p>`, {
        country: "US",
        url: "https://bakery.ca/",
      });
      expect(signals.no_french_version).toBeNull();
      expect(evidence.canadian_by).toBeNull();
    });

    it("is null without an address country, a .ca host or a postal code", () => {
      const { signals, evidence } = analyze(ENGLISH_PAGE, { country: null, url: "https://bakery.com/" });
      expect(signals.no_french_version).toBeNull();
      expect(evidence.canadian_by).toBeNull();
    });
  });

  describe("when the business is Canadian", () => {
    it("knows it from the address country first", () => {
      const { signals, evidence } = analyze(ENGLISH_PAGE, { country: "ca" });
      expect(signals.no_french_version).toBe(true);
      expect(evidence).toMatchObject({ canadian_by: "address", french_version: null });
    });

    it("else from a .ca host", () => {
      const { signals, evidence } = analyze(ENGLISH_PAGE, {
        country: null,
        url: "https://www.bakery.ca/home",
      });
      expect(signals.no_french_version).toBe(true);
      expect(evidence.canadian_by).toBe("tld");
    });

    it("else from a Canadian postal code in the page text", () => {
      const { signals, evidence } = analyze(
        `${ENGLISH_PAGE}<address>123 Main St, Ottawa ON K1A 0B1</address>`,
        {
          country: null,
        },
      );
      expect(signals.no_french_version).toBe(true);
      expect(evidence).toMatchObject({ canadian_by: "postal_code", canadian_postal_code: "K1A 0B1" });
    });

    it("does not take a postal code from a comment or a script", () => {
      const { evidence } = analyze(`${ENGLISH_PAGE}<!-- K1A 0B1 --><script>var zip = "K1A 0B1";</script>`, {
        country: null,
      });
      expect(evidence.canadian_by).toBeNull();
    });

    it.each([
      ['<html lang="fr-CA"><head></head><body><p>x</p></body></html>', "html lang=fr-CA"],
      [
        '<html><head><link rel="alternate" hreflang="fr" href="/fr/"></head><body></body></html>',
        "hreflang=fr",
      ],
      [
        '<html><head><meta property="og:locale:alternate" content="fr_CA"></head><body></body></html>',
        "meta og:locale:alternate=fr_CA",
      ],
      [
        '<html><head><meta name="language" content="French"></head><body></body></html>',
        "meta language=French",
      ],
    ])("finds the French version in %s", (html, found) => {
      const { signals, evidence } = analyzeHomepage({
        html,
        url: "https://b.example/",
        country: "CA",
        now: NOW,
      });
      expect(signals.no_french_version).toBe(false);
      expect(evidence.french_version).toBe(found);
    });

    it.each([
      ['<a href="/fr">FR</a>', "link href=/fr"],
      ['<a href="/fr/accueil">Accueil</a>', "link href=/fr/accueil"],
      ['<a href="./fr">Version</a>', "link href=./fr"],
      ['<a href="https://fr.bakery.example/">Site</a>', "link href=https://fr.bakery.example/"],
      ['<a href="/francais/index.html">Site</a>', "link href=/francais/index.html"],
      ['<a href="/fran%C3%A7ais/">Site</a>', "link href=/fran%C3%A7ais/"],
      ['<a href="index-fra.html">Site</a>', "link href=index-fra.html"],
      ['<a href="/?lang=fr">Site</a>', "link href=/?lang=fr"],
      ['<a href="#" id="lang-switch"> Français </a>', "link text Français"],
      ['<a href="javascript:void(0)">FRENCH</a>', "link text FRENCH"],
      ['<a href="#">fr</a>', "link text fr"],
      ['<a href="/other" title="Français"><span class="flag"></span></a>', "link label Français"],
      ['<a href="/other"><img src="/img/flag-qc.png" alt="Français"></a>', "image alt Français"],
    ])("finds the French version from the link %s", (link, found) => {
      const { signals, evidence } = analyze(`${ENGLISH_PAGE}${link}`, { country: "CA" });
      expect(signals.no_french_version).toBe(false);
      expect(evidence.french_version).toBe(found);
    });

    it.each([
      '<a href="/free-quote">Free quote</a>',
      '<a href="/frames/gallery.html">Frames</a>',
      '<a href="/en/">English</a>',
      '<a href="/fresh/">France trip</a>',
      '<a href="mailto:fr@bakery.example">Email</a>',
      '<img src="/img/francais.png" alt="Français">',
      "<p>Français</p>",
    ])("finds no French version in %s", (markup) => {
      const { signals, evidence } = analyze(`${ENGLISH_PAGE}${markup}`, { country: "CA" });
      expect(evidence.french_version).toBeNull();
      expect(signals.no_french_version).toBe(true);
    });

    it("takes a page written in French for a French version", () => {
      const french =
        "<h1>Bienvenue chez nous</h1><p>Nous sommes une entreprise de logiciels et nous offrons des services " +
        "pour les entreprises du Québec. Avec notre équipe, vous avez accès à des outils qui sont simples. " +
        "Nous développons des solutions sur mesure pour vos besoins et pour votre croissance dans la région. " +
        "Cette équipe est aussi là pour le soutien et la formation des utilisateurs chez vous.</p>";
      const { signals, evidence } = analyze(french, { country: "CA" });
      expect(evidence.french_version).toBe("page text in French");
      expect(signals.no_french_version).toBe(false);
    });
  });
});

describe("outdated_website", () => {
  it("is legacy_site_tech or stale_copyright", () => {
    expect(analyze("<center>x</center><p>© 2025</p>").signals.outdated_website).toBe(true);
    expect(analyze("<p>© 2015</p>").signals.outdated_website).toBe(true);
    expect(analyze("<p>© 2025</p>").signals.outdated_website).toBe(false);
    expect(analyze("<p>No notice</p>").signals.outdated_website).toBe(false);
  });
});

describe("on any input", () => {
  const htmlFragment = fc.oneof(
    fc.string(),
    fc.constantFrom(
      "<table>",
      "</table>",
      "<td>",
      "<center>",
      "<svg><font>",
      "<!--",
      "-->",
      "<script>",
      "</script>",
      "©",
      "(c) 2015",
      "Copyright",
      "<br>",
      '<meta name="viewport" content="',
      '<img src="/wp-content/uploads/2019/04/x.jpg">',
      '<a href="/fr">',
      "<embed src=a.swf>",
      '<script src="jquery-1.8.2.js"></script>',
      "K1A 0B1",
      "<p>",
      "<div",
      "&copy;",
    ),
  );

  it("never throws, and answers every signal that applies", () => {
    fc.assert(
      fc.property(
        fc.array(htmlFragment, { maxLength: 40 }),
        fc.string(),
        fc.option(fc.constantFrom("CA", "US", "", "ca")),
        (fragments, url, country) => {
          const { signals } = analyzeHomepage({ html: fragments.join(""), url, country, now: NOW });
          for (const name of [
            "no_mobile_viewport",
            "legacy_site_tech",
            "stale_content",
            "not_mobile_friendly",
            "outdated_website",
          ] as const) {
            expect(typeof signals[name]).toBe("boolean");
          }
          expect(signals.outdated_website).toBe(signals.legacy_site_tech || signals.stale_copyright === true);
          expect(signals.not_mobile_friendly || !signals.no_mobile_viewport).toBe(true);
          if (country === "US") expect(signals.no_french_version).toBeNull();
          if (country === "CA") expect(typeof signals.no_french_version).toBe("boolean");
        },
      ),
    );
  });

  it("survives thousands of unclosed tags", () => {
    const html = "<div><font>".repeat(20_000);
    expect(
      analyzeHomepage({ html, url: "https://x.example/", country: null, now: NOW }).signals.legacy_site_tech,
    ).toBe(true);
  });
});
