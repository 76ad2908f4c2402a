import { namedInSentence } from "../../shared/lists.ts";
import {
  type Applicability,
  OLD_MEDIA_YEARS,
  OPPORTUNITY_TABLE,
  type OpportunityFact,
} from "../../shared/scoring/opportunity.ts";

const APPLIES_TO: Record<Applicability, string> = {
  "every place": "every place",
  "own site": "places with a site of their own",
  "Canadian own site": "Canadian places with a site of their own",
};

const factName = (fact: OpportunityFact): string =>
  fact === "last_media_year"
    ? `homepage media ${OLD_MEDIA_YEARS}+ years old (\`last_media_year\`)`
    : `\`${fact}\``;

/**
 * The points table of `/v1/docs`, written from the table the score is computed with, so the
 * published points cannot drift from the code. Facts of equal points share a group; a later group
 * earns its points only when no earlier one did ("else").
 */
export function opportunityTableMarkdown(): string {
  const rows = OPPORTUNITY_TABLE.map((rule) => {
    const groups: { facts: OpportunityFact[]; points: number }[] = [];
    for (const { fact, points } of rule.earnedBy) {
      const last = groups.at(-1);
      if (last !== undefined && last.points === points) last.facts.push(fact);
      else groups.push({ facts: [fact], points });
    }
    const earnedBy = groups
      .map(
        ({ facts, points }) =>
          `${namedInSentence(facts.map(factName))}${groups.length > 1 ? ` ${points}` : ""}`,
      )
      .join("; else ");
    return `| ${rule.dimension} | ${earnedBy} | ${rule.points} | ${APPLIES_TO[rule.appliesTo]} |`;
  });
  return ["| Dimension | Fact keys that earn it | Points | Applies to |", "|---|---|---|---|", ...rows].join(
    "\n",
  );
}
