/**
 * Whether a homepage refuses unsolicited email or marketing, in English or French: "We do not
 * accept unsolicited sales emails", "No solicitations, please", "Merci de ne pas nous solliciter",
 * "Cette adresse ne peut être utilisée à des fins de prospection commerciale". Canada's anti-spam
 * law allows a cold email to a published address only when the page carries no such statement,
 * so the lead says so (`email_source.solicitation_refused`) and the console warns.
 *
 * The statements are read as refusals only in the forms businesses write them: a first person or
 * an imperative refusing such messages, or the messages declared unwelcome. Pages that merely
 * talk about spam, marketing or prospecting (an anti-spam filter, a marketing agency, "we never
 * send unsolicited email", "no unsolicited manuscripts") are not refusals: a false warning costs
 * a lead as surely as a missed one costs a complaint.
 *
 * Pure and small; loaded by the piscina task through plain Node type stripping: erasable
 * TypeScript only.
 */

/** Words one of which every refusal holds: lines without any are not read further. */
const KEYWORDS =
  /solicit|sollicit|demarch|prospect|marketing|commerc|advertis|publicit|promotion|agenc|recruit/;

/** What is refused: messages of a commercial kind (not manuscripts, resumes or donations). */
const EN_THING =
  "(?:unsolicited |unrequested |cold )?(?:commercial |marketing |sales |promotional |advertising |business )?(?:e-?mails?|messages?|solicitations?|offers?|pitches|proposals|calls|inquiries|enquiries|advertising|marketing)";
const EN_KIND = "(?:unsolicited|unrequested|cold|commercial|marketing|sales|promotional|advertising)";

const ENGLISH: readonly RegExp[] = [
  // "We do not accept unsolicited sales emails", "We don't want any marketing calls".
  new RegExp(
    `\\bwe (?:do not|don't|will not|won't|cannot|can't) (?:accept|want|welcome|respond to|reply to|answer|read|entertain) (?:any )?${EN_KIND} ${EN_THING}`,
  ),
  // "Please do not send us unsolicited offers", "Do not email us with marketing proposals".
  new RegExp(
    `\\b(?:please )?(?:do not|don't) (?:send|email|e-mail|contact|solicit|pitch)(?: us)?(?: any| with| for)? ${EN_KIND}\\b`,
  ),
  // "Please do not use this address for marketing purposes".
  new RegExp(
    `\\b(?:do not|don't|not to) use (?:this|our|these|the above) (?:e-?mail )?(?:address(?:es)?|contact (?:details|information|form)|email) (?:for|to send) (?:any )?${EN_KIND}\\b`,
  ),
  // "Unsolicited emails will be deleted", "Marketing messages are not welcome".
  new RegExp(
    `\\b${EN_KIND} ${EN_THING} (?:are|is|will) (?:not (?:be )?(?:accepted|welcome|wanted|answered|read|tolerated)|be (?:ignored|deleted|discarded|reported))`,
  ),
  // "No solicitations", "No soliciting", "No solicitors, please".
  /\bno (?:unsolicited |sales |marketing )?(?:solicitations?|soliciting|solicitors)\b/,
  // "Solicitors need not apply", "Agencies and recruiters: please do not contact us".
  /\b(?:solicitors|agencies|recruiters|marketers|vendors|seo (?:companies|agencies))(?:(?:,| and| or) (?:solicitors|agencies|recruiters|marketers|vendors))*:? (?:please )?(?:need not|do not|don't|should not) (?:apply|contact|call|email)/,
];

/** French, with accents removed and apostrophes made straight before matching. */
const FR_THING =
  "(?:sollicitations?|courriels?|messages?|offres?|propositions?|demarchages?|prospection|appels?|publicites?)";
const FR_KIND =
  "(?:commerci(?:aux|ales?|al)|publicitaires?|promotionnel(?:le)?s?|non sollicite(?:e)?s?|non desire(?:e)?s?)";

const FRENCH: readonly RegExp[] = [
  // "Nous n'acceptons pas les sollicitations commerciales", "nous ne répondons à aucune sollicitation".
  new RegExp(
    `\\bnous n'(?:acceptons|accepterons|autorisons) (?:pas|aucune?) (?:de |d'|les |la )?${FR_THING}`,
  ),
  new RegExp(
    `\\bnous ne (?:souhaitons|voulons|desirons) (?:pas|aucune?) (?:recevoir )?(?:de |d'|les |la )?${FR_THING}`,
  ),
  new RegExp(
    `\\bnous ne (?:repondons|repondrons|donnerons suite) (?:pas (?:aux |a |a la )?|a aucune? |aux )${FR_THING}`,
  ),
  // "Merci de ne pas nous solliciter", "Veuillez ne pas nous envoyer d'offres commerciales".
  new RegExp(
    `\\b(?:merci de|veuillez|priere de|svp) ne pas (?:nous )?(?:solliciter|demarcher|envoyer (?:de |d'|des )?(?:${FR_THING}|${FR_KIND})|utiliser (?:cette|notre|ces) adresses?)`,
  ),
  // "Cette adresse ne peut être utilisée à des fins de prospection commerciale".
  /\bne (?:peu(?:t|vent)|doi(?:t|vent)) (?:pas )?etre utilisee?s? (?:a des fins|pour) (?:de )?(?:prospection|demarchage|sollicitation|publicit|commerci)/,
  // "Pas de sollicitation", "Aucune sollicitation", "Sollicitation commerciale s'abstenir".
  // Said alone, as a notice: "Aucune sollicitation de dons n'est faite" is another matter.
  /\b(?:pas de|aucune?|non aux?) (?:sollicitations?|demarchages?|prospection)(?: commerciale?s?| telephonique| par (?:courriel|telephone))?(?: (?:svp|s\.v\.p\.?|merci|please))?\s*(?:[.!;]|$)/,
  /\b(?:sollicitations?|demarchages?|prospection)(?: commerciale?s?| telephonique| par courriel)? (?:s'abstenir|interdite?s?|refusee?s?|non desiree?s?|ne seront pas (?:acceptee?s?|lue?s?|traitee?s?))/,
  new RegExp(
    `\\b${FR_THING} ${FR_KIND} (?:ne seront pas (?:lus|acceptes|traites|pris en compte)|sont (?:interdits|refuses|proscrits)|s'abstenir)`,
  ),
];

/**
 * DESIGN "Audit precision": the refusal written in the third person, the business or "the company"
 * as its subject ("Maple Plumbing does not accept solicitations by email", "L'entreprise n'accepte
 * aucune sollicitation", "X ne répond pas aux sollicitations"). What is refused must be a
 * solicitation, or messages named unsolicited or commercial: "does not accept cash" or "n'accepte
 * pas les appels le dimanche" refuse nothing of the kind.
 */
const EN_REFUSED = `(?:${EN_KIND} ${EN_THING}|(?:${EN_KIND} )?(?:solicitations?|soliciting|solicitors))`;
const FR_REFUSED = `(?:(?:sollicitations?|demarchages?|prospection)\\b|${FR_THING} ${FR_KIND})`;
const FR_ARTICLE = "(?:les |la |le |de |d'|des |aux |a la |au |a )?";

const THIRD_PERSON: readonly RegExp[] = [
  new RegExp(
    `\\b(?:does not|doesn't|do not|don't|will not|won't|cannot|can't|is not|isn't|are not|aren't) (?:accept(?:ing)?|want(?:ing)?|welcome|respond(?:ing)? to|reply(?:ing)? to|answer|entertain(?:ing)?) (?:any )?${EN_REFUSED}`,
  ),
  new RegExp(`\\bn'(?:accept|autoris)(?:e|ent|era|eront) (?:pas|aucune?|plus) ${FR_ARTICLE}${FR_REFUSED}`),
  new RegExp(
    `\\bne (?:souhaite|veut|desire|souhaitent|veulent|desirent) (?:pas|aucune?|plus) (?:recevoir )?${FR_ARTICLE}${FR_REFUSED}`,
  ),
  new RegExp(
    `\\bne (?:repond\\w*|donne\\w* (?:pas |plus |jamais )?suite) (?:pas |plus |jamais )?(?:a aucune? )?${FR_ARTICLE}${FR_REFUSED}`,
  ),
];

const MAX_LINE_CHARS = 2_000;
const MAX_SNIPPET_CHARS = 200;

/** Lower case, accents removed, apostrophes straight, whitespace single. */
function normalise(line: string): string {
  return line
    .slice(0, MAX_LINE_CHARS)
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .replace(/\s+/g, " ");
}

/**
 * The first line of visible text that refuses unsolicited email or marketing, or null.
 * `thirdPerson` false reads only the first-person and imperative forms, as before DESIGN "Audit
 * precision" (the benchmark's baseline only).
 */
export function findSolicitationRefusal(textLines: readonly string[], thirdPerson = true): string | null {
  for (const line of textLines) {
    const text = normalise(line);
    if (!KEYWORDS.test(text)) continue;
    if (
      ENGLISH.some((pattern) => pattern.test(text)) ||
      FRENCH.some((pattern) => pattern.test(text)) ||
      (thirdPerson && THIRD_PERSON.some((pattern) => pattern.test(text)))
    ) {
      return line.slice(0, MAX_SNIPPET_CHARS);
    }
  }
  return null;
}
