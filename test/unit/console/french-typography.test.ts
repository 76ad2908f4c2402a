/**
 * French typography in the console (BRIEF; issue 33 item 5): a no-break space (U+00A0, or the
 * narrow U+202F) before `:`, `;`, `?` and `!`, and inside « guillemets », in every French string
 * of the catalog, and in the colon the views put after a label. A URL's `://` is not punctuation.
 */
import { describe, expect, it } from "vitest";
import { translator } from "../../../api/console/i18n.ts";
import { en } from "../../../api/console/messages/en.ts";
import { fr } from "../../../api/console/messages/fr.ts";

const NO_BREAK = "[\\u00a0\\u202f]";
/** Each high punctuation mark not preceded by a no-break space (a URL's `://` aside). */
const BARE_MARK = new RegExp(`(?<!${NO_BREAK})[:;?!](?!//)`, "g");
const BARE_GUILLEMET = new RegExp(`«(?!${NO_BREAK})|(?<!${NO_BREAK})»`, "g");

/** What is wrong in one French string: each mark with the few characters before it. */
function typographyFaults(text: string): string[] {
  return [...text.matchAll(BARE_MARK), ...text.matchAll(BARE_GUILLEMET)].map((match) =>
    text.slice(Math.max(0, match.index - 12), match.index + 1),
  );
}

describe("French typography", () => {
  it("finds a missing no-break space, and accepts both kinds", () => {
    expect(typographyFaults("Potentiel: 50/100")).toEqual(["Potentiel:"]);
    expect(typographyFaults("Potentiel : 50/100")).toEqual(["Potentiel :"]);
    expect(typographyFaults("la liste « Ne pas contacter »")).toEqual(["la liste «", "s contacter »"]);
    expect(
      typographyFaults("Potentiel\u00a0: 50/100\u00a0; Révoquer\u202f? Oui\u00a0! «\u00a0x\u00a0»"),
    ).toEqual([]);
    expect(typographyFaults("voir https://exemple.ca/")).toEqual([]);
  });

  it("every French string of the console's catalog has it", () => {
    const faults = Object.entries(fr).flatMap(([key, text]) =>
      typographyFaults(text).map((fault) => `${key}: …${fault}`),
    );
    expect(faults).toEqual([]);
    // The catalog is whole: nothing left to fall back to English.
    expect(Object.keys(fr).sort()).toEqual(Object.keys(en).sort());
  });

  it("the colon the views put after a label has it in French, not in English", () => {
    expect(`Objet${translator("fr").colon}`).toBe("Objet\u00a0:");
    expect(`Subject${translator("en").colon}`).toBe("Subject:");
  });
});
