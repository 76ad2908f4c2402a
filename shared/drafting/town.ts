/**
 * The business's town, for the draft's opening ("…local businesses in Ottawa"), read from the
 * provider's formatted address, or else from the location the search named. Pure.
 *
 * Formatted addresses end with the town, then a region and postal code, then the country:
 * "412 Bank St, Ottawa, ON K2P 1Y4, Canada" (North America: region code and postal code after the
 * town) or "27 Rue Tronchet, 69006 Lyon, France" (most of Europe: postal code before the town).
 * Anything else gives no town rather than a wrong one: the opening reads well without it.
 */

/** Longer than this is not a town's name. */
const MAX_TOWN_LENGTH = 40;

/** A town's name: letters (any script), spaces, hyphens, apostrophes and dots; no digits. */
const TOWN_NAME = /^[\p{L}][\p{L}\p{M} .'’-]*$/u;
/** A region and postal code ("ON K2P 1Y4", "IL 62701", "QC"), or a postal code alone. */
const REGION_AND_POSTAL_CODE = /^(?:[A-Z]{2,3}(?:\s+[A-Z0-9][A-Z0-9 -]{2,9})?|[A-Z0-9]{3,4}\s?[A-Z0-9]{3})$/;
/** A postal code then the town ("69006 Lyon", "75011 Paris", "1000 Bruxelles"). */
const POSTAL_CODE_THEN_TOWN = /^\d{4,5}\s+(.+?)(?:\s+(?:Cedex|CEDEX)(?:\s+\d+)?)?$/u;

function asTown(text: string | undefined): string | null {
  const town = text?.replace(/\s+/g, " ").trim();
  if (town === undefined || town === "" || town.length > MAX_TOWN_LENGTH) return null;
  return TOWN_NAME.test(town) ? town : null;
}

/** The town of a provider's formatted address; null when it does not say one plainly. */
export function townFromAddress(address: string | null | undefined): string | null {
  const parts = (address ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (parts.length < 2) return null;
  // The country ends the address when it is a plain name (no digits).
  const last = parts.at(-1) ?? "";
  const withoutCountry = parts.length >= 3 && asTown(last) !== null ? parts.slice(0, -1) : parts;
  const end = withoutCountry.at(-1) ?? "";
  const postalFirst = POSTAL_CODE_THEN_TOWN.exec(end);
  if (postalFirst !== null) return asTown(postalFirst[1]);
  if (REGION_AND_POSTAL_CODE.test(end) && withoutCountry.length >= 2) return asTown(withoutCountry.at(-2));
  return null;
}

/** The town a search's location names ("Ottawa", "Ottawa, ON", "Lyon, France"): its first part. */
export function townFromLocation(location: string | null | undefined): string | null {
  return asTown((location ?? "").split(",")[0]);
}

/** The lead's address first (where the business is), else its search's location. */
export function townOf(address: string | null | undefined, searchLocation?: string | null): string | null {
  return townFromAddress(address) ?? townFromLocation(searchLocation);
}
