/**
 * The built-in drafter used when no LLM is configured: hand-written English and French
 * phrasebooks, one sentence per fact. Deterministic: the same request gives the same email.
 *
 * Rules the phrases keep:
 * - state only the facts listed in facts_used, with only their structured details, and each of
 *   them recognisably (stated-facts.ts reads every draft's facts back from its text);
 * - plain words for a business owner: what a visitor sees, and what it costs the business; a
 *   technical name (a tag, a library and its version) at most once, in parentheses;
 * - the first fact's sentence names the business and the second's is worded by the draft's
 *   variant (variety.ts), so that neighbours found by one search share no sentence;
 * - name the business without grammar that depends on its name: no English possessive of a
 *   clause-leading name, no French "de + name" (elision and "de le" / "du" depend on the name);
 * - the provider's category is not used: its display name comes in an unknown language and
 *   grammatical form, and inserted as-is it reads badly (above all in French);
 * - French says "vous", and avoids past participles agreeing with "je" (the sender's gender is
 *   unknown); typography uses no-break spaces before ":", "?", "!", ";" and inside « ».
 *
 * The greeting, the opening line, the offer sentence, the ask and the signature are the service's
 * frame (email-frame.ts), shared with the LLM drafter; this module writes the middle: one
 * sentence per fact. Sender: name and company sign the email, with
 * `[Your name]` / `[Your company]` (`[Votre nom]` / `[Votre entreprise]`) where unset.
 */
import { ApiError } from "../errors.ts";
import { assembleBody, typesetFor } from "./email-frame.ts";
import { type FactKey, factsForDraft, type VerifiedFact } from "./facts.ts";
import {
  type Draft,
  type DraftGenerator,
  type DraftLocale,
  type DraftRequest,
  singleLine,
} from "./generator.ts";
import { variantDigits } from "./variety.ts";

type Details = VerifiedFact["details"];

interface Phrasebook {
  subject: Record<FactKey, (name: string, details: Details) => string>;
  /**
   * The first fact, as one sentence without its final period (lowercase-first: it is capitalised):
   * what was seen, in plain words, and what it costs the business, naming it (so that no two
   * neighbours share the sentence).
   */
  lead: Record<FactKey, (name: string, details: Details) => string>;
  /** The second fact, as a short clause (lowercase-first, no final period): what was seen. */
  also: Record<FactKey, (details: Details) => string>;
  /** Two-part wrapping of the second fact's clause (variety.ts): [lead-ins, endings]. */
  alsoParts: readonly [readonly ((clause: string) => string)[], readonly string[]];
}

const detailNumber = (details: Details, key: string): number | null => {
  const value = details[key];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
};

const detailString = (details: Details, key: string): string | null => {
  const value = details[key];
  return typeof value === "string" && value !== "" ? value : null;
};

/** The first obsolete tag of the fact, as `<name>`; a technical name is said once, in parentheses. */
const obsoleteTag = (details: Details): string | null => {
  const tag = (detailString(details, "obsolete_tags") ?? "").split(",").find((name) => /^[a-z]+$/.test(name));
  return tag === undefined ? null : `<${tag}>`;
};

/** English possessive that stays readable for names ending in "s" ("Smith Brothers'"). */
const possessive = (name: string): string => (/s$/i.test(name) ? `${name}'` : `${name}'s`);

/** What the kind of technology is, in plain words, with its technical name once in parentheses. */
function legacyEnglish(details: Details): { seen: string; cost: (name: string) => string } {
  const jquery = detailString(details, "jquery_version");
  if (jquery !== null) {
    return {
      seen: `your website runs on an old version of a common programming toolkit (jQuery ${jquery}) that no longer gets security fixes`,
      cost: (name) => `which leaves the site of ${name} open to known security problems`,
    };
  }
  if (detailString(details, "flash") !== null) {
    return {
      seen: "parts of your website still rely on Flash, which today's browsers no longer show",
      cost: (name) => `so people who visit ${name} online see empty boxes where that content used to be`,
    };
  }
  if (detailString(details, "table_layout") !== null) {
    return {
      seen: "your pages are laid out with an older technique (HTML tables) that doesn't adapt to phones",
      cost: (name) => `so people who look up ${name} on a small screen get a page that doesn't fit`,
    };
  }
  const tag = obsoleteTag(details);
  if (tag !== null) {
    return {
      seen: `your homepage is still built with old formatting code that the web's standard has dropped (the ${tag} tag)`,
      cost: (name) => `a sign to visitors that the site of ${name} hasn't been updated in years`,
    };
  }
  return {
    seen: "your website is built on older web technology",
    cost: (name) => `which makes the site of ${name} slower and harder to keep safe than it needs to be`,
  };
}

const englishReviews = (count: number): string =>
  count === 0
    ? "doesn't have any online reviews yet"
    : `has only ${count === 1 ? "1 online review" : `${count} online reviews`} so far`;

function englishNotSecure(details: Details): string | null {
  switch (detailString(details, "certificate_problem")) {
    case "expired":
      return "the security certificate of your website has expired";
    case "wrong_host":
      return "your website's security certificate was issued for a different address";
    case "self_signed":
    case "untrusted":
      return "your website's security certificate isn't one that browsers trust";
    default:
      return null;
  }
}

function englishMobile(details: Details): string {
  const width = detailNumber(details, "viewport_width");
  if (width !== null)
    return `your homepage is set to a fixed width (${width} pixels) instead of fitting phone screens`;
  if (detailNumber(details, "initial_scale") !== null) return "your homepage opens zoomed out on phones";
  return "your homepage doesn't adapt to phone screens";
}

const englishUnreachable: Record<string, string> = {
  no_such_domain: "its web address leads nowhere (the domain name no longer seems to exist)",
  connection_refused: "twice, a few seconds apart, the server turned the visit away",
  not_found: `twice in a row the homepage came back as "page not found"`,
  server_error: "twice, a few seconds apart, the server answered with an error",
};

const english: Phrasebook = {
  subject: {
    site_unreachable: (name) => `${possessive(name)} website isn't loading`,
    parked_domain: (name) => `${possessive(name)} web address`,
    social_profile_only: (name) => `A website of its own for ${name}`,
    no_https: (name) => `${possessive(name)} website shows as "Not secure"`,
    no_website: (name) => `A website for ${name}`,
    no_mobile_viewport: (name) => `${possessive(name)} website on phones`,
    stale_copyright: (name, details) => {
      const year = detailNumber(details, "copyright_year");
      return year === null
        ? `The date at the bottom of ${possessive(name)} website`
        : `${possessive(name)} website still says ${year}`;
    },
    legacy_site_tech: (name) => `Bringing ${possessive(name)} website up to date`,
    no_french_version: (name) => `A French version of ${possessive(name)} website`,
    low_review_count: (name) => `More online reviews for ${name}`,
    not_mobile_friendly: (name) => `${possessive(name)} website on phones`,
    outdated_website: (name) => `A fresh look for ${possessive(name)} website`,
  },
  lead: {
    site_unreachable: (name, details) => {
      const problem =
        englishUnreachable[detailString(details, "problem") ?? ""] ?? englishUnreachable.server_error;
      return `your website would not open: ${problem}, so anyone who looks up ${name} online and clicks through gets an error instead of your page`;
    },
    parked_domain: (name) =>
      `the web address listed for your business shows a domain company's placeholder page, with ads or a "for sale" notice, so people who look up ${name} never reach your services`,
    social_profile_only: (name, details) => {
      const platform = detailString(details, "platform") ?? "social media";
      return `the only website listed for your business is your ${platform} page, so people who look up ${name} and aren't on ${platform} don't find a page of your own with your services and how to reach you`;
    },
    no_https: (name, details) => {
      const certificate = englishNotSecure(details);
      if (certificate !== null) {
        return `${certificate}, so browsers warn people who look up ${name} that the site isn't safe before they even see your page`;
      }
      return `your website shows as "Not secure" in the browser's address bar (it has no HTTPS), which can make people who look up ${name} think twice before they call or fill in your contact form`;
    },
    no_website: (name) =>
      `I couldn't find a website for your business, so people who look up ${name} online can't easily see what you offer or how to reach you`,
    no_mobile_viewport: (name) =>
      `your homepage isn't set up for phones (it has no "viewport" setting), so people who look up ${name} on a phone see a shrunken desktop page they have to pinch and zoom to read`,
    stale_copyright: (name, details) => {
      const year = detailNumber(details, "copyright_year");
      const seen =
        year === null
          ? "the copyright line at the bottom of your homepage is a few years out of date"
          : `the copyright line at the bottom of your homepage still says ${year}`;
      return `${seen}, which can make visitors wonder whether anyone at ${name} still looks after the site`;
    },
    legacy_site_tech: (name, details) => {
      const { seen, cost } = legacyEnglish(details);
      return `${seen}, ${cost(name)}`;
    },
    no_french_version: (name) =>
      `your website doesn't seem to have a French version, so French-speaking customers who look up ${name} find it only in English`,
    low_review_count: (name, details) =>
      `${name} ${englishReviews(detailNumber(details, "review_count") ?? 0)}, and people choosing between local businesses tend to call the ones with more`,
    not_mobile_friendly: (name, details) =>
      `${englishMobile(details)}, so people who look up ${name} on a phone have to pinch and zoom to read it`,
    outdated_website: (name) =>
      `your website looks a bit dated next to what people expect today, which doesn't do justice to ${name}`,
  },
  also: {
    site_unreachable: () => "your website would not open either time I tried it",
    parked_domain: () => "your web address shows a domain company's placeholder page",
    social_profile_only: (details) =>
      `the only website listed for you is your ${detailString(details, "platform") ?? "social media"} page`,
    no_https: (details) =>
      englishNotSecure(details) ?? `your website shows as "Not secure" in the browser (it has no HTTPS)`,
    no_website: () => "I couldn't find a website for your business",
    no_mobile_viewport: () => `your homepage isn't set up for phones (it has no "viewport" setting)`,
    stale_copyright: (details) => {
      const year = detailNumber(details, "copyright_year");
      return year === null
        ? "the copyright line at the bottom of your homepage is a few years out of date"
        : `the copyright line at the bottom of your homepage still says ${year}`;
    },
    legacy_site_tech: (details) => legacyEnglish(details).seen,
    no_french_version: () => "your website doesn't seem to have a French version",
    low_review_count: (details) =>
      `your business ${englishReviews(detailNumber(details, "review_count") ?? 0)}`,
    not_mobile_friendly: (details) => englishMobile(details),
    outdated_website: () => "your website looks a bit dated",
  },
  alsoParts: [
    [
      (clause) => `I also noticed that ${clause}`,
      (clause) => `I also saw that ${clause}`,
      (clause) => `Another thing: ${clause}`,
      (clause) => `On top of that, ${clause}`,
      (clause) => `One more thing: ${clause}`,
    ],
    [
      ", which is worth a look as well.",
      ", which matters to visitors too.",
      ", and that is worth fixing too.",
      ", which is easy to put right.",
      ", which visitors notice more than you might think.",
    ],
  ],
};

/** French: what the kind of technology is, in plain words, its technical name once in parentheses. */
function legacyFrench(details: Details): { seen: string; cost: (name: string) => string } {
  const jquery = detailString(details, "jquery_version");
  if (jquery !== null) {
    return {
      seen: `votre site repose sur une ancienne version d'une boîte à outils de programmation courante (jQuery ${jquery}) qui ne reçoit plus de correctifs de sécurité`,
      cost: (name) => `ce qui expose ${name} à des failles déjà connues`,
    };
  }
  if (detailString(details, "flash") !== null) {
    return {
      seen: "une partie de votre site repose encore sur Flash, que les navigateurs n'affichent plus",
      cost: (name) => `et les personnes qui cherchent ${name} voient des cases vides à la place`,
    };
  }
  if (detailString(details, "table_layout") !== null) {
    return {
      seen: "la mise en page de votre site utilise une technique ancienne (des tableaux HTML) qui ne s'adapte pas aux téléphones",
      cost: (name) =>
        `et les personnes qui cherchent ${name} sur un petit écran obtiennent une page qui déborde`,
    };
  }
  const tag = obsoleteTag(details);
  if (tag !== null) {
    return {
      seen: `votre page d'accueil utilise encore un code de mise en forme abandonné par la norme du web (la balise ${tag})`,
      cost: (name) =>
        `signe, pour les personnes qui cherchent ${name}, que le site n'a pas été mis à jour depuis des années`,
    };
  }
  return {
    seen: "votre site repose sur des technologies web anciennes",
    cost: (name) =>
      `plus lentes et plus difficiles à sécuriser, et les personnes qui cherchent ${name} en font les frais`,
  };
}

const frenchReviews = (count: number): string =>
  count === 0
    ? "n'a pas encore d'avis en ligne"
    : `ne compte pour l'instant ${count === 1 ? "qu'un seul avis en ligne" : `que ${count} avis en ligne`}`;

function frenchNotSecure(details: Details): string | null {
  switch (detailString(details, "certificate_problem")) {
    case "expired":
      return "le certificat de sécurité de votre site a expiré";
    case "wrong_host":
      return "le certificat de sécurité de votre site a été émis pour une autre adresse";
    case "self_signed":
    case "untrusted":
      return "le certificat de sécurité de votre site n'est pas reconnu par les navigateurs";
    default:
      return null;
  }
}

function frenchMobile(details: Details): string {
  const width = detailNumber(details, "viewport_width");
  if (width !== null)
    return `votre page d'accueil a une largeur fixe (${width} pixels) au lieu de s'adapter aux téléphones`;
  if (detailNumber(details, "initial_scale") !== null)
    return "votre page d'accueil s'ouvre en mode dézoomé sur les téléphones";
  return "votre page d'accueil ne s'adapte pas aux écrans de téléphone";
}

const frenchUnreachable: Record<string, string> = {
  no_such_domain: "son adresse ne mène nulle part (le nom de domaine semble ne plus exister)",
  connection_refused: "à deux reprises, à quelques secondes d'intervalle, le serveur a refusé la visite",
  not_found: "à deux reprises, la page d'accueil a répondu « page introuvable »",
  server_error: "à deux reprises, à quelques secondes d'intervalle, le serveur a répondu par une erreur",
};

const french: Phrasebook = {
  subject: {
    site_unreachable: (name) => `${name} : votre site ne s'affiche plus`,
    parked_domain: (name) => `${name} : l'adresse de votre site web`,
    social_profile_only: (name) => `Un site à part entière pour ${name}`,
    no_https: (name) => `${name} : votre site s'affiche « Non sécurisé »`,
    no_website: (name) => `Un site web pour ${name}`,
    no_mobile_viewport: (name) => `${name} : votre site sur téléphone`,
    stale_copyright: (name, details) => {
      const year = detailNumber(details, "copyright_year");
      return year === null
        ? `${name} : la date en bas de votre site`
        : `${name} : votre site affiche encore ${year}`;
    },
    legacy_site_tech: (name) => `${name} : moderniser votre site`,
    no_french_version: (name) => `${name} : une version française de votre site`,
    low_review_count: (name) => `Plus d'avis en ligne pour ${name}`,
    not_mobile_friendly: (name) => `${name} : votre site sur téléphone`,
    outdated_website: (name) => `${name} : un coup de jeune pour votre site`,
  },
  // The business is named as a direct object ("les personnes qui cherchent X"): no "de + nom",
  // whose elision and contraction depend on the name.
  lead: {
    site_unreachable: (name, details) => {
      const problem =
        frenchUnreachable[detailString(details, "problem") ?? ""] ?? frenchUnreachable.server_error;
      return `votre site web ne s'ouvre pas : ${problem}, et les personnes qui cherchent ${name} en ligne tombent sur une erreur au lieu de votre page`;
    },
    parked_domain: (name) =>
      `l'adresse web indiquée pour votre entreprise affiche une page d'attente d'un bureau d'enregistrement, avec des publicités ou une annonce « à vendre », et les personnes qui cherchent ${name} n'arrivent jamais jusqu'à vos services`,
    social_profile_only: (name, details) => {
      const platform = detailString(details, "platform") ?? "un réseau social";
      return `le seul site indiqué pour votre entreprise est votre page ${platform} : les personnes qui cherchent ${name} sans être sur ${platform} ne trouvent pas de page à vous avec vos services et vos coordonnées`;
    },
    no_https: (name, details) => {
      const certificate = frenchNotSecure(details);
      if (certificate !== null) {
        return `${certificate} : les navigateurs préviennent les personnes qui cherchent ${name} que le site n'est pas sûr avant même d'afficher votre page`;
      }
      return `votre site s'affiche comme « Non sécurisé » dans la barre d'adresse du navigateur (il n'a pas de HTTPS), ce qui peut faire hésiter les personnes qui cherchent ${name} avant d'appeler ou de remplir votre formulaire`;
    },
    no_website: (name) =>
      `je n'ai pas trouvé de site web pour votre entreprise : les personnes qui cherchent ${name} en ligne ne peuvent pas facilement voir ce que vous proposez ni comment vous joindre`,
    no_mobile_viewport: (name) =>
      `votre page d'accueil n'est pas prévue pour les téléphones (il lui manque le réglage « viewport ») : les personnes qui cherchent ${name} sur leur téléphone voient une page d'ordinateur en miniature, qu'il faut agrandir du bout des doigts pour la lire`,
    stale_copyright: (name, details) => {
      const year = detailNumber(details, "copyright_year");
      const seen =
        year === null
          ? "la ligne de copyright en bas de votre page d'accueil date de plusieurs années"
          : `la ligne de copyright en bas de votre page d'accueil indique encore ${year}`;
      return `${seen}, et les personnes qui découvrent ${name} peuvent se demander si le site est encore suivi`;
    },
    legacy_site_tech: (name, details) => {
      const { seen, cost } = legacyFrench(details);
      return `${seen}, ${cost(name)}`;
    },
    no_french_version: (name) =>
      `votre site ne semble pas avoir de version française : la clientèle francophone qui cherche ${name} ne le trouve qu'en anglais`,
    low_review_count: (name, details) =>
      `${name} ${frenchReviews(detailNumber(details, "review_count") ?? 0)}, et les clients qui comparent les entreprises du coin appellent plus volontiers celles qui en ont davantage`,
    not_mobile_friendly: (name, details) =>
      `${frenchMobile(details)} : les personnes qui cherchent ${name} sur leur téléphone doivent zoomer pour la lire`,
    outdated_website: (name) =>
      `votre site paraît un peu daté par rapport à ce qu'on attend aujourd'hui, et c'est la première image que les personnes qui cherchent ${name} ont de vous`,
  },
  also: {
    site_unreachable: () => "votre site web ne s'est pas ouvert lors de mes deux essais",
    parked_domain: () => "votre adresse web affiche la page d'attente d'un bureau d'enregistrement",
    social_profile_only: (details) =>
      `le seul site indiqué pour vous est votre page ${detailString(details, "platform") ?? "sur un réseau social"}`,
    no_https: (details) =>
      frenchNotSecure(details) ??
      "votre site s'affiche comme « Non sécurisé » dans le navigateur (il n'a pas de HTTPS)",
    no_website: () => "je n'ai pas trouvé de site web pour votre entreprise",
    no_mobile_viewport: () =>
      "votre page d'accueil n'est pas prévue pour les téléphones (il lui manque le réglage « viewport »)",
    stale_copyright: (details) => {
      const year = detailNumber(details, "copyright_year");
      return year === null
        ? "la ligne de copyright en bas de votre page d'accueil date de plusieurs années"
        : `la ligne de copyright en bas de votre page d'accueil indique encore ${year}`;
    },
    legacy_site_tech: (details) => legacyFrench(details).seen,
    no_french_version: () => "votre site ne semble pas avoir de version française",
    low_review_count: (details) =>
      `votre entreprise ${frenchReviews(detailNumber(details, "review_count") ?? 0)}`,
    not_mobile_friendly: (details) => frenchMobile(details),
    outdated_website: () => "votre site paraît un peu daté",
  },
  alsoParts: [
    [
      // "que" elides before a vowel: "qu'une partie de votre site".
      (clause) => `J'ai aussi remarqué ${elidedQue(clause)}`,
      (clause) => `J'ai également vu ${elidedQue(clause)}`,
      (clause) => `Autre point : ${clause}`,
      (clause) => `Par ailleurs, ${clause}`,
      (clause) => `Dernière chose : ${clause}`,
    ],
    [
      ", ce qui vaut aussi la peine d'être regardé.",
      ", ce qui compte aussi pour les visiteurs.",
      ", et cela mérite d'être corrigé également.",
      ", ce qui se corrige facilement.",
      ", et les visiteurs le remarquent plus qu'on ne le croit.",
    ],
  ],
};

function elidedQue(clause: string): string {
  return `${/^[aeiouyàâéèêîôû]/i.test(clause) ? "qu'" : "que "}${clause}`;
}

const phrasebooks: Record<DraftLocale, Phrasebook> = { en: english, fr: french };

const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Builds the email; exported separately from the generator so tests can call it synchronously. */
export function renderTemplateDraft(request: DraftRequest): Draft {
  const facts = factsForDraft(request.facts);
  const [first, second] = facts;
  if (first === undefined) {
    throw new ApiError(
      "insufficient_audit_data",
      "Nothing verified about this business gives a basis for a draft.",
    );
  }
  const book = phrasebooks[request.locale];
  const name = singleLine(request.business.name) ?? "";

  const subject = book.subject[first.key](name, first.details);
  const sentences = [`${upperFirst(book.lead[first.key](name, first.details))}.`];
  if (second !== undefined) {
    const [leadIn, ending] = variantDigits(request.variant);
    const wrap = book.alsoParts[0][leadIn] ?? book.alsoParts[0][0];
    sentences.push(
      `${wrap?.(book.also[second.key](second.details)) ?? ""}${book.alsoParts[1][ending] ?? ""}`,
    );
  }
  const factsUsed = facts.map((fact) => fact.key);

  return {
    subject: typesetFor(request.locale)(subject),
    body: assembleBody(request, sentences.join(" "), factsUsed),
    facts_used: factsUsed,
  };
}

export function createTemplateGenerator(): DraftGenerator {
  return {
    name: "template",
    // Pure and synchronous: a second is far more than it ever takes.
    maxDurationMs: 1_000,
    generate: async (request) => renderTemplateDraft(request),
  };
}
