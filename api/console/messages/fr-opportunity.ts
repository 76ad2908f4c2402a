import type { enOpportunity } from "./en-opportunity.ts";

/** The opportunity score's words: French. */
export const frOpportunity: Record<keyof typeof enOpportunity, string> = {
  opportunity: "Potentiel",
  score: "Score",
  sortBy: "Ordre",
  sortByScore: "Meilleur score d'abord",
  sortNewest: "Plus récents d'abord",
  tierHigh: "Élevé",
  tierMedium: "Moyen",
  tierLow: "Faible",
  tierUnchecked: "Non vérifié",
  dimensionPresence: "présence en ligne",
  dimensionSecurity: "sécurité (HTTPS)",
  dimensionMobile: "téléphones",
  dimensionTechnology: "technologie du site",
  dimensionFreshness: "contenu récent",
  dimensionLanguage: "version française",
  dimensionReviews: "avis",
  reasonOldMedia: "photos les plus récentes vieilles de 3 ans ou plus",
  noReasons: "Rien de trouvé qui rapporte des points.",
  notCheckedDimensions: "Non vérifié\u00a0:",
  coverageLine:
    "Vérifié\u00a0: {percent}\u00a0% des points qui s'appliquent à cette entreprise. Ce qui n'a pas été vérifié ne compte ni pour ni contre elle.",
};
