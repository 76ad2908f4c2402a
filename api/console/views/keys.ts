import type { Spending } from "../../../shared/credits/caps.ts";
import type { ApiKeyListing } from "../../../shared/workspaces/api-keys.ts";
import type { KeyTyped } from "../forms.ts";
import { html, type Interpolation } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";
import { capInputs, type FieldErrors, inputWithError, spentAgainst } from "./caps.ts";

/** A key as the page lists it: with what it spent today (UTC) and in all. */
export type KeyRow = ApiKeyListing & Spending;

const EMPTY_KEY_FORM: KeyTyped = { name: "", daily_credit_cap: "", total_credit_cap: "" };

export function keysPage(
  context: PageContext,
  input: {
    workspaceId: string;
    keys: KeyRow[];
    info?: string;
    error?: string;
    created?: { name: string; key: string };
    /** A refused new key: what was typed, and the error beside each field. */
    typed?: KeyTyped;
    errors?: FieldErrors;
  },
): string {
  const { t } = context;
  const cell = (label: string, content: Interpolation) => html`<td data-label="${label}">${content}</td>`;
  const rows = input.keys.map(
    (key) => html`<tr>
${cell(t.t("keyName"), key.name)}
${cell(t.t("keyPrefix"), html`<code>${key.key_prefix}…</code>`)}
${cell(t.t("createdBy"), key.created_by_name ?? key.created_by_email)}
${cell(t.t("createdAt"), t.date(key.created_at))}
${cell(t.t("lastUsed"), t.date(key.last_used_at))}
${cell(t.t("spentToday"), spentAgainst(t, key.spent_today, key.daily_credit_cap))}
${cell(t.t("spentTotal"), spentAgainst(t, key.spent_total, key.total_credit_cap))}
${cell(t.t("revoked"), key.revoked_at ? t.date(key.revoked_at) : html`<span class="muted">${t.t("active")}</span>`)}
<td>${key.revoked_at ? "" : html`<a href="${workspacePath(input.workspaceId, `keys/${key.id}/caps`)}">${t.t("setCaps")}<span class="visually-hidden"> ${key.name} (${key.key_prefix}…)</span></a><br><a href="${workspacePath(input.workspaceId, `keys/${key.id}/revoke`)}">${t.t("revoke")}<span class="visually-hidden"> ${key.name} (${key.key_prefix}…)</span></a>`}</td>
</tr>`,
  );
  const typed = input.typed ?? EMPTY_KEY_FORM;
  const errors = input.errors ?? {};
  const refused = Object.keys(errors).length > 0;
  return layout(
    { ...context, tab: "keys" },
    t.t("keys"),
    html`${notice("ok", input.info)}${notice("error", input.error ?? (refused ? t.t("formHasErrors") : undefined))}
${
  input.created
    ? html`<section class="card" aria-labelledby="new-key"><h2 id="new-key">${t.t("keyCreated")}${t.colon} ${input.created.name}</h2>
<p>${t.t("keyShownOnce")}</p>
<div class="secret"><code id="new-key-value">${input.created.key}</code><button type="button" data-copy="new-key-value" data-copied="${t.t("copied")}">${t.t("copy")}</button></div></section>`
    : ""
}
<div class="card"><form class="new-key" method="post" action="${workspacePath(input.workspaceId, "keys")}" novalidate>${csrfField(context)}
${inputWithError(t, {
  id: "key-name",
  name: "name",
  label: t.t("keyName"),
  value: typed.name,
  ...(errors.name ? { error: errors.name } : {}),
  attributes: html` required maxlength="200"`,
})}
${capInputs(t, typed, errors, "key")}
<div><button type="submit" class="primary">${t.t("createKey")}</button></div></form></div>
${
  input.keys.length === 0
    ? html`<p class="card empty">${t.t("noKeys")}</p>`
    : html`<div class="table-wrap"><table class="rows"><thead><tr><th scope="col">${t.t("keyName")}</th><th scope="col">${t.t("keyPrefix")}</th><th scope="col">${t.t("createdBy")}</th><th scope="col">${t.t("createdAt")}</th><th scope="col">${t.t("lastUsed")}</th><th scope="col">${t.t("spentToday")}</th><th scope="col">${t.t("spentTotal")}</th><th scope="col">${t.t("revoked")}</th><th scope="col"><span class="visually-hidden">${t.t("revoke")}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
}`,
  );
}
