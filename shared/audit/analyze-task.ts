import { decodeHtml } from "./decode.ts";
import { analyzeHomepage } from "./signals.ts";
import type { AnalyzeInput, AnalyzeOutput } from "./types.ts";

/**
 * The piscina task: decodes one response body with its declared charset and computes its audit
 * signals. Runs in a worker thread loaded by plain Node (type stripping), so this file and its
 * imports use only erasable TypeScript.
 */
export default function analyzeTask(input: AnalyzeInput): AnalyzeOutput {
  const html = decodeHtml(input.body, input.contentType);
  return analyzeHomepage({
    html,
    url: input.url,
    country: input.country,
    now: new Date(input.now),
    findContactEmail: input.findContactEmail,
    findParkedDomain: input.findParkedDomain,
    auditPrecision: input.auditPrecision,
  });
}
