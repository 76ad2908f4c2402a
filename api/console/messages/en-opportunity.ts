/** The opportunity score's words (DESIGN "Opportunity score"): English. */
export const enOpportunity = {
  opportunity: "Opportunity",
  score: "Score",
  sortBy: "Order",
  sortByScore: "Highest score first",
  sortNewest: "Newest first",
  tierHigh: "High",
  tierMedium: "Medium",
  tierLow: "Low",
  tierUnchecked: "Not checked",
  dimensionPresence: "web presence",
  dimensionSecurity: "security (HTTPS)",
  dimensionMobile: "phones",
  dimensionTechnology: "web technology",
  dimensionFreshness: "fresh content",
  dimensionLanguage: "French version",
  dimensionReviews: "reviews",
  reasonOldMedia: "newest photos 3 or more years old",
  noReasons: "Nothing found that earns points.",
  notCheckedDimensions: "Not checked:",
  coverageLine:
    "Checked: {percent}% of the points that apply to this business. What was not checked counts neither for nor against it.",
} as const;
