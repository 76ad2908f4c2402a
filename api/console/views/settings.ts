import type { Workspace } from "../../../shared/db/schema.ts";
import { WORKSPACE_TEXT_SETTING_MAX_LENGTHS } from "../../../shared/workspaces/workspaces.ts";
import { html } from "../html.ts";
import { csrfField, layout, notice, type PageContext } from "../layout.ts";
import { workspacePath } from "../paths.ts";
import { field, languageOptions } from "./components.ts";

export function settingsPage(
  context: PageContext,
  input: { workspace: Workspace; info?: string; error?: string },
): string {
  const { t } = context;
  const { workspace } = input;
  const maxLength = WORKSPACE_TEXT_SETTING_MAX_LENGTHS;
  return layout(
    { ...context, tab: "settings" },
    t.t("settings"),
    html`${notice("ok", input.info)}${notice("error", input.error)}
<div class="card"><form class="stack" method="post" action="${workspacePath(workspace.id, "settings")}">${csrfField(context)}
${field("language", t.t("language"), html`<select id="language" name="language" aria-describedby="language-hint">${languageOptions(t, workspace.language)}</select>`, t.t("languageHelp"))}
${field("sender-name", t.t("senderName"), html`<input type="text" id="sender-name" name="sender_name" maxlength="${maxLength.sender_name}" value="${workspace.sender_name ?? ""}">`)}
${field("sender-company", t.t("senderCompany"), html`<input type="text" id="sender-company" name="sender_company" maxlength="${maxLength.sender_company}" value="${workspace.sender_company ?? ""}">`)}
${field("offer-en", t.t("offerEn"), html`<textarea id="offer-en" name="offer_en" lang="en" maxlength="${maxLength.offer_en}" aria-describedby="offer-en-hint">${workspace.offer_en ?? ""}</textarea>`, t.t("offerEnHelp"))}
${field("offer-fr", t.t("offerFr"), html`<textarea id="offer-fr" name="offer_fr" lang="fr" maxlength="${maxLength.offer_fr}" aria-describedby="offer-fr-hint">${workspace.offer_fr ?? ""}</textarea>`, t.t("offerFrHelp"))}
${field("postal-address", t.t("postalAddress"), html`<textarea id="postal-address" name="postal_address" maxlength="${maxLength.postal_address}" rows="3" aria-describedby="postal-address-hint">${workspace.postal_address ?? ""}</textarea>`, t.t("postalAddressHelp"))}
<div><button type="submit" class="primary">${t.t("save")}</button></div></form></div>`,
  );
}
