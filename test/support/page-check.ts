import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { seriousViolations } from "./axe.ts";

const SCREENSHOTS = fileURLToPath(new URL("../../docs/console/", import.meta.url));

/** The docs' screenshots are rewritten with UPDATE_SCREENSHOTS=1 (like docs/oauth-authorize.png). */
async function screenshot(target: Page, file: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    await target.screenshot({ path: `${SCREENSHOTS}${file}`, fullPage: true });
  }
  expect(existsSync(`${SCREENSHOTS}${file}`), `${file}: run with UPDATE_SCREENSHOTS=1`).toBe(true);
}

/**
 * Checks a console page as it is now: axe-core (no serious or critical violation) at desktop and
 * 375 px widths, no sideways scrolling at 375 px, and its two screenshots in docs/console/.
 */
export async function checkConsolePage(target: Page, name: string): Promise<void> {
  expect(await seriousViolations(target), `axe on ${name}`).toEqual([]);
  await screenshot(target, `${name}-desktop.png`);
  await target.setViewportSize({ width: 375, height: 812 });
  expect(await seriousViolations(target), `axe on ${name} at 375 px`).toEqual([]);
  const overflow = Number(await target.evaluate("document.documentElement.scrollWidth"));
  expect(overflow, `${name} scrolls sideways at 375 px`).toBeLessThanOrEqual(375);
  await screenshot(target, `${name}-375.png`);
  await target.setViewportSize({ width: 1280, height: 800 });
}
