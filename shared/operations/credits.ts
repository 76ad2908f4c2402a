import { z } from "zod";
import { readCapStanding } from "../credits/caps.ts";
import { readBalance } from "../credits/ledger.ts";
import { DRAFT_PRICE, SEARCH_PRICE } from "../credits/prices.ts";
import { defineOperation, READ_ONLY_TOOL } from "./operation.ts";

const credits = z.number().int().meta({ format: "int64" });

const spendingCapsSchema = z
  .object({
    applies_to: z
      .enum(["api_key", "oauth_grant"])
      .describe(
        "What the caps are set on: the API key of this request, or the OAuth grant (connected app) its access token belongs to",
      ),
    daily: z
      .object({
        cap: credits.describe("Credits this key or grant may spend per UTC day"),
        spent_today: credits.describe("Credits it spent since 00:00 UTC today"),
        remaining: credits.describe("Credits it may still spend today (0 when the cap is reached)"),
        resets_at: z.iso.datetime().describe("When the daily count starts again from 0: the next 00:00 UTC"),
      })
      .nullable()
      .describe("The daily cap; null when there is none"),
    total: z
      .object({
        cap: credits.describe("Credits this key or grant may spend in all"),
        spent_total: credits.describe("Credits it has spent in all"),
        remaining: credits.describe(
          "Credits it may still spend (0 when the cap is reached; it never resets: a member raises or clears it)",
        ),
      })
      .nullable()
      .describe("The total cap; null when there is none"),
  })
  .meta({ id: "SpendingCaps" });

const creditsSchema = z
  .object({
    balance: credits.describe("Remaining workspace credits"),
    spendable: credits.describe(
      "Credits this caller may spend now: the balance, or less when a spending cap of its key or grant leaves less",
    ),
    spending_caps: spendingCapsSchema
      .nullable()
      .describe(
        "The spending caps of the API key or OAuth grant making this request (each null when not set); null for a caller without caps",
      ),
  })
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
    title: "Read the credit balance and spending caps",
    description: `Read the workspace's remaining credits and what this connection may still spend: the daily and total spending caps a member set on it (spent, remaining, and when the daily cap resets, at 00:00 UTC). \`spendable\` is the most the next calls can spend. Costs no credits. A search costs ${SEARCH_PRICE}; a draft costs ${DRAFT_PRICE}. A call past a cap answers insufficient_credits naming the cap.`,
    annotations: READ_ONLY_TOOL,
  },
  async run({ principal, services }) {
    const balance = await readBalance(services.db, principal.workspaceId);
    if (!principal.spender) return { balance, spendable: balance, spending_caps: null };
    const standing = await readCapStanding(services.db, principal.spender);
    const spendable = Math.min(
      balance,
      standing.daily?.remaining ?? balance,
      standing.total?.remaining ?? balance,
    );
    return {
      balance,
      spendable: Math.max(0, spendable),
      spending_caps: {
        applies_to: principal.spender.kind,
        daily: standing.daily && { ...standing.daily, resets_at: standing.daily.resets_at.toISOString() },
        total: standing.total,
      },
    };
  },
});
