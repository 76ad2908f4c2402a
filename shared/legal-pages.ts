/**
 * Where a node serves its privacy policy and terms (api/legal): linked from every console page,
 * the OpenAPI document and the OAuth metadata, so the addresses live below all of them.
 */
export const PRIVACY_PATH = "/privacy";
export const TERMS_PATH = "/terms";
