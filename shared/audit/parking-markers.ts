/**
 * What a parked or for-sale domain's homepage shows, written as data (DESIGN "Pitch facts",
 * `parked_domain`): the hosts of the main parking and domain-sale services, whose scripts, frames
 * or forms a parking page loads, and the wordings of "this domain is for sale" in English and
 * French. The rule that reads them is `findParking` below.
 */

/**
 * Parking and domain-marketplace services, by registrable domain (subdomains included), or host
 * and path prefix where the service shares its host with other content.
 */
const PARKING_SERVICE_MARKERS: readonly string[] = [
  "sedoparking.com",
  "sedo.com",
  "parkingcrew.net",
  "bodis.com",
  "above.com",
  "parklogic.com",
  "dan.com",
  "afternic.com",
  "hugedomains.com",
  "undeveloped.com",
  "domainmarket.com",
  "buydomains.com",
  "atom.com",
  "efty.com",
  "brandbucket.com",
  "domainnamesales.com",
  "parkingpage.namecheap.com",
  "img1.wsimg.com/parking-lander",
  "parking.godaddy.com",
  "domainparking.ovh.net",
];

/** A domain name written in the text ("bakery-lyon.com"). */
const NAMED_DOMAIN = String.raw`(?:[\p{L}\p{N}-]+\.)+\p{L}{2,}`;

/**
 * "This domain is for sale", its variants and its French forms; matched on collapsed text,
 * case-insensitively. Each is a statement a page makes about its own domain, not a topic it
 * discusses: where it may be read is up to `findParking`.
 */
const FOR_SALE_WORDINGS: readonly RegExp[] = [
  // English
  new RegExp(
    String.raw`\b(?:this|the) domain(?: name)?(?: ${NAMED_DOMAIN})? (?:is|may be|might be|could be) (?:for sale|available for (?:sale|purchase))\b`,
    "iu",
  ),
  new RegExp(String.raw`\b${NAMED_DOMAIN} (?:is|may be) for sale\b`, "iu"),
  /\bbuy this domain\b/i,
  /\b(?:make an offer|inquire|enquire) (?:on|about|for) this domain\b/i,
  /\bthis domain (?:name )?(?:was|has been|is) (?:recently )?registered (?:at|with|by|via|through)\b/i,
  /\b(?:this|the) (?:domain|web ?page|website) (?:name )?is parked\b/i,
  /\bparked (?:free,? )?(?:courtesy of|by)\b/i,
  // French
  new RegExp(
    String.raw`\b(?:ce|le) (?:nom de )?domaine(?: ${NAMED_DOMAIN})? (?:est|pourrait être|peut être) (?:à|a) vendre\b`,
    "iu",
  ),
  new RegExp(
    String.raw`\b(?:ce|le) (?:nom de )?domaine(?: ${NAMED_DOMAIN})? est (?:en vente|disponible à la vente)`,
    "iu",
  ),
  new RegExp(String.raw`\b${NAMED_DOMAIN} est (?:à vendre|en vente)`, "iu"),
  /\bnom de domaine (?:à|a) vendre\b/iu,
  /\bacheter ce (?:nom de )?domaine\b/iu,
  /\bfaire une offre (?:sur|pour) ce (?:nom de )?domaine\b/iu,
  /\bce (?:nom de )?domaine (?:a été|est) (?:réservé|enregistré|parqué)(?: (?:chez|par|via|auprès de)\b)?/iu,
];

/**
 * DESIGN "Audit precision": the shorter for-sale wordings a title or heading carries ("Domain for
 * Sale. Buy It Now!", "Domaine à vendre"), and the placeholders registrars and hosting companies
 * put on a domain with no site yet ("This domain is registered, but may still be available",
 * "Default Web Site Page", "If you are the owner of this website, contact your hosting provider",
 * "Félicitations ! Votre nom de domaine a bien été créé"). Read where FOR_SALE_WORDINGS are: in
 * the title and headings, or anywhere on a page with little text. A hosting credit ("hébergé par",
 * which French law puts on every site) is not among them: it says where a real site lives.
 */
const PLACEHOLDER_WORDINGS: readonly RegExp[] = [
  // For sale, said in a few words
  /\b(?:premium )?domains?(?: names?)? (?:is |are )?for sale\b/i,
  new RegExp(String.raw`\b${NAMED_DOMAIN}\b.{0,80}\bbuy (?:it |this domain |the domain )?now\b`, "iu"),
  new RegExp(String.raw`\bbuy (?:it|this domain|the domain) now\b.{0,80}\b${NAMED_DOMAIN}`, "iu"),
  /(?:^|[^\p{L}])(?:nom de )?domaine (?:(?:est )?(?:à|a) vendre|en vente)(?![\p{L}])/iu,
  // Registrars
  new RegExp(
    String.raw`\b(?:this|the) domain(?: name)?(?: ${NAMED_DOMAIN})? (?:is|has been|was) (?:recently )?(?:registered|reserved)\b`,
    "iu",
  ),
  new RegExp(String.raw`^${NAMED_DOMAIN} ?[-–—|:] ?registered (?:at|with|by|through|via)\b`, "iu"),
  /\bthis domain (?:name )?(?:may|might) (?:still )?be available\b/i,
  /\bfuture home of\b/i,
  // Hosting companies and web servers
  /\bdefault (?:web ?site|web ?server|server|domain|hosting|welcome|placeholder|index) page\b/i,
  /\b(?:domain|web ?server'?s?|apache2?(?: [a-z]+)?) default page\b/i,
  /\bif you are the (?:owner|webmaster|administrator) of this (?:web ?site|site|domain)\b/i,
  /\bcontact your (?:web )?hosting (?:provider|company)\b/i,
  /\bno (?:web ?site|site) (?:is )?configured at this (?:address|domain)\b/i,
  /\b(?:this|the) (?:hosting )?account has been suspended\b/i,
  /\bwelcome to nginx\b/i,
  /\btest page for the (?:apache|nginx)\b/i,
  /\bcongratulations[!,.]* (?:your|the) (?:new )?(?:domain|web ?site|site|hosting(?: account)?) (?:is|has been) (?:ready|registered|created|set up|activated)\b/iu,
  /(?:^|[^\p{L}])félicitations[\s!,.]*votre (?:nom de )?(?:domaine|site|hébergement) (?:a bien été|a été|est) (?:bien )?(?:créé|enregistré|activé|réservé|installé)/iu,
  /(?:^|[^\p{L}])(?:page|site) (?:par défaut|d'attente) (?:de|d'|du) (?:votre |l')?hébergeur/iu,
];

/** Below this many visible characters a page is a notice, not a site: its whole text is read. */
const NOTICE_PAGE_MAX_TEXT_CHARS = 1_500;

export interface ParkingInput {
  /** URLs the page loads or sends visitors to: script, iframe and frame sources, form actions, meta refresh. */
  structuralUrls: readonly string[];
  /** The `<title>` and the `<h1>`/`<h2>` headings' texts. */
  headlines: readonly string[];
  /** The visible text, line by line, and its length. */
  textLines: readonly string[];
  textLength: number;
  /** false reads only FOR_SALE_WORDINGS, as before DESIGN "Audit precision" (the benchmark's baseline only). */
  placeholders?: boolean;
}

/**
 * The evidence that the page is a parking or for-sale page, or null. A parking service's script,
 * frame or form is enough; a for-sale wording counts in the title or a top heading, or anywhere
 * on a page with little text. A site that merely mentions a domain sale in its copy is not parked.
 */
export function findParking(input: ParkingInput): string | null {
  for (const url of input.structuralUrls) {
    const marker = parkingServiceIn(url);
    if (marker !== null) return `parking service ${marker}`;
  }
  const placeholders = input.placeholders !== false;
  for (const headline of input.headlines) {
    const wording = forSaleWordingIn(headline, placeholders);
    if (wording !== null) return `headline: ${wording}`;
  }
  if (input.textLength <= NOTICE_PAGE_MAX_TEXT_CHARS) {
    for (const line of input.textLines) {
      const wording = forSaleWordingIn(line, placeholders);
      if (wording !== null) return `text: ${wording}`;
    }
  }
  return null;
}

function parkingServiceIn(url: string): string | null {
  const text = url.trim().toLowerCase();
  const hostStart = text.startsWith("//") ? 2 : text.indexOf("://") + 3;
  if (hostStart < 2) return null; // a relative URL stays on the page's own host
  const rest = text.slice(hostStart);
  const host = rest.split(/[/?#:]/, 1)[0] ?? "";
  const path = rest.slice(host.length).split(/[?#]/, 1)[0] ?? "";
  for (const marker of PARKING_SERVICE_MARKERS) {
    const slash = marker.indexOf("/");
    const markerHost = slash === -1 ? marker : marker.slice(0, slash);
    const markerPath = slash === -1 ? "" : marker.slice(slash);
    const hostMatches = host === markerHost || host.endsWith(`.${markerHost}`);
    if (hostMatches && path.startsWith(markerPath)) return marker;
  }
  return null;
}

/** Every wording above holds one of these: text without any is skipped at the cost of one scan. */
const MAY_HOLD_A_WORDING = /domain|parked|for sale|vendre|en vente/i;
const MAY_HOLD_A_PLACEHOLDER =
  /domain|for sale|vendre|vente|future home|default|owner of this|administrator of this|webmaster of this|hosting|configured|suspended|nginx|apache|congratulations|félicitations|hébergeur/i;

function forSaleWordingIn(text: string, placeholders: boolean): string | null {
  const forSale = MAY_HOLD_A_WORDING.test(text);
  const placeholder = placeholders && MAY_HOLD_A_PLACEHOLDER.test(text);
  if (!forSale && !placeholder) return null;
  const collapsed = text.replace(/\s+/g, " ").replace(/[’‘]/g, "'").trim();
  for (const wording of forSale ? FOR_SALE_WORDINGS : []) {
    const match = wording.exec(collapsed);
    if (match !== null) return match[0];
  }
  for (const wording of placeholder ? PLACEHOLDER_WORDINGS : []) {
    const match = wording.exec(collapsed);
    if (match !== null) return match[0].replace(/^[^\p{L}]/u, "");
  }
  return null;
}
