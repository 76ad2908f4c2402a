import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../shared/config.ts";
import { type CheckoutSessionFacts, packOfSession } from "../../../shared/payments/settlement.ts";

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

const KEY = "sk_test_51abcDEF";
const SECRET = "whsec_abc123";

describe("Stripe settings", () => {
  it("default: no payments, the documented packs in usd", () => {
    const config = loadConfig({});
    expect(config.stripe).toBeUndefined();
    expect(config.creditPacks).toEqual([
      { credits: 100, price: 1900 },
      { credits: 500, price: 7900 },
      { credits: 2000, price: 24900 },
    ]);
    expect(config.creditCurrency).toBe("usd");
  });

  it("both secrets: payments against api.stripe.com, or STRIPE_API_URL's origin", () => {
    expect(loadConfig({ STRIPE_SECRET_KEY: KEY, STRIPE_WEBHOOK_SECRET: SECRET }).stripe).toEqual({
      secretKey: KEY,
      webhookSecret: SECRET,
      apiUrl: "https://api.stripe.com",
    });
    expect(
      loadConfig({
        STRIPE_SECRET_KEY: KEY,
        STRIPE_WEBHOOK_SECRET: SECRET,
        STRIPE_API_URL: "http://127.0.0.1:12111/",
      }).stripe?.apiUrl,
    ).toBe("http://127.0.0.1:12111");
  });

  it("one secret alone stops the process naming the other", () => {
    expect(configError({ STRIPE_SECRET_KEY: KEY })).toContain(
      "STRIPE_WEBHOOK_SECRET: required when STRIPE_SECRET_KEY is set",
    );
    expect(configError({ STRIPE_WEBHOOK_SECRET: SECRET })).toContain(
      "STRIPE_SECRET_KEY: required when STRIPE_WEBHOOK_SECRET is set",
    );
  });

  it("refuses secrets swapped or of the wrong kind, and an API URL with a path", () => {
    expect(configError({ STRIPE_SECRET_KEY: SECRET, STRIPE_WEBHOOK_SECRET: KEY })).toMatch(
      /STRIPE_SECRET_KEY: must be a Stripe secret[\s\S]*STRIPE_WEBHOOK_SECRET: must be a webhook signing secret/,
    );
    expect(configError({ STRIPE_SECRET_KEY: "pk_test_abc", STRIPE_WEBHOOK_SECRET: SECRET })).toContain(
      "STRIPE_SECRET_KEY",
    );
    expect(configError({ STRIPE_API_URL: "https://api.stripe.com/v1" })).toContain(
      "STRIPE_API_URL: must be an origin",
    );
  });

  it("reads CREDIT_PACKS as credits:price pairs, smallest first, and refuses anything else", () => {
    expect(loadConfig({ CREDIT_PACKS: " 500:7900 , 50:1000" }).creditPacks).toEqual([
      { credits: 50, price: 1000 },
      { credits: 500, price: 7900 },
    ]);
    for (const bad of [
      "100",
      "100:0",
      "0:100",
      "100:19.00",
      "100:1900,100:1500",
      "100000000:1",
      "a:b",
      "100:1900,",
    ]) {
      expect(configError({ CREDIT_PACKS: bad }), bad).toContain("CREDIT_PACKS");
    }
  });

  it("reads CREDIT_CURRENCY as a three-letter code, in Stripe's lower case", () => {
    expect(loadConfig({ CREDIT_CURRENCY: "CAD" }).creditCurrency).toBe("cad");
    expect(configError({ CREDIT_CURRENCY: "dollars" })).toContain("CREDIT_CURRENCY");
  });
});

describe("packOfSession", () => {
  const sale = {
    packs: [
      { credits: 100, price: 1900 },
      { credits: 500, price: 7900 },
    ],
    currency: "usd",
  };
  const workspaceId = "0b9e7c1e-2f1a-4c55-9a51-1d2b3c4d5e6f";
  const session = (change: Partial<CheckoutSessionFacts> = {}): CheckoutSessionFacts => ({
    id: "cs_test_1",
    paymentStatus: "paid",
    amountTotal: 1900,
    currency: "usd",
    clientReferenceId: workspaceId,
    metadata: { workspace_id: workspaceId, pack_credits: "100" },
    paymentIntentId: "pi_test_1",
    ...change,
  });

  it("finds the pack whose credits and price the session carries, for its workspace", () => {
    expect(packOfSession(session(), sale)).toEqual({ workspaceId, pack: { credits: 100, price: 1900 } });
    expect(
      packOfSession(
        session({ amountTotal: 7900, metadata: { workspace_id: workspaceId, pack_credits: "500" } }),
        sale,
      ),
    ).toEqual({ workspaceId, pack: { credits: 500, price: 7900 } });
  });

  it("names what does not match", () => {
    const reason = (change: Partial<CheckoutSessionFacts>) => {
      const matched = packOfSession(session(change), sale);
      return "reason" in matched ? matched.reason : "matched";
    };
    expect(reason({ amountTotal: 1899 })).toBe("amount");
    expect(reason({ amountTotal: null })).toBe("amount");
    expect(reason({ metadata: { workspace_id: workspaceId, pack_credits: "500" } })).toBe("amount");
    expect(reason({ metadata: { workspace_id: workspaceId, pack_credits: "2000" } })).toBe("pack");
    expect(reason({ metadata: { workspace_id: workspaceId, pack_credits: "100.0" } })).toBe("pack");
    expect(reason({ metadata: { workspace_id: workspaceId } })).toBe("pack");
    expect(reason({ currency: "cad" })).toBe("currency");
    expect(reason({ clientReferenceId: null })).toBe("workspace");
    expect(
      reason({
        clientReferenceId: "not-a-uuid",
        metadata: { workspace_id: "not-a-uuid", pack_credits: "100" },
      }),
    ).toBe("workspace");
    expect(
      reason({ metadata: { workspace_id: "0b9e7c1e-2f1a-4c55-9a51-000000000000", pack_credits: "100" } }),
    ).toBe("workspace");
  });
});
