import { createHash } from "node:crypto";
import { escapeHtml } from "../../shared/html-escape.ts";

/**
 * The server-rendered pages of the authorization endpoint. No script at all; the one style sheet
 * is inline and allowed by its hash in the Content-Security-Policy, so nothing else can run.
 */

const STYLE = `
:root { color-scheme: light; --ink: #1d2433; --muted: #5b6474; --line: #d9dee7; --accent: #1f5eff; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f3f5f9; }
main { max-width: 34rem; margin: 3rem auto; padding: 2rem; background: #fff; border: 1px solid var(--line); border-radius: 12px; }
h1 { font-size: 1.35rem; margin: 0 0 1rem; }
p, ul { margin: 0 0 1rem; }
ul { padding-left: 1.25rem; }
.client { font-weight: 600; }
.muted { color: var(--muted); font-size: 0.9rem; }
.box { border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; margin-bottom: 1rem; background: #fafbfd; }
.box p:last-child { margin-bottom: 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em; }
label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
fieldset { border: 1px solid var(--line); border-radius: 8px; padding: 0.5rem 1rem 0.75rem; margin: 0 0 1rem; }
legend { font-weight: 600; padding: 0 0.25rem; }
label.choice { font-weight: 400; display: flex; gap: 0.5rem; align-items: center; padding: 0.25rem 0; }
.alert { color: #9b1c1c; background: #fdecec; border: 1px solid #f5c2c2; border-radius: 6px; padding: 0.5rem 0.75rem; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.25rem; }
button { font: inherit; padding: 0.6rem 1.4rem; border-radius: 6px; border: 1px solid var(--line); background: #fff; cursor: pointer; }
button.approve { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; }
`;

const STYLE_HASH = `sha256-${createHash("sha256").update(STYLE).digest("base64")}`;

/** Names of the consent form's fields, shared with the route that reads them. */
export const CONSENT_FORM = {
  requestId: "request_id",
  csrfToken: "csrf_token",
  workspace: "workspace_id",
  decision: "decision",
} as const;

const SCOPE_MEANINGS: Record<string, string> = {
  email: "your email address",
  profile: "your name",
};

/**
 * Headers of every page of the authorization endpoint: no framing (clickjacking), nothing but
 * the hashed style, forms posting only here (and, since a browser checks form-action against
 * the redirect that follows a submission, to the client's redirect URI).
 */
export function pageSecurityHeaders(redirectOrigin?: string): Record<string, string> {
  const formAction = ["'self'", ...(redirectOrigin ? [redirectOrigin] : [])].join(" ");
  return {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "x-frame-options": "DENY",
    "content-security-policy": [
      "default-src 'none'",
      `style-src '${STYLE_HASH}'`,
      `form-action ${formAction}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  };
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface ConsentPageInput {
  clientName: string;
  redirectUri: string;
  scopes: readonly string[];
  requestId: string;
  csrfToken: string;
  /** The signed-in person who decides, and the workspaces they may connect. */
  account: { name: string; email: string };
  workspaces: readonly { id: string; name: string }[];
  /** Shown above the form after a refused choice. */
  error?: string;
}

export function renderConsentPage(input: ConsentPageInput): string {
  const client = escapeHtml(input.clientName);
  const redirectHost = escapeHtml(new URL(input.redirectUri).host);
  const scopes = input.scopes
    .map(
      (scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(SCOPE_MEANINGS[scope] ?? scope)}</li>`,
    )
    .join("");
  const error = input.error ? `<p class="alert" role="alert">${escapeHtml(input.error)}</p>` : "";
  return layout(
    `Connect ${input.clientName}`,
    `<h1>Connect <span class="client">${client}</span> to a workspace</h1>
<div class="box">
<p><span class="client">${client}</span> asks for access to one workspace of the Lead Discovery API.
After your answer you go back to <strong>${redirectHost}</strong>.</p>
<p class="muted">The client chose its own name. Approve only if you started this from an app you trust and that address belongs to it.</p>
</div>
<p>If you approve, it can:</p>
<ul>
<li>list and read the workspace's saved leads and its credit balance;</li>
<li>run searches and draft outreach emails, which <strong>spend the workspace's credits</strong>.</li>
</ul>
<p>Scopes requested <span class="muted">(your name and email are given to the app only for the scopes below)</span>:</p>
<ul>${scopes}</ul>
${error}
<form method="post" action="authorize">
<input type="hidden" name="${CONSENT_FORM.requestId}" value="${escapeHtml(input.requestId)}">
<input type="hidden" name="${CONSENT_FORM.csrfToken}" value="${escapeHtml(input.csrfToken)}">
<p>Signed in as <strong>${escapeHtml(input.account.name)}</strong> <span class="muted">(${escapeHtml(input.account.email)})</span>.</p>
<fieldset>
<legend>Workspace to connect</legend>
${input.workspaces
  .map(
    (workspace, index) =>
      `<label class="choice"><input type="radio" name="${CONSENT_FORM.workspace}" value="${escapeHtml(workspace.id)}"${index === 0 ? " checked" : ""} required> ${escapeHtml(workspace.name)}</label>`,
  )
  .join("\n")}
</fieldset>
<p class="muted">Access lasts until the app disconnects or you leave that workspace.</p>
<div class="actions">
<button class="approve" type="submit" name="${CONSENT_FORM.decision}" value="approve">Approve</button>
<button type="submit" name="${CONSENT_FORM.decision}" value="deny" formnovalidate>Deny</button>
</div>
</form>`,
  );
}

export function renderErrorPage(title: string, message: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p class="alert" role="alert">${escapeHtml(message)}</p>
<p class="muted">Go back to the app you were connecting and start again.</p>`,
  );
}
