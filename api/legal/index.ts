import { readFile } from "node:fs/promises";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ConfigError } from "../../shared/config.ts";
import type { Language } from "../../shared/languages.ts";
import { PRIVACY_PATH, TERMS_PATH } from "../../shared/legal-pages.ts";
import { SafeHtml } from "../console/html.ts";
import { languageFromHeader, translator } from "../console/i18n.ts";
import { layout, PAGE_HEADERS } from "../console/layout.ts";
import { compressAnswers } from "../plugins/compression.ts";
import { defaultPrivacyPolicy, defaultTermsOfService } from "./default-pages.ts";

interface LegalPagesOptions {
  /** An HTML fragment of the operator's own (the page's body), read once at start. */
  privacyPolicyFile: string | undefined;
  termsOfServiceFile: string | undefined;
  contactEmail: string | undefined;
}

/** The operator's file, or a start-up error naming the variable (never a page that 500s later). */
async function readOperatorPage(file: string | undefined, variable: string): Promise<SafeHtml | undefined> {
  if (!file) return undefined;
  try {
    // The operator's own words, trusted as HTML like the rest of their deployment.
    return new SafeHtml(await readFile(file, "utf8"));
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration:\n  ${variable}: cannot read ${file} (${(error as Error).message})`,
    );
  }
}

/**
 * The privacy policy and terms of this node, public pages that connector directories, OAuth
 * clients (`op_policy_uri`, `op_tos_uri`) and the console's footer link to: the operator's
 * files when set, else the default text, in the visitor's language (Accept-Language).
 */
const legalRoutes: FastifyPluginAsync<LegalPagesOptions> = async (app, options) => {
  await compressAnswers(app);
  const privacy = await readOperatorPage(options.privacyPolicyFile, "PRIVACY_POLICY_FILE");
  const terms = await readOperatorPage(options.termsOfServiceFile, "TERMS_OF_SERVICE_FILE");
  const page =
    (key: "privacyPolicy" | "termsOfService", body: (language: Language) => SafeHtml) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const t = translator(languageFromHeader(request.headers["accept-language"]));
      return reply.headers(PAGE_HEADERS).send(layout({ t, csrf: "" }, t.t(key), body(t.language)));
    };
  app.get(
    PRIVACY_PATH,
    { schema: { hide: true } },
    page("privacyPolicy", (language) => privacy ?? defaultPrivacyPolicy(language, options.contactEmail)),
  );
  app.get(
    TERMS_PATH,
    { schema: { hide: true } },
    page("termsOfService", (language) => terms ?? defaultTermsOfService(language, options.contactEmail)),
  );
};

export default legalRoutes;
