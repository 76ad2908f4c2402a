/**
 * A catalogue of how real models behind OpenAI-compatible servers answer the drafting prompt,
 * as behaviours of the fake server (fake-openai.ts). Each writes from the prompt it received, the
 * way a model would: the business's name, the facts' details, the requested language.
 */
import type { BehaviourChooser, FakeBehaviour, RecordedRequest } from "./fake-openai.ts";

export interface PromptData {
  locale: "en" | "fr";
  business: { name: string; category: string; city: string | null };
  facts: { key: string; meaning: string; details: Record<string, string | number> }[];
}

/** The user message's JSON data of a chat completion request the fake received. */
export function promptOf(recorded: RecordedRequest): PromptData {
  const body = recorded.json as { messages: { role: string; content: string }[] };
  const user = body.messages.find((message) => message.role === "user");
  if (user === undefined) throw new Error("no user message");
  return JSON.parse(user.content) as PromptData;
}

interface Written {
  subject: string;
  body: string;
  facts_used: string[];
}

/** How a good model says each fact, in its own words (not the template's), with its details. */
const SAYS: Record<"en" | "fr", Record<string, (details: Record<string, string | number>) => string>> = {
  en: {
    site_unreachable: () => "your website would not load when I tried it",
    parked_domain: () => "your web address shows a parked placeholder page",
    social_profile_only: (d) => `your only site is a ${d.platform ?? "social media"} page`,
    no_https: () => `browsers mark your site as "Not secure"`,
    no_website: () => "you don't have a website yet",
    no_mobile_viewport: () => "your homepage is hard to read on a phone",
    stale_copyright: (d) => `the copyright notice still shows ${d.copyright_year ?? "an old year"}`,
    legacy_site_tech: (d) =>
      d.jquery_version ? `the site still loads jQuery ${d.jquery_version}` : "the site uses obsolete code",
    no_french_version: () => "there is no French version",
    low_review_count: (d) => `you have ${d.review_count ?? "few"} reviews online`,
    not_mobile_friendly: () => "the page does not fit a phone screen",
    outdated_website: () => "the design looks dated",
  },
  fr: {
    site_unreachable: () => "votre site ne s'affiche pas quand j'essaie de l'ouvrir",
    parked_domain: () => "votre adresse web mène à une page de parking",
    social_profile_only: (d) => `votre seul site est une page ${d.platform ?? "de réseau social"}`,
    no_https: () => "les navigateurs indiquent votre site comme « non sécurisé »",
    no_website: () => "vous n'avez pas encore de site web",
    no_mobile_viewport: () => "votre page d'accueil est difficile à lire sur un téléphone",
    stale_copyright: (d) =>
      `la mention de copyright indique encore ${d.copyright_year ?? "une vieille année"}`,
    legacy_site_tech: (d) =>
      d.jquery_version
        ? `le site charge encore jQuery ${d.jquery_version}`
        : "le site utilise du code obsolète",
    no_french_version: () => "il n'existe pas de version française",
    low_review_count: (d) => `vous avez ${d.review_count ?? "peu"} avis en ligne`,
    not_mobile_friendly: () => "la page ne s'adapte pas à l'écran d'un téléphone",
    outdated_website: () => "le design paraît daté",
  },
};

/** What a good model writes: a subject naming the business, one paragraph stating each fact with its details. */
function wellWritten(prompt: PromptData, locale: "en" | "fr" = prompt.locale): Written {
  const name = prompt.business.name;
  const said = prompt.facts.map((fact) => SAYS[locale][fact.key]?.(fact.details) ?? fact.meaning);
  if (locale === "fr") {
    return {
      subject: `${name} : quelques remarques sur votre présence en ligne`,
      body: `En regardant ce que l'on trouve sur votre entreprise, j'ai remarqué que ${said.join(", et que ")}. Ce sont des détails que les nouveaux clients voient tout de suite, et ils se corrigent généralement sans grande difficulté.`,
      facts_used: prompt.facts.map((fact) => fact.key).reverse(),
    };
  }
  return {
    subject: `${name}: a few notes on your online presence`,
    body: `Looking at what is public about your business, I noticed that ${said.join(", and that ")}. These are details new customers see right away, and they are usually quick to put right.`,
    facts_used: prompt.facts.map((fact) => fact.key).reverse(),
  };
}

const json = (written: Written): FakeBehaviour => ({ kind: "json", value: written });
const fromPrompt =
  (write: (prompt: PromptData) => FakeBehaviour) =>
  (request: RecordedRequest): FakeBehaviour =>
    write(promptOf(request));

const SIGN_OFF = { en: "Best regards", fr: "Bien cordialement" } as const;
const GREETING = { en: "Hi there,", fr: "Bonjour," } as const;

/** Each entry: how a real model answers. Used as `fake.respondWith(modelCatalogue.x)`. */
export const modelCatalogue = {
  /** Follows the prompt to the letter. */
  wellBehaved: fromPrompt((prompt) => json(wellWritten(prompt))),

  /** Writes a whole email and signs off with just "Best regards": no name, no company. */
  omitsSignature: fromPrompt((prompt) => {
    const written = wellWritten(prompt);
    const body = `${GREETING[prompt.locale]}\n\n${written.body}\n\n${SIGN_OFF[prompt.locale]}`;
    return json({ ...written, body });
  }),

  /** Never says the business's name, in the subject or the body. */
  omitsBusinessName: fromPrompt((prompt) => {
    const written = wellWritten(prompt);
    const subject =
      prompt.locale === "fr" ? "Quelques remarques sur votre site" : "A few notes on your website";
    return json({ ...written, subject });
  }),

  /** Wraps the JSON in a markdown code fence, with a sentence before it. */
  wrapsJsonInCodeFence: fromPrompt((prompt) => ({
    kind: "content",
    content: `Here is the email:\n\n\`\`\`json\n${JSON.stringify(wellWritten(prompt), null, 2)}\n\`\`\``,
  })),

  /** Ignores the JSON instruction and answers in markdown: a bold subject line, a heading, bullets, a signature. */
  answersInMarkdown: fromPrompt((prompt) => {
    const written = wellWritten(prompt);
    const label = prompt.locale === "fr" ? "Objet" : "Subject";
    const sentences = written.body.split(/(?<=\.) /);
    return {
      kind: "content",
      content: [
        `**${label}:** ${written.subject}`,
        "",
        `${GREETING[prompt.locale]}`,
        "",
        "## Notes",
        "",
        ...sentences.map((sentence) => `- ${sentence.replace(/^(\S+)/, "**$1**")}`),
        "",
        `${SIGN_OFF[prompt.locale]},`,
        prompt.locale === "fr" ? "[Votre nom]" : "[Your name]",
      ].join("\n"),
    };
  }),

  /** Answers in English whatever the locale asked. */
  answersInEnglish: fromPrompt((prompt) => json(wellWritten(prompt, "en"))),

  /** Makes up a year ("since 2009") that is not among the facts. */
  inventsYear: fromPrompt((prompt) => {
    const written = wellWritten(prompt);
    const extra =
      prompt.locale === "fr"
        ? " Votre site n'a pas changé depuis 2009."
        : " Your site has not changed since 2009.";
    return json({ ...written, body: `${written.body}${extra}` });
  }),

  /** Makes up a review count ("your 47 reviews"). */
  inventsReviewCount: fromPrompt((prompt) => {
    const written = wellWritten(prompt);
    const extra =
      prompt.locale === "fr"
        ? " Vos 47 avis en ligne méritent un meilleur site."
        : " Your 47 online reviews deserve a better website.";
    return json({ ...written, body: `${written.body}${extra}` });
  }),

  /** Adds a link to the sender's portfolio. */
  addsLink: fromPrompt((prompt) => {
    const written = wellWritten(prompt);
    return json({ ...written, body: `${written.body} See examples at https://portfolio.example/work.` });
  }),

  /** Adds an email address to write back to. */
  addsEmailAddress: fromPrompt((prompt) => {
    const written = wellWritten(prompt);
    return json({ ...written, body: `${written.body} You can reach me at hello@portfolio.example.` });
  }),

  /** Answers with a function tool call carrying the JSON, content null (tool-happy models). */
  returnsToolCall: fromPrompt((prompt) => ({
    kind: "toolCall",
    arguments: JSON.stringify(wellWritten(prompt)),
  })),

  /** Streams its answer as server-sent events although no stream was asked for. */
  streams: fromPrompt((prompt) => ({ kind: "stream", content: JSON.stringify(wellWritten(prompt)) })),

  /** Stops mid-sentence at its token limit. */
  cutOff: fromPrompt((prompt) => {
    const written = wellWritten(prompt);
    return { kind: "content", content: JSON.stringify(written).slice(0, 120), finishReason: "length" };
  }),
} satisfies Record<string, BehaviourChooser>;

/** `first` for the first completion, `then` for every later one (a model that gets it right when told why). */
export function firstThen(first: BehaviourChooser, then: BehaviourChooser): BehaviourChooser {
  return (request, index) => {
    const chosen = index === 0 ? first : then;
    return typeof chosen === "function" ? chosen(request, index) : chosen;
  };
}
