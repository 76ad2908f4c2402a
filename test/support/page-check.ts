import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { en } from "../../api/console/messages/en.ts";
import { fr } from "../../api/console/messages/fr.ts";
import { adminRequest } from "./app.ts";
import { seriousViolations } from "./axe.ts";
import { PASSWORD } from "./console.ts";
import type { HttpTestApp } from "./oauth.ts";

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

/** The English sentences of the catalog that French says otherwise (their fixed parts, placeholders cut out). */
export const ENGLISH_ONLY = Object.entries(en).flatMap(([key, text]) =>
  fr[key as keyof typeof fr] === text
    ? []
    : text.split(/\{\w+\}/).filter((fragment) => fragment.trim().length >= 14),
);

/** The operator invites `email` to the workspace; the browser opens the link and joins with a name. */
export async function joinByInvite(
  page: Page,
  t: HttpTestApp,
  workspaceId: string,
  member: { email: string; name: string },
): Promise<void> {
  const invite = await adminRequest(t.app, "POST", `/admin/workspaces/${workspaceId}/invites`, {
    email: member.email,
  });
  await page.goto(invite.json().url);
  await page.getByLabel("Your name").fill(member.name);
  await page.getByLabel(/New password/).fill(PASSWORD);
  await page.getByRole("button", { name: "Join" }).click();
  await page.waitForURL(`${t.baseUrl}/app/w/${workspaceId}`);
}
