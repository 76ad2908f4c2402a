import type { enMailStatus } from "./en-mail-status.ts";

/** Why an address got its email_status, in words: French, every key of the English part. */
export const frMailStatus: Record<keyof typeof enMailStatus, string> = {
  emailReason_own_domain: "{domain} a un serveur de courriel, et c'est le domaine du site web lui-même.",
  emailReason_free_mail:
    "{domain} est une messagerie gratuite ou celle d'un fournisseur d'accès, pas le domaine de l'entreprise\u00a0: le courriel peut arriver, mais atteint moins sûrement l'entreprise.",
  emailReason_other_domain:
    "{domain} est un autre domaine que celui du site web\u00a0: le courriel peut arriver, mais atteint moins sûrement l'entreprise.",
  emailReason_disposable:
    "{domain} est un service de courriel jetable\u00a0: rien de ce qui y est envoyé n'atteint l'entreprise.",
  emailReason_not_public:
    "{domain} n'est pas un domaine de l'internet public (un nom réservé, comme les adresses .example de la démo)\u00a0: aucun courriel ne peut l'atteindre.",
  emailReason_no_domain: "Le domaine {domain} n'existe pas.",
  emailReason_null_mx: "{domain} déclare n'accepter aucun courriel (un enregistrement MX nul).",
  emailReason_no_mail:
    "Aucun serveur de courriel pour {domain}\u00a0: il n'a ni enregistrement de courriel ni enregistrement d'adresse.",
  emailReason_dns_failed:
    "Le DNS n'a pas répondu à temps pour {domain}\u00a0; la prochaine vérification du site le redemande.",
  emailReasonUnrecorded_deliverable: "Un serveur de courriel sur le domaine du site web lui-même.",
  emailReasonUnrecorded_risky: "Une messagerie gratuite, ou un autre domaine que celui du site web.",
  emailReasonUnrecorded_undeliverable:
    "Aucun serveur de courriel pour le domaine, ou un domaine jetable ou réservé (vérification antérieure au motif détaillé).",
  emailReasonUnrecorded_unknown:
    "Le DNS n'a pas répondu, ou l'adresse a été trouvée avant que les adresses soient vérifiées. La prochaine vérification du site le dira.",
};
