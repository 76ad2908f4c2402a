/**
 * What the service writes around every draft, whichever drafter wrote the middle: the greeting,
 * the opening line that names the business, the sender's offer as a sentence, the one ask (a
 * 15-minute call), the sign-off and the signature. A model is never trusted with these: small
 * models drop "sign exactly like this" instructions often, and the service can write them itself.
 *
 * Layout of every body:
 *
 *     greeting
 *
 *     opening line (names the business)
 *
 *     middle: one or more paragraphs about the verified facts (template phrases or the model)
 *
 *     offer sentence (when the workspace has an offer) and the ask
 *
 *     sign-off
 *     sender name or placeholder
 *     company or placeholder
 *     postal address (its lines) or placeholder
 *
 *     notice: where the address was found (when on the business's website) and the opt-out
 *
 * The postal address and the opt-out are what anti-spam laws ask of every commercial email
 * (CASL, CAN-SPAM), and saying where the address came from is what GDPR asks at first contact:
 * the service writes them in the draft's language, and the checker refuses a draft without them.
 */
import {
  type DraftLocale,
  type DraftRequest,
  type DraftSender,
  postalAddressLines,
  signatureLines,
  singleLine,
} from "./generator.ts";

const NBSP = "\u00a0";

export interface EmailFrame {
  greeting: string;
  /** The opening line; `mentionsWebsite` adds that the sender looked at the site. */
  intro(name: string, city: string | null, mentionsWebsite: boolean): string;
  /** Follows the workspace's offer, which opens the sentence as written (it is the workspace's own text). */
  offerTail: string;
  ask: string;
  signOff: string;
  /** Said when the lead's address was found on its own website. */
  emailSource: string;
  /** How to stop further messages: a reply, which the sender honours. */
  optOut: string;
}

// The opening line names the business without grammar that depends on its name (no English
// possessive, no French "de + name", whose elision depends on the name).
const english: EmailFrame = {
  greeting: "Hello,",
  intro: (name, city, mentionsWebsite) => {
    const where =
      city === null
        ? "recently while looking at local businesses"
        : `while looking at local businesses in ${city}`;
    return mentionsWebsite
      ? `I came across ${name} ${where}, and I took a quick look at your website.`
      : `I came across ${name} ${where}.`;
  },
  offerTail: ": that is what I do.",
  ask: "Would you be open to a 15-minute call next week? I'd be glad to walk you through what I would suggest, with no obligation.",
  signOff: "Best regards,",
  emailSource: "I found your email address on your website.",
  optOut: "If you'd rather not hear from me, just reply and let me know, and I won't write again.",
};

const french: EmailFrame = {
  greeting: "Bonjour,",
  intro: (name, city, mentionsWebsite) => {
    const where =
      city === null
        ? "récemment, en cherchant des entreprises locales"
        : `en cherchant des entreprises locales à ${city}`;
    return mentionsWebsite
      ? `J'ai découvert ${name} ${where} et j'ai jeté un œil à votre site.`
      : `J'ai découvert ${name} ${where}.`;
  },
  offerTail: " : c'est ce que je propose.",
  ask: "Auriez-vous 15 minutes pour un appel la semaine prochaine ? Je vous présenterais volontiers mes suggestions, sans aucun engagement.",
  signOff: "Bien cordialement,",
  emailSource: "J'ai trouvé votre adresse courriel sur votre site web.",
  optOut:
    "Si vous préférez ne plus recevoir de messages de ma part, il suffit de me répondre et je ne vous écrirai plus.",
};

const frames: Record<DraftLocale, EmailFrame> = { en: english, fr: french };

export function frameFor(locale: DraftLocale): EmailFrame {
  return frames[locale];
}

/** French typography: no-break spaces before high punctuation and inside guillemets. */
export function frenchSpacing(text: string): string {
  return text.replace(/ ([:?!;»])/g, `${NBSP}$1`).replace(/« /g, `«${NBSP}`);
}

export function typesetFor(locale: DraftLocale): (text: string) => string {
  return locale === "fr" ? frenchSpacing : (text) => text;
}

/**
 * The offer as a sentence of the body, or null when the workspace has none (an unset offer is
 * left out rather than shown as a placeholder: the email stands without it). The offer is the
 * workspace's own text, kept as written, except that it opens the sentence (first letter upper
 * case) and loses its own end mark: "A mobile-friendly website rebuild: that is what I do." It
 * opens the sentence because its grammar is unknown: a noun phrase or a whole clause both read
 * well there, where after "I offer" only a noun phrase would.
 */
export function offerSentence(sender: DraftSender, locale: DraftLocale): string | null {
  const offer = singleLine(sender.offer)?.replace(/[\s.!?…;:,]+$/u, "");
  if (offer === undefined || offer === "") return null;
  return `${offer.charAt(0).toUpperCase()}${offer.slice(1)}${typesetFor(locale)(frames[locale].offerTail)}`;
}

/** Did the facts the middle is about concern the website (the opening then says it was looked at)? */
export function mentionsWebsite(factKeys: readonly string[]): boolean {
  return factKeys[0] !== undefined && factKeys[0] !== "no_website" && factKeys[0] !== "low_review_count";
}

/**
 * The whole body: the frame around `middle` (paragraphs separated by a blank line, already in the
 * draft's language). French typography is applied to the service's text and the middle; the offer
 * and the signature are the workspace's own text and are left as written.
 */
export function assembleBody(request: DraftRequest, middle: string, factKeys: readonly string[]): string {
  const frame = frames[request.locale];
  const typeset = typesetFor(request.locale);
  const name = singleLine(request.business.name) ?? "";
  const city = singleLine(request.business.city);
  const offer = offerSentence(request.sender, request.locale);
  const closing = [offer, typeset(frame.ask)].filter((part): part is string => part !== null).join(" ");
  const paragraphs = [
    frame.greeting,
    typeset(frame.intro(name, city, mentionsWebsite(factKeys))),
    typeset(middle),
    closing,
  ];
  return `${paragraphs.join("\n\n")}\n\n${closingLines(request).join("\n\n")}`;
}

/**
 * What ends every body, exactly, as two blocks: the signature block (sign-off, name, company,
 * postal address) and the notice (where the address was found, when on the business's website;
 * then the opt-out). The postal address is the workspace's own text, kept as written.
 */
export function closingLines(request: DraftRequest): [signature: string, notice: string] {
  const frame = frames[request.locale];
  const signature = [
    frame.signOff,
    ...signatureLines(request.sender, request.locale),
    ...postalAddressLines(request.sender, request.locale),
  ].join("\n");
  return [signature, noticeSentence(request)];
}

/** The last paragraph: where the address was found (when on the business's website), then the opt-out. */
export function noticeSentence(request: DraftRequest): string {
  const frame = frames[request.locale];
  const sentences = request.emailFoundOnWebsite ? [frame.emailSource, frame.optOut] : [frame.optOut];
  return typesetFor(request.locale)(sentences.join(" "));
}
