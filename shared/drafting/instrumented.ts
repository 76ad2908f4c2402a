import { type LlmCallMetrics, secondsSince } from "../metrics.ts";
import type { Draft, DraftGenerator, DraftRequest } from "./generator.ts";

/** Times the LLM drafter's calls; the template drafter calls nothing and is returned as is. */
export function instrumentDraftGenerator(generator: DraftGenerator, metrics: LlmCallMetrics): DraftGenerator {
  if (generator.name !== "llm") return generator;
  return {
    name: generator.name,
    maxDurationMs: generator.maxDurationMs,
    async generate(request: DraftRequest): Promise<Draft> {
      const started = performance.now();
      try {
        const draft = await generator.generate(request);
        metrics.llmCallFinished("ok", secondsSince(started));
        return draft;
      } catch (error) {
        metrics.llmCallFinished("error", secondsSince(started));
        throw error;
      }
    },
  };
}
