/**
 * The built-in drafter used when no LLM is configured: hand-written English and French
 * phrasebooks, one sentence per fact. Deterministic: the same request gives the same email.
 *
 * Rules the phrases keep:
 * - state only the facts listed in facts_used, with only their structured details;
 * - name the business without grammar that depends on its name: no English possessive of a
 *   clause-leading name, no French "de + name" (elision and "de le" / "du" depend on the name);
 * - the provider's category is not used: its display name comes in an unknown language and
 *   grammatical form, and inserted as-is it reads badly (above all in French);
 * - French says "vous", and avoids past participles agreeing with "je" (the sender's gender is
 *   unknown); typography uses no-break spaces before ":", "?", "!", ";" and inside « ».
 *
 * The greeting, the opening line, the offer sentence, the ask and the signature are the service's
 * frame (email-frame.ts), shared with the LLM drafter; this module writes the middle: one
 * sentence per fact and a closing remark. Sender: name and company sign the email, with
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

type Details = VerifiedFact["details"];

interface Phrasebook {
  subject: Record<FactKey, (name: string, details: Details) => string>;
  /** One clause per fact, lowercase-first, no final period: it is either capitalised or follows a connective. */
  clause: Record<FactKey, (details: Details) => string>;
  /** Introduces the second fact's clause. */
  alsoNoticed(clause: string): string;
  closingForOne: Record<FactKey, string>;
  closingForTwo: string;
}

const detailNumber = (details: Details, key: string): number | null => {
  const value = details[key];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
};

const detailString = (details: Details, key: string): string | null => {
  const value = details[key];
  return typeof value === "string" && value !== "" ? value : null;
};

const obsoleteTags = (details: Details): string[] =>
  (detailString(details, "obsolete_tags") ?? "")
    .split(",")
    .filter((tag) => /^[a-z]+$/.test(tag))
    .slice(0, 2)
    .map((tag) => `<${tag}>`);

/** English possessive that stays readable for names ending in "s" ("Smith Brothers'"). */
const possessive = (name: string): string => (/s$/i.test(name) ? `${name}'` : `${name}'s`);

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
        ? `The copyright date on ${possessive(name)} website`
        : `${possessive(name)} website still says ${year}`;
    },
    legacy_site_tech: (name) => `The technology behind ${possessive(name)} website`,
    no_french_version: (name) => `A French version of ${possessive(name)} website`,
    low_review_count: (name) => `More online reviews for ${name}`,
    not_mobile_friendly: (name) => `${possessive(name)} website on phones`,
    outdated_website: (name) => `A fresh look for ${possessive(name)} website`,
  },
  clause: {
    site_unreachable: (details) => {
      // Always the first fact (DESIGN's order): "it" is the website the service's opening line names.
      const tried = "when I tried to open it";
      switch (detailString(details, "problem")) {
        case "no_such_domain":
          return `${tried}, its address led nowhere: the domain name doesn't seem to exist anymore, so anyone who clicks your link from a search lands on an error`;
        case "connection_refused":
          return `${tried}, the server refused the connection twice, a few seconds apart, so visitors who click your link get an error instead of your page`;
        case "not_found":
          return `${tried}, the homepage came back as "page not found" twice in a row, so visitors who click your link land on an error instead of your business`;
        default:
          return `${tried}, the server answered with an error twice, a few seconds apart, so visitors who click your link see an error page instead of your business`;
      }
    },
    parked_domain: () =>
      `the web address listed for your business shows a domain company's parking page instead of your website, so people who look you up find ads or a "domain for sale" notice rather than your services`,
    social_profile_only: (details) => {
      const platform = detailString(details, "platform") ?? "social media";
      return `the only website listed for your business is your ${platform} page, so people who aren't on ${platform}, or who search for you online, don't find a page of your own with your services and how to reach you`;
    },
    no_https: (details) => {
      const warning = "so browsers warn visitors that the site isn't safe before they even see your page";
      switch (detailString(details, "certificate_problem")) {
        case "expired":
          return `your website's security certificate has expired, ${warning}`;
        case "wrong_host":
          return `your website's security certificate was issued for a different address, ${warning}`;
        case "self_signed":
        case "untrusted":
          return `your website's security certificate isn't one that browsers trust, ${warning}`;
        default:
          return `your website doesn't use HTTPS, so browsers mark it as "Not secure" in the address bar, which can make visitors hesitate, especially before they fill in a contact form`;
      }
    },
    no_website: () =>
      "I couldn't find a website for your business, so people who look you up online can't easily see what you offer or how to reach you",
    no_mobile_viewport: () =>
      "your homepage is missing the viewport tag that tells phones to fit the page to the screen, so on a phone it shows up as a shrunken desktop page that visitors have to pinch and zoom",
    stale_copyright: (details) => {
      const year = detailNumber(details, "copyright_year");
      const notice =
        year === null
          ? "the copyright notice on your homepage is a few years out of date"
          : `the copyright notice on your homepage still says ${year}`;
      return `${notice}, which can make visitors wonder whether the site is still looked after`;
    },
    legacy_site_tech: (details) => {
      const jquery = detailString(details, "jquery_version");
      if (jquery !== null) {
        return `your site still runs on jQuery ${jquery}, an old version of the library that no longer gets security fixes`;
      }
      if (detailString(details, "flash") !== null) {
        return "parts of your site still rely on Flash, which current browsers can no longer display";
      }
      if (detailString(details, "table_layout") !== null) {
        return "your page layout is built with HTML tables, an older technique that doesn't adapt well to phones and tablets";
      }
      const tags = obsoleteTags(details);
      if (tags.length === 2) {
        return `your homepage still uses obsolete HTML tags such as ${tags[0]} and ${tags[1]}, which are no longer part of the HTML standard`;
      }
      if (tags.length === 1) {
        return `your homepage still uses an obsolete HTML tag, ${tags[0]}, which is no longer part of the HTML standard`;
      }
      return "your site is built on older web technology that is due for an update";
    },
    no_french_version: () =>
      "your website doesn't seem to offer a French version, which matters for reaching French-speaking customers in Canada",
    low_review_count: (details) => {
      const count = detailNumber(details, "review_count") ?? 0;
      if (count === 0) {
        return "your business doesn't have any online reviews yet, and people comparing local options tend to trust businesses that do";
      }
      const reviews = count === 1 ? "1 online review" : `${count} online reviews`;
      return `your business has only ${reviews} so far, and people comparing local options tend to trust businesses with more`;
    },
    not_mobile_friendly: (details) => {
      const width = detailNumber(details, "viewport_width");
      if (width !== null) {
        return `your homepage is set to a fixed width of ${width} pixels, so on a phone it shows up as a shrunken desktop layout instead of fitting the screen`;
      }
      if (detailNumber(details, "initial_scale") !== null) {
        return "your homepage is set to open zoomed out on phones, so visitors have to zoom in before they can read it";
      }
      return "your homepage doesn't adapt to phone screens, so visitors on a phone have to pinch and zoom to read it";
    },
    outdated_website: () => "your website looks a bit dated compared with what visitors expect today",
  },
  alsoNoticed: (clause) => `I also noticed that ${clause}.`,
  closingForOne: {
    site_unreachable:
      "When a site doesn't load, most visitors don't try again: they call the next business on the list. Getting it back online is usually quick.",
    parked_domain:
      "Putting a simple website back on that address would turn those visits into customers again.",
    social_profile_only:
      "A site of your own works alongside social media: it's yours, it shows up in search results, and it doesn't depend on a platform's rules.",
    no_https:
      "Setting up HTTPS properly is quick and inexpensive today, and it removes that warning for good.",
    no_website:
      "A simple, well-made website is quicker to set up than most people think, and it gives customers one place to see your services and get in touch.",
    no_mobile_viewport:
      "Many people look up local businesses on their phone, so this is usually the first thing worth fixing.",
    stale_copyright:
      "It's a small detail, but visitors do notice it, and it's often a sign that a site is ready for a refresh.",
    legacy_site_tech:
      "Moving to current technology usually makes a site faster, safer and easier to keep up to date.",
    no_french_version: "Offering one would make it easier for customers who prefer French to choose you.",
    low_review_count:
      "Asking happy customers for a review at the right moment is easy to set up, and the reviews add up quickly.",
    not_mobile_friendly:
      "Many people look up local businesses on their phone, so this is usually the first thing worth fixing.",
    outdated_website:
      "A refresh doesn't have to be a big project, and it can change how new customers see you at first glance.",
  },
  closingForTwo:
    "Both are straightforward to address, and together they make a real difference to how new customers see you online.",
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
        ? `${name} : la mention de copyright de votre site`
        : `${name} : votre site affiche encore ${year}`;
    },
    legacy_site_tech: (name) => `${name} : moderniser votre site`,
    no_french_version: (name) => `${name} : une version française de votre site`,
    low_review_count: (name) => `Plus d'avis en ligne pour ${name}`,
    not_mobile_friendly: (name) => `${name} : votre site sur téléphone`,
    outdated_website: (name) => `${name} : un coup de jeune pour votre site`,
  },
  clause: {
    site_unreachable: (details) => {
      // Also always first: "l'" is the website the opening line names.
      const tried = "quand j'ai essayé de l'ouvrir";
      switch (detailString(details, "problem")) {
        case "no_such_domain":
          return `${tried}, son adresse ne menait nulle part : le nom de domaine ne semble plus exister, et les personnes qui cliquent sur votre lien depuis une recherche tombent sur une erreur`;
        case "connection_refused":
          return `${tried}, le serveur a refusé la connexion à deux reprises, à quelques secondes d'intervalle : les visiteurs qui cliquent sur votre lien obtiennent une erreur au lieu de votre page`;
        case "not_found":
          return `${tried}, la page d'accueil est revenue « introuvable » à deux reprises : les visiteurs qui cliquent sur votre lien tombent sur une erreur au lieu de votre entreprise`;
        default:
          return `${tried}, le serveur a répondu par une erreur à deux reprises, à quelques secondes d'intervalle : les visiteurs qui cliquent sur votre lien voient une page d'erreur au lieu de votre entreprise`;
      }
    },
    parked_domain: () =>
      "l'adresse web indiquée pour votre entreprise affiche la page de parking d'un bureau d'enregistrement au lieu de votre site : les personnes qui vous cherchent y trouvent des publicités ou une annonce « domaine à vendre » plutôt que vos services",
    social_profile_only: (details) => {
      const platform = detailString(details, "platform") ?? "un réseau social";
      return `le seul site web indiqué pour votre entreprise est votre page ${platform} : les personnes qui ne sont pas sur ${platform}, ou qui vous cherchent en ligne, ne trouvent pas de page à vous qui présente vos services et vos coordonnées`;
    },
    no_https: (details) => {
      const warning =
        "les navigateurs avertissent les visiteurs que le site n'est pas sûr avant même d'afficher votre page";
      switch (detailString(details, "certificate_problem")) {
        case "expired":
          return `le certificat de sécurité de votre site web a expiré : ${warning}`;
        case "wrong_host":
          return `le certificat de sécurité de votre site web a été émis pour une autre adresse : ${warning}`;
        case "self_signed":
        case "untrusted":
          return `le certificat de sécurité de votre site web n'est pas reconnu par les navigateurs : ${warning}`;
        default:
          return "votre site web n'utilise pas HTTPS : les navigateurs l'affichent comme « Non sécurisé » dans la barre d'adresse, ce qui peut faire hésiter les visiteurs, surtout avant de remplir un formulaire de contact";
      }
    },
    no_website: () =>
      "je n'ai pas trouvé de site web pour votre entreprise : les personnes qui vous cherchent en ligne ne peuvent donc pas facilement découvrir vos services ni vous joindre",
    no_mobile_viewport: () =>
      "votre page d'accueil n'est pas configurée pour les téléphones : sans balise « viewport », elle s'y affiche comme une page d'ordinateur en miniature, et les visiteurs doivent zoomer pour la lire",
    stale_copyright: (details) => {
      const year = detailNumber(details, "copyright_year");
      const notice =
        year === null
          ? "la mention de copyright de votre page d'accueil date de plusieurs années"
          : `la mention de copyright de votre page d'accueil indique encore ${year}`;
      return `${notice}, ce qui peut donner l'impression que le site n'est plus entretenu`;
    },
    legacy_site_tech: (details) => {
      const jquery = detailString(details, "jquery_version");
      if (jquery !== null) {
        return `votre site utilise encore jQuery ${jquery}, une ancienne version de cette bibliothèque qui ne reçoit plus de correctifs de sécurité`;
      }
      if (detailString(details, "flash") !== null) {
        return "une partie de votre site repose encore sur Flash, que les navigateurs actuels ne savent plus afficher";
      }
      if (detailString(details, "table_layout") !== null) {
        return "la mise en page de votre site repose sur des tableaux HTML, une technique ancienne qui s'adapte mal aux téléphones et aux tablettes";
      }
      const tags = obsoleteTags(details);
      if (tags.length === 2) {
        return `votre page d'accueil utilise encore des balises HTML obsolètes comme ${tags[0]} et ${tags[1]}, qui ne font plus partie de la norme HTML`;
      }
      if (tags.length === 1) {
        return `votre page d'accueil utilise encore une balise HTML obsolète, ${tags[0]}, qui ne fait plus partie de la norme HTML`;
      }
      return "votre site repose sur des technologies web anciennes qui mériteraient d'être modernisées";
    },
    no_french_version: () =>
      "votre site ne semble pas proposer de version française, ce qui compte pour toucher la clientèle francophone au Canada",
    low_review_count: (details) => {
      const count = detailNumber(details, "review_count") ?? 0;
      if (count === 0) {
        return "votre entreprise n'a pas encore d'avis en ligne, et les clients qui comparent plusieurs entreprises se fient plus volontiers à celles qui en ont";
      }
      const reviews = count === 1 ? "qu'un seul avis en ligne" : `que ${count} avis en ligne`;
      return `votre entreprise ne compte pour l'instant ${reviews}, et les clients qui comparent plusieurs entreprises se fient plus volontiers à celles qui en ont davantage`;
    },
    not_mobile_friendly: (details) => {
      const width = detailNumber(details, "viewport_width");
      if (width !== null) {
        return `votre page d'accueil est réglée sur une largeur fixe de ${width} pixels : sur un téléphone, elle s'affiche comme une page d'ordinateur en miniature au lieu de s'adapter à l'écran`;
      }
      if (detailNumber(details, "initial_scale") !== null) {
        return "votre page d'accueil s'ouvre en mode dézoomé sur les téléphones, et les visiteurs doivent l'agrandir pour la lire";
      }
      return "votre page d'accueil ne s'adapte pas aux écrans de téléphone, et les visiteurs doivent zoomer pour la lire";
    },
    outdated_website: () =>
      "votre site paraît un peu daté par rapport à ce que les visiteurs attendent aujourd'hui",
  },
  // "que" elides before a vowel: "qu'une partie de votre site".
  alsoNoticed: (clause) =>
    `J'ai aussi remarqué ${/^[aeiouyàâéèêîôû]/i.test(clause) ? "qu'" : "que "}${clause}.`,
  closingForOne: {
    site_unreachable:
      "Quand un site ne s'affiche pas, la plupart des visiteurs n'insistent pas : ils appellent l'entreprise suivante. Le remettre en ligne est souvent rapide.",
    parked_domain:
      "Remettre un site simple à cette adresse transformerait de nouveau ces visites en clients.",
    social_profile_only:
      "Un site à vous complète les réseaux sociaux : il vous appartient, il apparaît dans les résultats de recherche et il ne dépend pas des règles d'une plateforme.",
    no_https:
      "Mettre en place HTTPS correctement est aujourd'hui rapide et peu coûteux, et cet avertissement disparaît pour de bon.",
    no_website:
      "Un site simple et soigné se met en place plus vite qu'on ne le pense, et vos clients y trouvent en un coup d'œil ce que vous proposez.",
    no_mobile_viewport:
      "Beaucoup de gens cherchent une entreprise locale depuis leur téléphone : c'est souvent la première chose à corriger.",
    stale_copyright:
      "C'est un petit détail, mais les visiteurs le remarquent, et c'est souvent le signe qu'un site mérite d'être rafraîchi.",
    legacy_site_tech:
      "Passer à des technologies actuelles rend généralement un site plus rapide, plus sûr et plus facile à mettre à jour.",
    no_french_version:
      "En proposer une permettrait aux clients qui préfèrent le français de vous choisir plus facilement.",
    low_review_count:
      "Demander un avis aux clients satisfaits au bon moment est simple à mettre en place, et les avis s'accumulent vite.",
    not_mobile_friendly:
      "Beaucoup de gens cherchent une entreprise locale depuis leur téléphone : c'est souvent la première chose à corriger.",
    outdated_website:
      "Un rafraîchissement n'a pas besoin d'être un gros projet, et il peut changer la première impression de vos nouveaux clients.",
  },
  closingForTwo:
    "Ces deux points se règlent assez simplement, et ensemble ils changent vraiment la façon dont les nouveaux clients vous perçoivent en ligne.",
};

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
  const factSentences = [`${upperFirst(book.clause[first.key](first.details))}.`];
  if (second !== undefined) factSentences.push(book.alsoNoticed(book.clause[second.key](second.details)));
  const closing = second === undefined ? book.closingForOne[first.key] : book.closingForTwo;
  const factsUsed = facts.map((fact) => fact.key);

  return {
    subject: typesetFor(request.locale)(subject),
    body: assembleBody(request, `${factSentences.join(" ")}\n\n${closing}`, factsUsed),
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
