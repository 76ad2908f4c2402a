import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";

const AXE_SOURCE = await readFile(fileURLToPath(import.meta.resolve("axe-core/axe.min.js")), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. The source is evaluated
 * through the DevTools protocol, so the page's Content-Security-Policy stays in force.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  // A string, evaluated in the page: axe is the global its source defined there.
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ["violations"] }).then((results) => results.violations)`,
  )) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
    );
}
