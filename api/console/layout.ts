import { PRIVACY_PATH, TERMS_PATH } from "../../shared/legal-pages.ts";
import { FAVICON_PATH, SCRIPT_PATH, STYLESHEET_PATH } from "./assets.ts";
import { html, type SafeHtml } from "./html.ts";
import type { MessageKey, Translator } from "./i18n.ts";
import { CONSOLE_PREFIX, workspacePath } from "./paths.ts";

type Tab = "overview" | "search" | "keys" | "members" | "settings" | "leads" | "suppressions" | "credits";

const TABS: { tab: Tab; page: string; label: MessageKey }[] = [
  { tab: "overview", page: "", label: "overview" },
  { tab: "search", page: "search", label: "search" },
  { tab: "leads", page: "leads", label: "leads" },
  { tab: "suppressions", page: "suppressions", label: "suppressions" },
  { tab: "keys", page: "keys", label: "keys" },
  { tab: "members", page: "members", label: "members" },
  { tab: "credits", page: "credits", label: "credits" },
  { tab: "settings", page: "settings", label: "settings" },
];

/** What every page knows about who is looking. */
export interface PageContext {
  t: Translator;
  /** The CSRF token of this browser's forms. */
  csrf: string;
  account?: { name: string; email: string };
  workspace?: { id: string; name: string };
  /** More than one workspace: the header offers the switcher. */
  canSwitch?: boolean;
  tab?: Tab;
}

export const csrfField = (context: PageContext) =>
  html`<input type="hidden" name="csrf_token" value="${context.csrf}">`;

export function notice(kind: "ok" | "error", text: string | undefined): SafeHtml {
  if (!text) return html``;
  return kind === "error"
    ? html`<div class="alert error" role="alert">${text}</div>`
    : html`<div class="alert ok" role="status">${text}</div>`;
}

export function layout(
  context: PageContext,
  title: string,
  body: SafeHtml,
  options: { narrow?: boolean; script?: boolean } = {},
): string {
  const { t, account, workspace } = context;
  const header = account
    ? html`<header class="top"><div class="bar">
        <a class="brand" href="${CONSOLE_PREFIX}">${t.t("appName")}</a>
        ${workspace ? html`<span class="workspace">${workspace.name}${context.canSwitch ? html` · <a href="${CONSOLE_PREFIX}/workspaces">${t.t("switchWorkspace")}</a>` : ""}</span>` : ""}
        <span><a href="${CONSOLE_PREFIX}/account">${account.name}</a>
        <form method="post" action="${CONSOLE_PREFIX}/sign-out" class="inline-form">${csrfField(context)}
          <button type="submit" class="link">${t.t("signOut")}</button></form></span>
      </div>
      ${
        workspace
          ? html`<nav class="tabs" aria-label="${t.t("appName")}">${TABS.map(
              ({ tab, page, label }) =>
                html`<a href="${workspacePath(workspace.id, page)}"${context.tab === tab ? html` aria-current="page"` : ""}>${t.t(label)}</a>`,
            )}</nav>`
          : ""
      }</header>`
    : html`<header class="top"><div class="bar"><span class="brand">${t.t("appName")}</span></div></header>`;
  return html`<!doctype html>
<html lang="${t.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="description" content="${t.t("metaDescription")}">
<title>${title} · ${t.t("appName")}</title>
<link rel="icon" href="${FAVICON_PATH}">
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${options.script === false ? "" : html`<script src="${SCRIPT_PATH}" defer></script>`}
</head>
<body>
<a class="skip" href="#content">${t.t("skip")}</a>
${header}
<main id="content"${options.narrow ? html` class="narrow"` : ""}>
<h1>${title}</h1>
${body}
</main>
<footer class="foot"><a href="${PRIVACY_PATH}">${t.t("privacyPolicy")}</a> · <a href="${TERMS_PATH}">${t.t("termsOfService")}</a></footer>
</body>
</html>`.value;
}

/** Headers of every console page: no framing, our own assets only, forms posting only here. */
export const PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};
