import type { Language } from "../../shared/languages.ts";
import { html, type SafeHtml } from "../console/html.ts";

/**
 * The privacy policy and terms a node serves until its operator sets their own
 * (PRIVACY_POLICY_FILE, TERMS_OF_SERVICE_FILE): what this software really stores and sends, in
 * the visitor's language. The operator's contact appears when OPERATOR_CONTACT_EMAIL is set.
 */
export function defaultPrivacyPolicy(language: Language, contactEmail: string | undefined): SafeHtml {
  const contact = contactEmail ? html`<a href="mailto:${contactEmail}">${contactEmail}</a>` : undefined;
  if (language === "fr") {
    return html`<p>Cette page dit quelles données ce service garde, pourquoi, et à qui il en transmet.</p>
<h2>Ce qui est gardé</h2>
<ul>
<li>Comptes&nbsp;: nom, adresse courriel, mot de passe (haché avec scrypt, jamais en clair), langue choisie&nbsp;; sessions de la console (seule l’empreinte du jeton du témoin est gardée).</li>
<li>Espaces de travail&nbsp;: membres, réglages (expéditeur, entreprise, offre, adresse postale), clés d’API (seule leur empreinte est gardée), historique des crédits.</li>
<li>Pistes&nbsp;: données publiques d’entreprises reçues du fournisseur de lieux (nom, catégorie, adresse, site web, téléphone, note), vérifications de la page d’accueil publique de leur site, brouillons de courriels rédigés, liste de personnes à ne pas contacter.</li>
<li>Connexions d’assistants (OAuth)&nbsp;: les applications que vous approuvez et leurs jetons (seule leur empreinte est gardée). Avec les portées <code>email</code> et <code>profile</code>, l’application reçoit votre adresse courriel et votre nom.</li>
<li>Journaux techniques&nbsp;: identifiant de requête, route, statut, durée. Les clés, jetons, témoins et mots de passe n’y figurent jamais.</li>
</ul>
<h2>À qui des données sont transmises</h2>
<ul>
<li>Le fournisseur de lieux reçoit les recherches (lieu et catégorie).</li>
<li>Quand la rédaction passe par un modèle de langue, il reçoit les faits vérifiés de la piste et les réglages d’expéditeur de l’espace de travail.</li>
<li>Rien n’est vendu ni utilisé pour de la publicité. Le seul témoin est celui de la session de la console.</li>
</ul>
<h2>Conservation et vos droits</h2>
<p>Les données sont gardées tant que l’espace de travail existe. Pour consulter, corriger ou effacer vos données, écrivez à l’exploitant du service${contact ? html`&nbsp;: ${contact}` : ""}.</p>`;
  }
  return html`<p>This page says what data this service keeps, why, and who it passes any of it to.</p>
<h2>What is kept</h2>
<ul>
<li>Accounts: name, email address, password (hashed with scrypt, never in clear), chosen language; console sessions (only a hash of the cookie's token is kept).</li>
<li>Workspaces: members, settings (sender, company, offer, postal address), API keys (only their hash is kept), credit history.</li>
<li>Leads: public business data from the places provider (name, category, address, website, phone, rating), checks of the public homepage of their website, the outreach drafts written, and the do-not-contact list.</li>
<li>Assistant connections (OAuth): the applications you approve and their tokens (only their hash is kept). With the <code>email</code> and <code>profile</code> scopes, the application receives your email address and name.</li>
<li>Technical logs: request id, route, status, duration. Keys, tokens, cookies and passwords never appear in them.</li>
</ul>
<h2>Who receives data</h2>
<ul>
<li>The places provider receives searches (location and category).</li>
<li>When drafting uses a language model, the model receives the lead's verified facts and the workspace's sender settings.</li>
<li>Nothing is sold or used for advertising. The only cookie is the console's session cookie.</li>
</ul>
<h2>Retention and your rights</h2>
<p>Data is kept as long as the workspace exists. To see, correct or delete your data, write to the operator of this service${contact ? html`: ${contact}` : ""}.</p>`;
}

export function defaultTermsOfService(language: Language, contactEmail: string | undefined): SafeHtml {
  const contact = contactEmail ? html`<a href="mailto:${contactEmail}">${contactEmail}</a>` : undefined;
  if (language === "fr") {
    return html`<p>En utilisant ce service (la console, l’API ou un assistant connecté), vous acceptez ces conditions.</p>
<h2>Le service</h2>
<ul>
<li>Il trouve des entreprises locales, garde une liste de pistes et rédige des brouillons de courriels. Il n’envoie jamais de courriel&nbsp;: c’est vous qui envoyez, ou non.</li>
<li>Les données viennent de tiers (fournisseur de lieux, sites des entreprises) et peuvent être inexactes ou périmées. Relisez chaque brouillon avant de l’envoyer.</li>
</ul>
<h2>Vos obligations</h2>
<ul>
<li>Vous respectez les lois sur les messages commerciaux qui s’appliquent à vous (par exemple la LCAP au Canada, CAN-SPAM aux États-Unis, le RGPD en Europe)&nbsp;: identification de l’expéditeur, adresse postale, désabonnement honoré, liste de personnes à ne pas contacter tenue à jour.</li>
<li>Les clés d’API sont des secrets côté serveur&nbsp;: ne les publiez pas et ne les mettez pas dans du code de navigateur.</li>
<li>Pas d’usage abusif&nbsp;: les limites de débit et de coût s’appliquent&nbsp;; l’exploitant peut suspendre un compte qui abuse du service.</li>
</ul>
<h2>Crédits</h2>
<p>Une recherche coûte au plus 1 crédit par nouvelle entreprise retournée, un brouillon 1 crédit&nbsp;; rien n’est facturé deux fois. Les crédits achetés ne sont remboursés que selon ce que l’exploitant accepte.</p>
<h2>Garantie</h2>
<p>Le service est fourni tel quel, sans garantie de disponibilité ni de résultat. Questions&nbsp;: l’exploitant du service${contact ? html`, ${contact}` : ""}.</p>`;
  }
  return html`<p>By using this service (the console, the API or a connected assistant) you accept these terms.</p>
<h2>The service</h2>
<ul>
<li>It finds local businesses, keeps a list of leads and drafts outreach emails. It never sends email: you send, or not.</li>
<li>Its data comes from third parties (the places provider, the businesses' websites) and may be wrong or out of date. Read every draft before you send it.</li>
</ul>
<h2>Your obligations</h2>
<ul>
<li>You follow the commercial-message laws that apply to you (for example CASL in Canada, CAN-SPAM in the United States, the GDPR in Europe): sender identification, a postal address, honoured opt-outs, a do-not-contact list kept up to date.</li>
<li>API keys are server-side secrets: never publish them or put them in browser code.</li>
<li>No abuse: rate and cost limits apply, and the operator may suspend an account that abuses the service.</li>
</ul>
<h2>Credits</h2>
<p>A search costs at most 1 credit per new business returned, a draft 1 credit; nothing is charged twice. Bought credits are refunded only as the operator agrees.</p>
<h2>Warranty</h2>
<p>The service is provided as is, with no warranty of availability or results. Questions: the operator of this service${contact ? html`, ${contact}` : ""}.</p>`;
}
