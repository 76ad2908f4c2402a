import { describe, expect, it } from "vitest";
import { townFromAddress, townFromLocation, townOf } from "../../../shared/drafting/town.ts";

describe("the town of a lead, for the draft's opening", () => {
  it.each([
    ["412 Bank St, Ottawa, ON K2P 1Y4, Canada", "Ottawa"],
    ["3120 St Joseph Blvd, Orléans, ON K1E 3W6, Canada", "Orléans"],
    ["1200 Rue Saint-Denis, Montréal, QC H2X 3J6, Canada", "Montréal"],
    ["123 Main St, Springfield, IL 62701, USA", "Springfield"],
    ["27 Rue Tronchet, 69006 Lyon, France", "Lyon"],
    ["5 Rue de la Paix, 75002 Paris CEDEX 02, France", "Paris"],
    ["Rue Neuve 1, 1000 Bruxelles, Belgium", "Bruxelles"],
    ["Ottawa, ON, Canada", "Ottawa"],
  ])("%s -> %s", (address, town) => {
    expect(townFromAddress(address)).toBe(town);
  });

  it.each([null, "", "Canada", "412 Bank St", "Unit 4, 12345, 67890", "Somewhere 12, Building 7, Canada"])(
    "gives no town rather than a wrong one: %j",
    (address) => {
      expect(townFromAddress(address)).toBeNull();
    },
  );

  it("falls back on the search's location", () => {
    expect(townFromLocation("Ottawa, ON")).toBe("Ottawa");
    expect(townFromLocation("plumbers 24/7")).toBeNull();
    expect(townOf(null, "Lyon")).toBe("Lyon");
    expect(townOf("412 Bank St, Ottawa, ON K2P 1Y4, Canada", "Gatineau")).toBe("Ottawa");
  });
});
