/** Spending caps of API keys and connected apps: English. */
export const enCaps = {
  dailyCap: "Daily cap",
  totalCap: "Total cap",
  dailyCapHint: "Credits it may spend per day (UTC). Empty: no cap.",
  totalCapHint: "Credits it may spend in all. Empty: no cap.",
  spentToday: "Spent today (UTC)",
  spentTotal: "Spent in total",
  spentOfCap: "{spent} of {cap}",
  spentNoCap: "{spent} (no cap)",
  setCaps: "Spending caps",
  capsTitle: "Spending caps: {name}",
  capsIntro:
    "A call that would take it past a cap is refused (402 insufficient_credits, naming the cap), and nothing is saved or charged. The daily cap counts from 00:00 UTC; the total cap never resets. Members in the console are not capped.",
  capsSpent: "Spent today (UTC): {today}. Spent in total: {total}.",
  saveCaps: "Save caps",
  capsSaved: "Spending caps saved.",
  capInvalid: "Enter a whole number of credits from 0 to 10,000,000, or leave it empty for no cap.",
  keyNameMissing: "Give the key a name.",
  keyNameTooLong: "The name is too long (200 characters at most).",
  formHasErrors: "Nothing was saved: check the fields marked below.",
  consentCapsLegend: "Spending caps (optional)",
  consentCapsHint:
    "What this app may spend in the workspace. Leave empty for no cap; you can change them later under Your account, Connected apps.",
  appCapsIntro: "What this app may spend in {workspace}.",
};
