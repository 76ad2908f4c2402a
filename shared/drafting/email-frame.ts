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
  postalAddressLines,
  signatureLines,
  singleLine,
} from "./generator.ts";
import { normaliseVariant, pick, variantDigits } from "./variety.ts";

const NBSP = "\u00a0";

/**
 * What the sender did first, so that the opening agrees with the first fact: one does not "take a
 * look at a website" that would not open, or that does not exist.
 */
type OpeningKind = "site" | "unreachable" | "looked_for_site" | "reviews";

function openingKind(firstFact: string | undefined): OpeningKind {
  switch (firstFact) {
    case "site_unreachable":
      return "unreachable";
    case "no_website":
    case "parked_domain":
    case "social_profile_only":
      return "looked_for_site";
    case "low_review_count":
      return "reviews";
    default:
      return "site";
  }
}

export interface EmailFrame {
  greeting: string;
  /** The opening sentence: names the business, its town when known, and what the sender looked at. */
  intro(name: string, town: string | null, firstFact: string | undefined, variant: number): string;
  /** The offer (the workspace's own words) then one of these pairs of parts, or null without an offer. */
  offerTails: readonly [readonly string[], readonly string[]];
  /** The one ask (a 15-minute call), in two parts chosen by the variant. */
  askParts: readonly [readonly string[], readonly string[]];
  signOff: string;
  /** Said when the lead's address was found on its own website (never "I found you…": spam filters read it as fraud). */
  emailSource: string;
  /** How to stop further messages: a reply, which the sender honours. */
  optOut: string;
}

// The opening names the business without grammar that depends on its name (no English
// possessive, no French "de + name", whose elision depends on the name).
const englishOpenings: Record<OpeningKind, string> = {
  site: "had a look at your website",
  unreachable: "tried to visit your website",
  looked_for_site: "looked for your website",
  reviews: "read what customers say about you online",
};

const english: EmailFrame = {
  greeting: "Hello,",
  intro: (name, town, firstFact, variant) => {
    const where = town === null ? "nearby" : `in ${town}`;
    const did = englishOpenings[openingKind(firstFact)];
    return pick(
      [
        `I came across ${name} while looking at local businesses ${where}, and I ${did}.`,
        `I was looking at local businesses ${where} when I came across ${name}, so I ${did}.`,
        `${name} came up while I was looking at local businesses ${where}, and I ${did}.`,
      ],
      variant,
    );
  },
  offerTails: [
    [
      ": that is what I do",
      ": that is my line of work",
      ": that is what I offer",
      ": that is the work I do",
      ": that is my specialty",
    ],
    [
      ".",
      ", and this is where I would start.",
      ", and I could help with this.",
      ", and fixes like this are part of it.",
      ", and I could start with this.",
    ],
  ],
  askParts: [
    [
      "Would you be open to",
      "Would you have time for",
      "Could we set up",
      "Would you be up for",
      "Would you like to have",
    ],
    [
      " a 15-minute call next week?",
      " a quick 15-minute call one day next week?",
      " a 15-minute call next week, with no obligation?",
      " a short 15-minute call sometime next week?",
      " a 15-minute phone call next week to talk it over?",
    ],
  ],
  signOff: "Best regards,",
  emailSource: "I'm writing to the address listed on your website.",
  optOut: "If you'd rather not hear from me, just reply and let me know, and I won't write again.",
};

const frenchOpenings: Record<OpeningKind, string> = {
  site: "j'ai regardé votre site web",
  unreachable: "j'ai voulu consulter votre site web",
  looked_for_site: "j'ai cherché votre site web",
  reviews: "j'ai lu ce que vos clients disent de vous en ligne",
};

const french: EmailFrame = {
  greeting: "Bonjour,",
  intro: (name, town, firstFact, variant) => {
    const where = town === null ? "de la région" : `à ${town}`;
    const did = frenchOpenings[openingKind(firstFact)];
    // No past participle agreeing with "je" (the sender's gender is unknown).
    return pick(
      [
        `J'ai découvert ${name} en cherchant des entreprises locales ${where}, et ${did}.`,
        `En cherchant des entreprises locales ${where}, j'ai découvert ${name}, et ${did}.`,
        `Votre entreprise, ${name}, a retenu mon attention pendant que je cherchais des entreprises locales ${where}, et ${did}.`,
      ],
      variant,
    );
  },
  offerTails: [
    [
      " : c'est ce que je propose",
      " : c'est mon métier",
      " : c'est ce que je fais",
      " : c'est le travail que je fais",
      " : c'est ma spécialité",
    ],
    [
      ".",
      ", et c'est par là que je commencerais.",
      ", et je pourrais vous aider sur ce point.",
      ", et ce genre de correction en fait partie.",
      ", et je pourrais commencer par là.",
    ],
  ],
  askParts: [
    [
      "Auriez-vous le temps pour",
      "Seriez-vous disponible pour",
      "Pourrions-nous prévoir",
      "Accepteriez-vous",
      "Auriez-vous un moment pour",
    ],
    [
      " un appel de 15 minutes la semaine prochaine ?",
      " un court appel de 15 minutes un jour de la semaine prochaine ?",
      " un appel de 15 minutes la semaine prochaine, sans engagement ?",
      " un bref appel de 15 minutes dans le courant de la semaine prochaine ?",
      " un échange téléphonique de 15 minutes la semaine prochaine pour en parler ?",
    ],
  ],
  signOff: "Bien cordialement,",
  emailSource: "Je vous écris à l'adresse indiquée sur votre site web.",
  optOut:
    "Si vous préférez ne plus recevoir de messages de ma part, il suffit de me répondre et je ne vous écrirai plus.",
};

const frames: Record<DraftLocale, EmailFrame> = { en: english, fr: french };

export function frameFor(locale: DraftLocale): EmailFrame {
  return frames[locale];
}

/** French typography: no-break spaces before high punctuation and inside guillemets. */
function frenchSpacing(text: string): string {
  return text.replace(/ ([:?!;»])/g, `${NBSP}$1`).replace(/« /g, `«${NBSP}`);
}

export function typesetFor(locale: DraftLocale): (text: string) => string {
  return locale === "fr" ? frenchSpacing : (text) => text;
}

/**
 * The offer as a sentence of the body, or null when the workspace has none in the draft's
 * language (left out rather than shown as a placeholder: the email stands without it). The offer
 * is the workspace's own text, kept as written, except that it opens the sentence (first letter
 * upper case) and loses its own end mark: "A mobile-friendly website rebuild: that is what I do."
 * It opens the sentence because its grammar is unknown: a noun phrase or a whole clause both read
 * well there, where after "I offer" only a noun phrase would.
 */
export function offerSentence(request: DraftRequest): string | null {
  const offer = singleLine(request.sender.offer)?.replace(/[\s.!?…;:,]+$/u, "");
  if (offer === undefined || offer === "") return null;
  const [first, second] = variantDigits(request.variant);
  const [firsts, seconds] = frames[request.locale].offerTails;
  const tail = `${firsts[first] ?? firsts[0]}${seconds[second] ?? seconds[0]}`;
  return `${offer.charAt(0).toUpperCase()}${offer.slice(1)}${typesetFor(request.locale)(tail)}`;
}

/** The one ask: a 15-minute call, worded by the variant. */
export function askSentence(request: DraftRequest): string {
  const [first, second] = variantDigits(request.variant);
  const [opens, rests] = frames[request.locale].askParts;
  return typesetFor(request.locale)(`${opens[first] ?? opens[0]}${rests[second] ?? rests[0]}`);
}

/** The opening sentence, agreeing with the first fact the middle states. */
export function introSentence(request: DraftRequest, firstFact: string | undefined): string {
  const name = singleLine(request.business.name) ?? "";
  const town = singleLine(request.business.city);
  return typesetFor(request.locale)(
    frames[request.locale].intro(name, town, firstFact, normaliseVariant(request.variant)),
  );
}

/**
 * The whole body: the frame around `middle` (paragraphs separated by a blank line, already in the
 * draft's language). French typography is applied to the service's text and the middle; the offer
 * and the signature are the workspace's own text and are left as written.
 */
export function assembleBody(request: DraftRequest, middle: string, factKeys: readonly string[]): string {
  const frame = frames[request.locale];
  const typeset = typesetFor(request.locale);
  const offer = offerSentence(request);
  const closing = [offer, askSentence(request)].filter((part): part is string => part !== null).join(" ");
  const paragraphs = [frame.greeting, introSentence(request, factKeys[0]), typeset(middle), closing];
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
function noticeSentence(request: DraftRequest): string {
  const frame = frames[request.locale];
  const sentences = request.emailFoundOnWebsite ? [frame.emailSource, frame.optOut] : [frame.optOut];
  return typesetFor(request.locale)(sentences.join(" "));
}
