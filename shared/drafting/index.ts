/**
 * Chooses the drafter: the LLM one when an OpenAI-compatible server is configured (a model, and an
 * API key or a base URL: local servers often need no key), else the built-in templates (DESIGN.md:
 * OPENAI_* unset means the template drafter). Configuration is passed in; this module reads no
 * environment.
 */
import type { DraftGenerator } from "./generator.ts";
import { createLlmGenerator } from "./llm-generator.ts";
import { createTemplateGenerator } from "./template-generator.ts";

export interface DraftGeneratorConfig {
  openai?: { apiKey?: string | undefined; baseURL?: string | undefined; model: string; timeoutMs?: number };
  logger?: { warn(obj: object, msg: string): void; info?(obj: object, msg: string): void };
}

export function createDraftGenerator(config: DraftGeneratorConfig): DraftGenerator {
  const openai = config.openai;
  const hasKeyOrServer = (openai?.apiKey ?? "").trim() !== "" || (openai?.baseURL ?? "").trim() !== "";
  if (openai !== undefined && openai.model.trim() !== "" && hasKeyOrServer) {
    return createLlmGenerator({
      ...openai,
      ...(config.logger === undefined ? {} : { logger: config.logger }),
    });
  }
  return createTemplateGenerator();
}

export type { DraftGenerator } from "./generator.ts";
