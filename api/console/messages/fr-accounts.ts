import type { enAccounts } from "./en-accounts.ts";

/** The consent page, accounts and account mail, lawful outreach: French, every key of the English part. */
export const frAccounts: Record<keyof typeof enAccounts, string> = {
  consentTitle: "Connecter {client}",
  consentHeading: "Connecter {client} à un espace de travail",
  consentAsks:
    "{client} demande l'accès à un espace de travail de l'API de prospection. Après votre réponse, vous revenez sur {host}.",
  consentNameWarning:
    "Le client a choisi son propre nom. N'approuvez que si vous avez lancé cette connexion depuis une application de confiance et que cette adresse lui appartient.",
  consentIfApprove: "Si vous approuvez, elle pourra\u00a0:",
  consentCanRead: "lister et lire les prospects enregistrés de l'espace et son solde de crédits\u00a0;",
  consentCanSpend:
    "lancer des recherches et rédiger des courriels de prospection, qui dépensent les crédits de l'espace.",
  consentScopes:
    "Autorisations demandées (votre nom et votre courriel ne sont transmis à l'application que pour celles-ci)\u00a0:",
  scopeEmail: "votre adresse courriel",
  scopeProfile: "votre nom",
  signedInAs: "Connecté·e en tant que {name} ({email}).",
  workspaceToConnect: "Espace de travail à connecter",
  consentLasts: "L'accès dure jusqu'à ce que l'application se déconnecte ou que vous quittiez cet espace.",
  approve: "Approuver",
  deny: "Refuser",
  consentGoBack: "Revenez à l'application que vous connectiez et recommencez.",
  oauthCannotAnswer: "Cette demande ne peut pas aboutir",
  oauthNoWorkspace: "Aucun espace à connecter",
  oauthNoWorkspaceMessage:
    "Vous n'êtes membre d'aucun espace de travail. Demandez un lien d'invitation à un membre de votre agence.",
  oauthExpired: "Cette demande a expiré",
  oauthExpiredMessage: "Cette demande d'autorisation est inconnue, expirée ou a déjà reçu une réponse.",
  oauthNotVerified: "Le formulaire n'a pas pu être vérifié",
  oauthNotVerifiedMessage:
    "Le formulaire ne vient pas de la page chargée par ce navigateur (échec du contrôle CSRF). Rien n'a été approuvé.",
  oauthSignedOut: "Vous êtes déconnecté·e",
  oauthSignedOutMessage: "Reconnectez-vous et relancez la connexion depuis l'application.",
  oauthNoDecision: "Aucune décision",
  oauthNoDecisionMessage: "Choisissez Approuver ou Refuser.",
  oauthNotThatMember: "Vous n'êtes pas membre de cet espace. Choisissez l'un des vôtres.",
  nothingVerified:
    "Rien de vérifié à écrire sur cette entreprise pour l'instant\u00a0: pas de brouillon, rien de facturé. Cherchez-la avec un filtre qui vérifie son site.",
  generationFailed:
    "Le brouillon n'a pas pu être rédigé cette fois\u00a0: rien n'a été facturé. Réessayez dans un instant.",
  draftRefusedContact:
    "Cette entreprise est sur la liste «\u00a0Ne pas contacter\u00a0»\u00a0: pas de brouillon, rien de facturé.",
  draftRefusedByMember:
    "{who}, de votre agence, a mis cette entreprise sur la liste «\u00a0Ne pas contacter\u00a0» le {date}\u00a0: pas de brouillon, rien de facturé.",
  draftRefusedByOperator:
    "L'opérateur du service a mis cette entreprise sur la liste «\u00a0Ne pas contacter\u00a0» le {date}\u00a0: pas de brouillon, rien de facturé.",
  suppressionReasonGiven: "Motif indiqué\u00a0: {reason}",
  endNoSuchDomain: "domaine inexistant",
  endConnectionRefused: "connexion refusée",
  endOk: "répond",
  endHttpStatus: "erreur HTTP {status}",
  endRedirectsTo: "renvoie vers {url}",
  endDnsFailed: "échec de la résolution du nom",
  endConnectionFailed: "échec de la connexion",
  endTlsFailed: "échec de la connexion sécurisée",
  endTimeout: "pas de réponse à temps",
  certExpired: "expiré",
  certWrongHost: "fait pour un autre nom",
  certSelfSigned: "auto-signé",
  certUntrusted: "non reconnu",
  parkingService: "service de parking {service}",
  parkingHeadline: "titre\u00a0: {wording}",
  parkingText: "texte de la page\u00a0: {wording}",
  yes: "oui",
  no: "non",
  forgotPassword: "Mot de passe oublié\u00a0?",
  createAccount: "Créer un compte",
  tooManyPasswordChecks:
    "Trop de mots de passe incorrects depuis cette adresse. Attendez {minutes} minutes et réessayez.",
  inviteNewAccount:
    "Nouveau ou nouvelle\u00a0? Choisissez votre nom et un mot de passe pour créer votre compte et rejoindre l'espace.",
  inviteHaveAccount: "Vous avez déjà un compte avec cette adresse\u00a0? Connectez-vous, puis acceptez.",
  signInToAccept: "Se connecter pour accepter",
  createAndJoin: "Créer mon compte et rejoindre",
  inviteAccountExists:
    "Cette adresse a déjà un compte\u00a0: connectez-vous avec lui pour accepter l'invitation.",
  inviteSignedInAs: "Vous êtes connecté·e en tant que {email}.",
  inviteWrongAccount:
    "Cette invitation est pour {email}, et vous êtes connecté·e en tant que {current}. Déconnectez-vous, puis connectez-vous en tant que {email} pour accepter.",
  inviteMailed: "Invitation envoyée à {email}. Le lien du courriel fonctionne une fois, pendant 7 jours.",
  pendingInvites: "Invitations en attente",
  noPendingInvites: "Aucune invitation en attente.",
  invitedBy: "Invité·e par",
  expires: "Expire le",
  cancelInvite: "Annuler l'invitation",
  cancelInviteConfirm: "Annuler cette invitation\u00a0? Son lien cesse de fonctionner immédiatement.",
  inviteCancelled: "L'invitation a été annulée\u00a0: son lien ne fonctionne plus.",
  operator: "l'opérateur",
  mailNotSent:
    "Le courriel n'a pas pu être envoyé. Rien n'a été créé\u00a0; réessayez dans un instant, ou prévenez l'opérateur du service si cela continue.",
  tooManyMails: "Trop de demandes depuis cette adresse. Attendez {minutes} minutes et réessayez.",
  tooManyInvites:
    "Trop d'invitations envoyées dans la dernière heure (par vous, ou depuis cet espace de travail). Attendez {minutes} minutes et réessayez.",
  forgotTitle: "Réinitialiser votre mot de passe",
  forgotIntro:
    "Saisissez l'adresse de votre compte\u00a0: un lien pour choisir un nouveau mot de passe y est envoyé (il fonctionne une fois, pendant 1 heure).",
  sendResetLink: "Envoyer le lien",
  resetSent:
    "Si un compte a cette adresse, un lien pour choisir un nouveau mot de passe est en route. Consultez votre boîte de réception.",
  resetNoMail:
    "Ce service n'envoie pas de courriel. Demandez un lien de réinitialisation à l'opérateur du service\u00a0: il peut en créer un pour votre adresse.",
  resetInvalid: "Ce lien de réinitialisation est inconnu, déjà utilisé ou expiré. Demandez-en un nouveau.",
  chooseNewPassword: "Choisir un nouveau mot de passe",
  resetFor:
    "Nouveau mot de passe pour {email}. Toutes les sessions sont déconnectées et toutes les applications connectées déconnectées.",
  passwordReset:
    "Votre mot de passe a été changé. Vos autres sessions ont été déconnectées, ainsi que vos applications connectées.",
  signUpTitle: "Créer votre compte",
  signUpIntro:
    "Votre agence reçoit son propre espace de travail avec 10 crédits gratuits. Un lien est envoyé à votre adresse\u00a0: rien n'est créé avant que vous l'ouvriez.",
  agencyName: "Nom de l'agence",
  signUp: "S'inscrire",
  signUpSent:
    "Consultez votre boîte de réception\u00a0: un lien est en route vers {email}. Votre compte et votre espace sont créés quand vous l'ouvrez (dans les 24 heures).",
  signUpSentNoAddress:
    "Consultez votre boîte de réception\u00a0: un lien est en route vers l'adresse indiquée. Votre compte et votre espace sont créés quand vous l'ouvrez (dans les 24 heures).",
  disposableAddress:
    "Utilisez une adresse durable\u00a0: les services de courriel jetable ne sont pas acceptés.",
  signUpInvalid: "Ce lien d'inscription est inconnu, déjà utilisé ou expiré. Inscrivez-vous de nouveau.",
  confirmSignUpTitle: "Confirmer votre inscription",
  confirmSignUpIntro: "Créer le compte de {name} ({email}) et l'espace de travail {agency}.",
  confirmSignUp: "Créer mon compte",
  accountExistsSignIn: "Cette adresse a déjà un compte. Connectez-vous plutôt.",
  connectedApps: "Applications connectées",
  connectedAppsIntro:
    "Les assistants que vous avez autorisés à utiliser vos espaces. En déconnecter un met fin à son accès immédiatement.",
  noConnectedApps: "Aucune application connectée. Un assistant que vous autorisez apparaît ici.",
  app: "Application",
  workspace: "Espace de travail",
  access: "Accès",
  approvedOn: "Autorisée le",
  disconnect: "Déconnecter",
  appDisconnected: "L'application a été déconnectée\u00a0: ses jetons ne fonctionnent plus.",
  postalAddress: "Adresse postale",
  postalAddressHelp:
    "Termine chaque brouillon, comme les lois anti-pourriel l'exigent de tout courriel commercial (quelques lignes au plus). Tant qu'elle n'est pas saisie, les brouillons affichent [Votre adresse postale].",
  suppressions: "Ne pas contacter",
  suppressionsIntro:
    "Les entreprises à ne pas contacter\u00a0: les recherches ne les renvoient ni ne les facturent, leurs prospects sont marqués «\u00a0Écarté\u00a0» et aucun brouillon n'est rédigé pour elles. Un domaine couvre ses sous-domaines.",
  suppressionKind: "Type",
  kindEmail: "Adresse courriel",
  kindDomain: "Domaine",
  kindPlace: "Identifiant de lieu",
  suppressionValue: "Adresse, domaine ou identifiant de lieu",
  reason: "Motif",
  addSuppression: "Ajouter",
  importSuppressions: "Importer un CSV",
  importHelp:
    "Une entrée par ligne\u00a0: une adresse courriel, un domaine ou un identifiant de lieu, puis, au besoin, une virgule et le motif. Une ligne d'en-tête est ignorée.",
  importButton: "Importer",
  imported: "{added}, {known} déjà sur la liste, {refused}.",
  importedAdded_one: "{count} entrée ajoutée",
  importedAdded_other: "{count} entrées ajoutées",
  importedRefused_one: "{count} ligne refusée",
  importedRefused_other: "{count} lignes refusées",
  noSuppressions: "Personne n'est sur la liste.",
  searchSuppressions: "Chercher dans la liste (adresse, domaine, identifiant de lieu ou motif)",
  noSuppressionMatches: "Aucune entrée ne contient « {search} ».",
  suppressionCount_one: "{count} entrée sur la liste, qui en compte au plus {max}.",
  suppressionCount_other: "{count} entrées sur la liste, qui en compte au plus {max}.",
  suppressionListFull:
    "Rien n'a été ajouté : la liste « Ne pas contacter » dépasserait sa limite (la page indique combien d'entrées elle peut compter). Retirez les entrées inutiles ou demandez à l'opérateur de relever la limite.",
  addedBy: "Ajoutée par",
  suppressionValueInvalid:
    "«\u00a0{value}\u00a0» n'est ni une adresse courriel, ni un domaine, ni un identifiant de lieu. Par exemple\u00a0: info@acme.ca, acme.ca, ou un identifiant de lieu comme ChIJN1t_tDeuEmsRUsoyG83frY4.",
  suppressionAdded: "Ajouté à la liste «\u00a0Ne pas contacter\u00a0».",
  suppressionRemoved: "Retiré de la liste «\u00a0Ne pas contacter\u00a0».",
  doNotContact: "Ne pas contacter",
  doNotContactHelp:
    "Ajoute cette entreprise (et son adresse) à la liste «\u00a0Ne pas contacter\u00a0»\u00a0: aucun brouillon, aucun débit, et les recherches l'écartent.",
  leadSuppressed: "Cette entreprise est sur la liste «\u00a0Ne pas contacter\u00a0».",
  emailStatus: "Peut-elle recevoir du courriel",
  emailStatusValue_deliverable: "livrable",
  emailStatusValue_risky: "incertaine",
  emailStatusValue_undeliverable: "non livrable",
  emailStatusValue_unknown: "inconnue",
  emailSource: "Provenance de l'adresse",
  emailSourceLine: "{url} ({foundIn}), vue la première fois le {first}, la dernière le {last}",
  solicitationRefused:
    "La page de cette entreprise indique qu'elle refuse les courriels non sollicités ou la prospection\u00a0: la loi canadienne anti-pourriel ne donne alors aucun consentement pour écrire. N'envoyez rien.",
};
