import type { Db } from "../db/database.ts";
import {
  listSuppressions,
  type SuppressionEntry,
  type SuppressionList,
  suppressionListOf,
} from "./suppressions.ts";

/**
 * The entry that keeps a lead from being contacted, with who added it (a member of the agency,
 * or the operator) and when: a refusal can then say who put the business on the list rather than
 * guess. Read only after a refusal, so the whole list is read and matched by the usual rules.
 */
export async function findMatchingSuppression(
  db: Db,
  workspaceId: string,
  subject: Parameters<SuppressionList["matches"]>[0],
): Promise<SuppressionEntry | null> {
  const entries = await listSuppressions(db, workspaceId);
  return entries.find((entry) => suppressionListOf([entry]).matches(subject)) ?? null;
}
