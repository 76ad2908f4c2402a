/** Where a node serves its privacy policy and terms (linked from the OAuth metadata and every console page). */
export const PRIVACY_PATH = "/privacy";
export const TERMS_PATH = "/terms";
