/**
 * DESIGN "Audit precision": synthetic homepages of each kind the held-out pages showed the auditor
 * missing (a for-sale title, a registrar's and a hosting company's placeholder, a refusal of
 * solicitation in the third person, an address glued to the text before an icon, a French
 * homepage of few words), and beside each the page of the same look that must not be flagged.
 * Every page here is written for this test; none is copied from a real site.
 */
import { describe, expect, it } from "vitest";
import { analyzeHomepage } from "../../../shared/audit/signals.ts";

const NOW = new Date("2026-11-22T12:00:00Z");

function audit(html: string, options: { url?: string; country?: string | null } = {}) {
  return analyzeHomepage({
    html,
    url: options.url ?? "https://www.maple-bakery.ca/",
    country: options.country === undefined ? "CA" : options.country,
    now: NOW,
  });
}

/** Enough visible text (well over 1,500 characters) that the page is not read as a short notice. */
function filler(topic: string, paragraphs = 8): string {
  return Array.from(
    { length: paragraphs },
    (_, index) =>
      `<p>${topic} ${index + 1}: pick the plan that suits you, compare the prices and the features, and read what our customers say about the service they received this year.</p>`,
  ).join("");
}

describe("parked_domain: for-sale wording in the title or a heading", () => {
  it('a domain marketplace lander titled "Domain for Sale. Buy It Now!" (a long page)', () => {
    const { signals, evidence } = audit(`<!doctype html><html><head>
      <title>Domain for Sale. Buy It Now!</title><meta name="viewport" content="width=device-width">
      </head><body><header><a href="/">DomainShop</a></header>
      <h2>maple-bakery.ca</h2><h3>Secure checkout, fast transfer</h3>${filler("Why buy here")}</body></html>`);
    expect(signals.parked_domain).toBe(true);
    expect(evidence.parking_marker).toMatch(/domain for sale/i);
  });

  it('a French for-sale heading "Domaine à vendre" on a page of marketplace copy', () => {
    const { signals, evidence } =
      audit(`<!doctype html><html lang="fr"><head><title>boulangerie-erable.ca</title></head>
      <body><h1>Domaine à vendre</h1>${filler("Pourquoi acheter chez nous")}</body></html>`);
    expect(signals.parked_domain).toBe(true);
    expect(evidence.parking_marker).toMatch(/domaine à vendre/i);
  });

  it("an h3 heading counts like the title (Ce domaine est à vendre)", () => {
    const { signals } =
      audit(`<!doctype html><html lang="fr"><head><title>boulangerie-erable.ca</title></head>
      <body><h3>Ce domaine est à vendre</h3>${filler("Paiement sécurisé")}</body></html>`);
    expect(signals.parked_domain).toBe(true);
  });

  it("a shop whose heading says Buy it now, and a page about buying a domain, are not parked", () => {
    const shop = audit(`<!doctype html><html><head><title>Maple Bakery | Gift boxes</title></head>
      <body><h1>Holiday gift box</h1><h2>Buy it now!</h2>${filler("Gift box")}</body></html>`);
    expect(shop.signals.parked_domain).toBe(false);
    const agency = audit(`<!doctype html><html><head><title>Web design for bakeries</title></head>
      <body><h1>How to pick a domain name for your bakery</h1><h2>Before you buy a domain</h2>${filler("Tip")}</body></html>`);
    expect(agency.signals.parked_domain).toBe(false);
  });
});

describe("parked_domain: registrar and hosting placeholders", () => {
  it("a registrar's placeholder (registered at a registrar, the registrar's offers below)", () => {
    const { signals, evidence } = audit(`<!doctype html><html><head>
      <title>maple-bakery.ca - Registered at Registrar Example</title></head>
      <body><h1>maple-bakery.ca</h1><h2>This domain is registered, but may still be available.</h2>
      <h3>Get this domain</h3>${filler("Registrar Example offer")}</body></html>`);
    expect(signals.parked_domain).toBe(true);
    expect(evidence.parking_marker).toMatch(/registered/i);
  });

  it("a hosting company's default page (the owner is told to contact the hosting provider)", () => {
    const { signals, evidence } =
      audit(`<!doctype html><html><head><title>Default Web Site Page</title></head>
      <body><h1>Sorry!</h1>
      <p>If you are the owner of this website, please contact your hosting provider.</p>
      <p>It is possible you have reached this page because the IP address has changed, there has been a
      server misconfiguration, or the site may have moved to a different server.</p></body></html>`);
    expect(signals.parked_domain).toBe(true);
    expect(evidence.parking_marker).toMatch(/default web site page|owner of this website/i);
  });

  it("a hosting company's French placeholder (Félicitations, votre site est hébergé chez nous)", () => {
    const { signals } = audit(`<!doctype html><html lang="fr"><head><title>Bienvenue</title></head>
      <body><h1>Félicitations ! Votre nom de domaine a bien été créé.</h1>
      <p>Ce site est actuellement hébergé par Hébergeur Exemple. Votre site Web sera bientôt en ligne.</p></body></html>`);
    expect(signals.parked_domain).toBe(true);
  });

  it("a business that thanks its host, or credits a default theme, is not parked", () => {
    const { signals } = audit(`<!doctype html><html><head><title>Maple Bakery</title></head>
      <body><h1>Maple Bakery</h1>${filler("Our bread")}
      <footer><p>Website hosted by Host Example. Theme: the default page template.</p></footer></body></html>`);
    expect(signals.parked_domain).toBe(false);
  });
});

describe("solicitation_refused: a refusal written in the third person", () => {
  const page = (sentence: string) =>
    audit(`<!doctype html><html><head><title>Maple Plumbing</title></head><body><h1>Maple Plumbing</h1>
      <p>Residential and commercial plumbing in Ottawa since 1998.</p>
      <footer><p>Email: <a href="mailto:info@maple-bakery.ca">info@maple-bakery.ca</a></p><p>${sentence}</p></footer></body></html>`);

  it.each([
    "Maple Plumbing Ltd. does not accept solicitations by email.",
    "The company does not accept unsolicited commercial emails.",
    "Maple Plumbing will not respond to sales solicitations.",
    "Plomberie Érable n'accepte aucune sollicitation par courriel.",
    "L'entreprise n'accepte pas les sollicitations commerciales.",
    "Plomberie Érable ne répond pas aux sollicitations.",
  ])("%s", (sentence) => {
    const { signals, evidence } = page(sentence);
    expect(signals.solicitation_refused).toBe(true);
    expect(evidence.solicitation_text).toBe(sentence);
  });

  it.each([
    "Maple Plumbing does not accept cash payments after 5 pm.",
    "The company does not send unsolicited emails.",
    "Le bureau n'accepte pas les appels le dimanche.",
    "Plomberie Érable n'accepte pas les chèques.",
  ])("not a refusal: %s", (sentence) => {
    expect(page(sentence).signals.solicitation_refused).toBe(false);
  });
});

describe("contact email: an empty inline element (an icon) is a word break", () => {
  it.each([
    ['<p>Toronto, ON, USA<i class="fa fa-envelope"></i>info@maple-bakery.ca</p>', "an empty <i> icon"],
    ['<p>Call us<span class="icon-mail"></span>info@maple-bakery.ca</p>', "an empty <span> icon"],
    [
      '<p>Ottawa<svg class="icon" viewBox="0 0 10 10"><path d="M0 0h10v10z"/></svg>info@maple-bakery.ca</p>',
      "an inline svg icon",
    ],
    ['<p>Canada<img src="/icons/mail.png" alt="">info@maple-bakery.ca</p>', "an image icon"],
  ])("%s (%s)", (body) => {
    const { signals } = audit(
      `<!doctype html><html><head><title>Maple Bakery</title></head><body>${body}</body></html>`,
    );
    expect(signals.email).toBe("info@maple-bakery.ca");
  });

  it("a <wbr> inside an address is not a word break", () => {
    const { signals } = audit(
      "<!doctype html><html><body><p>Email: info<wbr>@maple-bakery.ca</p></body></html>",
    );
    expect(signals.email).toBe("info@maple-bakery.ca");
  });
});

describe("no_french_version: a French homepage of few words", () => {
  // 62 words: a name, an offer, hours, an address, a phone number and a copyright line.
  const SHORT_FRENCH_HOMEPAGE = `<!doctype html><html><head><title>Plomberie Tremblay</title></head><body>
    <h1>Plomberie Tremblay</h1>
    <p>Service de plomberie résidentielle à Laval depuis 1985.</p>
    <p>Réparations, chauffe-eau, débouchage et rénovations de salles de bain.</p>
    <p>Service rapide et courtois partout dans la région lavalloise.</p>
    <p>Appelez-nous pour une soumission gratuite.</p>
    <p>Heures : du lundi au vendredi, de 8 h à 17 h.</p>
    <p>123, boulevard des Laurentides, Laval (Québec) H7G 2T1</p>
    <p>Téléphone : 450-555-0199</p>
    <p>© 2025 Plomberie Tremblay. Tous droits réservés.</p>
    </body></html>`;

  it("has a French version: the page itself is in French", () => {
    const text = SHORT_FRENCH_HOMEPAGE.replace(/<[^>]+>/g, " ");
    expect(text.match(/[\p{L}\p{N}'’-]+/gu)?.length).toBe(62);
    const { signals, evidence } = audit(SHORT_FRENCH_HOMEPAGE, { url: "https://plomberietremblay.ca/" });
    expect(signals.no_french_version).toBe(false);
    expect(evidence.french_version).toBe("page text in French");
  });

  it("an English homepage of few words with a French name and one French phrase has none", () => {
    const { signals } = audit(
      `<!doctype html><html><head><title>Café au Lait</title></head><body>
      <h1>Café au Lait et Chocolat</h1><p>Coffee, pastries and sandwiches made fresh every morning.</p>
      <p>Try our croissants à la carte or book the room for your next party.</p>
      <p>Open Monday to Saturday, 7 am to 6 pm.</p><p>88 Elgin Street, Ottawa ON K1P 5K8</p></body></html>`,
      { url: "https://cafeaulait.ca/" },
    );
    expect(signals.no_french_version).toBe(true);
  });
});
