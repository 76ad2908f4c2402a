import { describe, expect, it } from "vitest";
import {
  addressesFromJsonLd,
  addressesFromMailto,
  addressesInText,
  checkAddress,
  chooseContactEmail,
  decodeCloudflareEmail,
  type EmailFinding,
} from "../../../shared/audit/contact-email.ts";
import { analyzeHomepage } from "../../../shared/audit/signals.ts";

const NOW = new Date("2026-11-22T12:00:00Z");

/** The contact email and its evidence for a small page served from `url`. */
function emailOf(body: string, options: { head?: string; url?: string } = {}) {
  const { signals, evidence } = analyzeHomepage({
    html: `<!doctype html><html><head>${options.head ?? ""}</head><body>${body}</body></html>`,
    url: options.url ?? "https://www.maple-plumbing.ca/",
    country: "CA",
    now: NOW,
  });
  return {
    email: signals.email,
    foundIn: evidence.email_found_in,
    chosenBy: evidence.email_chosen_by,
    others: evidence.email_other_candidates,
    rejected: evidence.email_rejected,
  };
}

/** Cloudflare's encoding, as its email-decode script reverses it: a key byte, then each byte XOR key. */
function cloudflareEncode(address: string, key: number): string {
  const hex = (byte: number) => byte.toString(16).padStart(2, "0");
  return hex(key) + [...Buffer.from(address, "utf8")].map((byte) => hex(byte ^ key)).join("");
}

describe("sources", () => {
  it("reads a mailto link: decoded, the query dropped, lower-cased", () => {
    const result = emailOf('<a href="mailto:Info%40Maple-Plumbing.ca?subject=Quote&body=Hi">Write</a>');
    expect(result).toMatchObject({
      email: "info@maple-plumbing.ca",
      foundIn: ["mailto"],
      chosenBy: "own_domain",
    });
  });

  it("reads JSON-LD email, with a mailto: prefix, and a contactPoint's email", () => {
    const jsonLd = (data: object) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
    expect(
      emailOf("", { head: jsonLd({ "@type": "Plumber", email: "mailto:office@maple-plumbing.ca" }) }),
    ).toMatchObject({ email: "office@maple-plumbing.ca", foundIn: ["json_ld"] });
    expect(
      emailOf("", {
        head: jsonLd({
          "@graph": [
            { "@type": "WebSite", name: "Maple" },
            {
              "@type": "Organization",
              contactPoint: [{ "@type": "ContactPoint", email: "sales@maple-plumbing.ca" }],
            },
          ],
        }),
      }),
    ).toMatchObject({ email: "sales@maple-plumbing.ca", foundIn: ["json_ld"] });
  });

  it("does not take JSON-LD email of a nested author (another party), nor invalid JSON", () => {
    const nested = `<script type="application/ld+json">${JSON.stringify({
      "@type": "WebPage",
      author: { "@type": "Person", email: "dev@agency-studio.com" },
    })}</script>`;
    expect(emailOf("", { head: nested }).email).toBeNull();
    expect(addressesFromJsonLd('{"email": "a@b.com",}')).toEqual([]);
  });

  it("reads microdata itemprop=email from content, href or text", () => {
    expect(emailOf('<meta itemprop="email" content="hello@maple-plumbing.ca">')).toMatchObject({
      email: "hello@maple-plumbing.ca",
      foundIn: ["microdata"],
    });
    expect(emailOf('<div itemscope><span itemprop="email"> Bookings@Gmail.com </span></div>')).toMatchObject({
      email: "bookings@gmail.com",
      foundIn: ["microdata", "text"],
      chosenBy: "role_address",
    });
  });

  it("reads an address in visible text, and the &#64; entity", () => {
    expect(emailOf("<footer>Write to us: jane&#64;maple-plumbing&#46;ca</footer>")).toMatchObject({
      email: "jane@maple-plumbing.ca",
      foundIn: ["text"],
    });
  });

  it.each([
    ["name [at] domain [dot] com", "<p>Email: jane [at] maple-plumbing [dot] ca</p>"],
    ["name(at)domain.com", "<p>Email: jane(at)maple-plumbing.ca</p>"],
    ["name {at} domain {dot} com", "<p>Email: jane {at} maple-plumbing {dot} ca</p>"],
    ["name at domain dot com", "<p>Email: jane at maple-plumbing dot ca</p>"],
    ["a full-width ＠", "<p>Email: jane＠maple-plumbing.ca</p>"],
  ])("undoes the obfuscation %s", (_form, body) => {
    expect(emailOf(body)).toMatchObject({ email: "jane@maple-plumbing.ca", foundIn: ["text"] });
  });

  it("does not read 'at' in ordinary prose as an address", () => {
    expect(addressesInText("Meet us at the shop at noon, or call at 5 pm.")).toEqual([]);
  });

  it("reads no part of a local part longer than 64 characters as an address", () => {
    expect(addressesInText(`${"a".repeat(70)}@maple-plumbing.ca`)).toEqual([]);
  });

  it("stays linear on hostile text: a page-long run of address characters around 'at' and '@'", () => {
    // Quadratic patterns would take minutes on these; the test's own timeout is the bound.
    const run = "a.".repeat(200_000);
    expect(addressesInText(`${run} at x dot ${run}`)).toEqual([]);
    expect(addressesInText(`${run}@${"b-".repeat(200_000)}`)).toEqual([]);
    expect(emailOf(`<p>${"x".repeat(400_000)} at ${"y.".repeat(100_000)}@</p>`).email).toBeNull();
  });

  it("decodes Cloudflare's data-cfemail and its protected link", () => {
    const hex = cloudflareEncode("info@maple-plumbing.ca", 0x5a);
    expect(
      emailOf(
        `<p>Email: <a href="/cdn-cgi/l/email-protection" class="__cf_email__" data-cfemail="${hex}">[email&#160;protected]</a></p>`,
      ),
    ).toMatchObject({ email: "info@maple-plumbing.ca", foundIn: ["cloudflare"] });
    const other = cloudflareEncode("owner@gmail.com", 0x13);
    expect(
      emailOf(`<a href="/cdn-cgi/l/email-protection#${other}"><span>Email the owner</span></a>`),
    ).toMatchObject({
      email: "owner@gmail.com",
      foundIn: ["cloudflare"],
      chosenBy: "contact_context",
    });
  });

  it("decodes a Cloudflare string computed by hand, and refuses malformed ones", () => {
    // Key 0x7a; 0x19 ^ 0x7a = 0x63 "c", 0x09 ^ 0x7a = 0x73 "s", 0x3a ^ 0x7a = 0x40 "@", ...
    expect(decodeCloudflareEmail("7a19093a09111b09110e54141f0e")).toBe("cs@skaskt.net");
    expect(decodeCloudflareEmail("7a1")).toBeNull();
    expect(decodeCloudflareEmail("zz19093a")).toBeNull();
    expect(decodeCloudflareEmail("00ff")).toBeNull(); // 0xff alone is not UTF-8
  });

  it("splits a mailto with several recipients and ignores an empty one", () => {
    expect(addressesFromMailto("mailto:a@x.com,b@y.com?cc=c@z.com")).toEqual(["a@x.com", "b@y.com"]);
    expect(addressesFromMailto("mailto:")).toEqual([]);
    expect(addressesFromMailto("https://x.com/mailto:a@x.com")).toEqual([]);
  });
});

describe("never from comments, scripts, styles, attributes or file names", () => {
  it("gives null for an address only inside an HTML comment", () => {
    expect(emailOf("<!-- Contact: info@maple-plumbing.ca --><p>Welcome</p>").email).toBeNull();
  });

  it("gives null for an address only inside script code or a style", () => {
    const body =
      '<script>var contact = "info@maple-plumbing.ca"; document.write("<a href=mailto:" + contact + ">")</script>' +
      "<style>/* info@maple-plumbing.ca */ @media (max-width: 600px) {}</style><p>Welcome</p>";
    expect(emailOf(body)).toMatchObject({ email: null, others: [], rejected: [] });
  });

  it("does not read image names, form placeholders or other attributes", () => {
    const body =
      '<img src="/img/logo@2x.png" srcset="/img/hero@3x.jpg 3x" alt="info@maple-plumbing.ca">' +
      '<input type="email" placeholder="your@email.com" value="info@maple-plumbing.ca">' +
      '<script src="https://widget.example.net/button.js?email=cs%40maple-plumbing.ca"></script>';
    expect(emailOf(body).email).toBeNull();
  });

  it("refuses a file name that looks like an address in visible text", () => {
    expect(emailOf("<footer>Download: brochure@2x.png, menu@large.pdf</footer>")).toMatchObject({
      email: null,
      rejected: [
        { address: "brochure@2x.png", reason: "invalid" },
        { address: "menu@large.pdf", reason: "invalid" },
      ],
    });
  });
});

describe("rejections", () => {
  it.each([
    ["you@example.com", "placeholder"],
    ["info@example.org", "placeholder"],
    ["info@example.net", "placeholder"],
    ["info@sub.example.co.uk", "placeholder"],
    ["contact@domain.com", "placeholder"],
    ["you@yourdomain.com", "placeholder"],
    ["email@address.com", "placeholder"],
    ["your@emailaddress.com", "placeholder"],
    ["name@maple-plumbing.ca", "placeholder"],
    ["user@gmail.com", "placeholder"],
    ["test@maple-plumbing.ca", "placeholder"],
    ["john.doe@gmail.com", "placeholder"],
    ["info@shop.test", "placeholder"],
    ["605a7baede844d278b89dc95ae0a9123@sentry-next.wixpress.com", "platform"],
    ["abc@o12345.ingest.sentry.io", "platform"],
    ["support@wix.com", "platform"],
    ["help@godaddy.com", "platform"],
    ["wordpress@wordpress.org", "platform"],
    ["support@squarespace.com", "platform"],
    ["us1@mailchimp.com", "platform"],
    ["www-style@w3.org", "platform"],
    ["info@schema.org", "platform"],
    ["noreply@maple-plumbing.ca", "automated"],
    ["no-reply@maple-plumbing.ca", "automated"],
    ["do-not-reply@maple-plumbing.ca", "automated"],
    ["0123456789abcdef0123@maple-plumbing.ca", "automated"],
    ["info@maple-plumbing", "invalid"],
    ["info..desk@maple-plumbing.ca", "invalid"],
    [".info@maple-plumbing.ca", "invalid"],
    ["info@-maple.ca", "invalid"],
    ["info@maple-plumbing.notarealtld", "invalid"],
    ["info@192.168.0.1", "invalid"],
    ["logo@2x.png", "invalid"],
    ["@maple-plumbing.ca", "invalid"],
    [`${"a".repeat(65)}@maple-plumbing.ca`, "too_long"],
    [`info@${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(60)}.ca`, "too_long"],
  ])("refuses %s (%s)", (address, reason) => {
    expect(checkAddress(address)).toEqual({ ok: false, address: address.toLowerCase(), reason });
  });

  it.each([
    "info@maple-plumbing.ca",
    "Owner.Name+quotes@Gmail.com",
    "bookings@maple-plumbing.co.uk",
    "o'brien@obrien-roofing.ie",
    "eco-marathon@uottawaminichallenges.ca",
  ])("accepts %s", (address) => {
    expect(checkAddress(address)).toEqual({ ok: true, address: address.toLowerCase() });
  });

  it("accepts an address on a reserved TLD only at the very host the page came from (demo and test sites)", () => {
    expect(checkAddress("info@glebe-pipe-drain.example", "glebe-pipe-drain.example")).toEqual({
      ok: true,
      address: "info@glebe-pipe-drain.example",
    });
    for (const [address, host] of [
      ["info@glebe-pipe-drain.example", "other-shop.example"],
      ["info@glebe-pipe-drain.example", undefined],
      ["info@shop.example", "www.shop.example"],
      ["test@glebe-pipe-drain.example", "glebe-pipe-drain.example"],
      ["info@shop.test", "maple-plumbing.ca"],
    ] as const) {
      expect(checkAddress(address, host), `${address} on ${host}`).toEqual({
        ok: false,
        address,
        reason: "placeholder",
      });
    }
  });

  it("keeps the refused addresses and why in the evidence, and chooses none of them", () => {
    const result = emailOf(
      '<footer><a href="mailto:you@yourdomain.com">x</a> <a href="mailto:noreply@maple-plumbing.ca">y</a></footer>',
    );
    expect(result).toMatchObject({
      email: null,
      foundIn: [],
      chosenBy: null,
      rejected: [
        { address: "you@yourdomain.com", reason: "placeholder" },
        { address: "noreply@maple-plumbing.ca", reason: "automated" },
      ],
    });
  });

  it("refuses the address credited to whoever built the site", () => {
    const result = emailOf(
      '<footer>© 2026 Maple Plumbing. Website by Pixel Studio, <a href="mailto:hello@pixelstudio.com">hello@pixelstudio.com</a></footer>',
    );
    expect(result).toMatchObject({
      email: null,
      rejected: [{ address: "hello@pixelstudio.com", reason: "site_credit" }],
    });
  });
});

describe("choice", () => {
  it("prefers the site's own domain over another address, wherever each is", () => {
    const result = emailOf(
      '<footer><a href="mailto:info@plumbing-directory.com">Listed on Plumbing Directory</a></footer>' +
        "<p>Questions? frank@maple-plumbing.ca</p>",
    );
    expect(result).toMatchObject({
      email: "frank@maple-plumbing.ca",
      chosenBy: "own_domain",
      others: [{ address: "info@plumbing-directory.com", source: "mailto" }],
    });
  });

  it("counts the registrable domain by the Public Suffix List (www. and mail. hosts, co.uk)", () => {
    const page = '<p>Email: <a href="mailto:bookings@mail.maple.co.uk">us</a> or info@other-firm.co.uk</p>';
    expect(emailOf(page, { url: "https://www.maple.co.uk/" })).toMatchObject({
      email: "bookings@mail.maple.co.uk",
      chosenBy: "own_domain",
    });
    // Another site under a private suffix (github.io) is not the same site.
    expect(emailOf("<p>ann@other.github.io</p>", { url: "https://maple.github.io/" })).toMatchObject({
      email: null,
    });
  });

  it("among own-domain addresses, takes the most general role", () => {
    const page =
      '<a href="mailto:ventes@maple-plumbing.ca">Ventes</a><a href="mailto:support@maple-plumbing.ca">Support</a>' +
      '<a href="mailto:info@maple-plumbing.ca">Info</a>';
    expect(emailOf(page).email).toBe("info@maple-plumbing.ca");
  });

  it("then a role address on another domain, then one in a contact context", () => {
    expect(
      emailOf('<p>Write: <a href="mailto:frank.m@gmail.com">Frank</a> or contact@maplegroup.com</p>'),
    ).toMatchObject({
      email: "contact@maplegroup.com",
      chosenBy: "role_address",
    });
    expect(emailOf('<div class="contact-us"><p>frank.m@gmail.com</p></div>')).toMatchObject({
      email: "frank.m@gmail.com",
      chosenBy: "contact_context",
    });
    expect(emailOf("<address>frank.m@gmail.com</address>").chosenBy).toBe("contact_context");
    expect(emailOf("<p>E-mail : frank.m@gmail.com</p>").chosenBy).toBe("contact_context");
  });

  it("gives null for a stray personal address with no contact context", () => {
    expect(emailOf("<article><p>Thanks to frank.m@gmail.com for the photos.</p></article>")).toMatchObject({
      email: null,
      others: [{ address: "frank.m@gmail.com", source: "text" }],
    });
  });

  it("merges one address found in several sources, strongest first", () => {
    const hex = cloudflareEncode("info@maple-plumbing.ca", 0x21);
    const page =
      `<footer>info@maple-plumbing.ca <a href="mailto:info@maple-plumbing.ca">mail</a>` +
      `<span data-cfemail="${hex}">[email protected]</span></footer>`;
    expect(emailOf(page).foundIn).toEqual(["mailto", "cloudflare", "text"]);
  });

  it("is pure over findings: page order breaks ties, null without a page URL's domain", () => {
    const findings: EmailFinding[] = [
      { raw: "anna@gmail.com", source: "mailto", contact: true, before: "" },
      { raw: "bob@gmail.com", source: "mailto", contact: true, before: "" },
    ];
    expect(chooseContactEmail(findings, "not a url").email).toBe("anna@gmail.com");
  });

  it("is turned off for the benchmark's baseline only", () => {
    const { signals, evidence } = analyzeHomepage({
      html: '<a href="mailto:info@maple-plumbing.ca">x</a>',
      url: "https://maple-plumbing.ca/",
      country: null,
      now: NOW,
      findContactEmail: false,
    });
    expect(signals.email).toBeNull();
    expect(evidence.email_found_in).toEqual([]);
  });
});

/**
 * Two synthetic pages of the kind seen on real sites: what a visitor reads wins over a link's
 * href. Before the rule, both chose the theme's address (a role address outranks a contact line).
 */
describe("a mailto link's visible text and icon links", () => {
  it("takes the visible text of a mailto link whose href is another address (a template placeholder)", () => {
    const page =
      "<main><p>Family-run since 1998.</p></main>" +
      '<footer class="site-footer"><p>Write to us: <a href="mailto:contact@themewagon-demo.com">frank.maple@gmail.com</a></p></footer>';
    expect(emailOf(page)).toMatchObject({
      email: "frank.maple@gmail.com",
      foundIn: ["mailto", "text"],
      chosenBy: "contact_context",
    });
    expect(emailOf(page).others).toEqual([]);
  });

  it("sets aside an address only in an icon link's href, on another domain, when the page shows another as text", () => {
    const page =
      '<header><a class="icon" href="mailto:hello@flavor-starter-theme.com"><i class="fa fa-envelope"></i></a></header>' +
      '<section id="contact"><p>Email: frank.maple@gmail.com</p></section>';
    expect(emailOf(page)).toMatchObject({ email: "frank.maple@gmail.com", chosenBy: "contact_context" });
  });

  it("keeps an icon link on the site's own domain, an icon link on a page with no address as text, and a labelled link", () => {
    const ownIcon =
      '<a href="mailto:ventes@maple-plumbing.ca"><img src="mail.svg" alt=""></a><p>Email: frank.maple@gmail.com</p>';
    expect(emailOf(ownIcon).email).toBe("ventes@maple-plumbing.ca");
    const onlyIcon = '<a href="mailto:frank.maple@gmail.com"><i class="icon-mail"></i></a>';
    expect(emailOf(onlyIcon)).toMatchObject({ email: "frank.maple@gmail.com", foundIn: ["mailto"] });
    const labelled =
      '<footer><a href="mailto:info@maple-group.com">Email us</a> frank.maple@gmail.com</footer>';
    expect(emailOf(labelled).email).toBe("info@maple-group.com");
    const same = '<footer><a href="mailto:Info@Maple-Plumbing.ca">info@maple-plumbing.ca</a></footer>';
    expect(emailOf(same)).toMatchObject({ email: "info@maple-plumbing.ca", foundIn: ["mailto", "text"] });
  });
});
