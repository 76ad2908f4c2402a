/**
 * Chooses the drafter: the LLM one when an OpenAI-compatible server is configured, else the
 * built-in templates (DESIGN.md: OPENAI_API_KEY / OPENAI_MODEL unset means the template drafter).
 * Configuration is passed in; this module reads no environment.
 */
import type { DraftGenerator } from "./generator.ts";
import { createLlmGenerator } from "./llm-generator.ts";
import { createTemplateGenerator } from "./template-generator.ts";

export interface DraftGeneratorConfig {
  openai?: { apiKey: string; baseURL?: string; model: string; timeoutMs?: number };
  logger?: { warn(obj: object, msg: string): void };
}

export function createDraftGenerator(config: DraftGeneratorConfig): DraftGenerator {
  const openai = config.openai;
  if (openai !== undefined && openai.apiKey.trim() !== "" && openai.model.trim() !== "") {
    return createLlmGenerator({
      ...openai,
      ...(config.logger === undefined ? {} : { logger: config.logger }),
    });
  }
  return createTemplateGenerator();
}

export type { FactInput, FactKey, NoFactsExplanation, NoFactsReason, VerifiedFact } from "./facts.ts";
export { collectVerifiedFacts, explainNoFacts, FACT_KEYS_IN_ORDER, selectFacts } from "./facts.ts";
export type { Draft, DraftGenerator, DraftLocale, DraftRequest, DraftSender } from "./generator.ts";
