import { z } from "zod";
import { readBalance } from "../credits/ledger.ts";
import { DRAFT_PRICE, SEARCH_PRICE } from "../credits/prices.ts";
import { defineOperation, READ_ONLY_TOOL } from "./operation.ts";

const creditsSchema = z
  .object({ balance: z.number().int().meta({ format: "int64" }).describe("Remaining workspace credits") })
  .meta({ id: "Credits" });

/** GET /v1/credits, the `get_credit_balance` tool. */
export const creditsOperation = defineOperation({
  name: "get_credits",
  input: z.object({}),
  output: creditsSchema,
  errors: [],
  bucket: "read",
  cost: { credits: () => 0 },
  mcp: {
    name: "get_credit_balance",
    title: "Read the credit balance",
    description: `Read the workspace's remaining credits. Costs no credits. A search costs ${SEARCH_PRICE}; a draft costs ${DRAFT_PRICE}.`,
    annotations: READ_ONLY_TOOL,
  },
  async run({ principal, services }) {
    return { balance: await readBalance(services.db, principal.workspaceId) };
  },
});
