import type { enCaps } from "./en-caps.ts";

/** Spending caps of API keys and connected apps: French (a no-break space before : ; ? !). */
export const frCaps: Record<keyof typeof enCaps, string> = {
  dailyCap: "Plafond par jour",
  totalCap: "Plafond total",
  dailyCapHint: "Crédits qu'elle peut dépenser par jour (UTC). Vide\u00a0: sans plafond.",
  totalCapHint: "Crédits qu'elle peut dépenser en tout. Vide\u00a0: sans plafond.",
  spentToday: "Dépensé aujourd'hui (UTC)",
  spentTotal: "Dépensé en tout",
  spentOfCap: "{spent} sur {cap}",
  spentNoCap: "{spent} (sans plafond)",
  setCaps: "Plafonds de dépense",
  capsTitle: "Plafonds de dépense\u00a0: {name}",
  capsIntro:
    "Un appel qui dépasserait un plafond est refusé (402 insufficient_credits, en nommant le plafond), et rien n'est enregistré ni facturé. Le plafond par jour compte à partir de 0\u00a0h UTC\u00a0; le plafond total ne se remet jamais à zéro. Les membres dans la console n'ont pas de plafond.",
  capsSpent: "Dépensé aujourd'hui (UTC)\u00a0: {today}. Dépensé en tout\u00a0: {total}.",
  saveCaps: "Enregistrer les plafonds",
  capsSaved: "Plafonds de dépense enregistrés.",
  capInvalid:
    "Saisissez un nombre entier de crédits de 0 à 10\u00a0000\u00a0000, ou laissez vide pour aucun plafond.",
  keyNameMissing: "Donnez un nom à la clé.",
  keyNameTooLong: "Le nom est trop long (200 caractères au plus).",
  formHasErrors: "Rien n'a été enregistré\u00a0: vérifiez les champs signalés ci-dessous.",
  consentCapsLegend: "Plafonds de dépense (facultatif)",
  consentCapsHint:
    "Ce que cette application peut dépenser dans l'espace de travail. Laissez vide pour aucun plafond\u00a0; vous pourrez les modifier plus tard dans Votre compte, Applications connectées.",
  appCapsIntro: "Ce que cette application peut dépenser dans {workspace}.",
};
