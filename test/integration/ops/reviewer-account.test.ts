/**
 * `npm run admin -- reviewer create`, run as an operator runs it (a child process talking HTTP to
 * a listening node): a connector directory's reviewer gets a funded demo workspace and a sign-up
 * link, chooses a password, approves an assistant with OAuth and uses the tools with credits
 * beyond the free trial's.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN } from "../../support/app.ts";
import { ConsoleBrowser, PASSWORD, tokenOf } from "../../support/console.ts";
import { type HttpTestApp, obtainTokens, startHttpTestApp } from "../../support/oauth.ts";

const PLACES_FIXTURE_FILE = fileURLToPath(new URL("../../../fixtures/places.example.json", import.meta.url));

let t: HttpTestApp;

beforeAll(async () => {
  t = await startHttpTestApp({ PLACES_FIXTURE_FILE });
});
afterAll(() => t?.close());

function admin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["cli/admin.ts", ...args],
      { env: { PATH: process.env.PATH ?? "", ADMIN_TOKEN, API_URL: t.baseUrl }, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

describe("npm run admin -- reviewer create", () => {
  it("makes a funded demo workspace whose reviewer signs up, connects an assistant and searches beyond the free trial", async () => {
    const run = await admin([
      "reviewer",
      "create",
      "--email",
      "reviewer@directory.example",
      "--credits",
      "40",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const made = JSON.parse(run.stdout) as {
      workspace: { id: string; name: string; balance: number; free_trial: boolean };
      invite: { email: string; url: string };
      next_steps: string[];
    };
    expect(made.workspace).toMatchObject({ name: "Reviewer demo", balance: 50, free_trial: false });
    expect(made.invite.email).toBe("reviewer@directory.example");
    expect(made.next_steps.join(" ")).toContain("/mcp");

    // The reviewer opens the link and chooses a password: a console account in the workspace.
    const browser = new ConsoleBrowser(t.app);
    const invitePath = new URL(made.invite.url).pathname;
    const joined = await browser.submit(invitePath, "/app/invite", {
      token: tokenOf(invitePath),
      name: "Directory reviewer",
      password: PASSWORD,
    });
    expect(joined.statusCode, joined.body.slice(0, 300)).toBe(303);
    const signIn = new ConsoleBrowser(t.app);
    const signedIn = await signIn.submit("/app/sign-in", "/app/sign-in", {
      email: "reviewer@directory.example",
      password: PASSWORD,
    });
    expect(signedIn.statusCode).toBe(303);

    // The reviewer approves an assistant, which uses the tools with the funded balance.
    const tokens = await obtainTokens(t.baseUrl, {
      session: `ld_session=${signIn.cookies.get("ld_session")}`,
      workspaceId: made.workspace.id,
      clientName: "Directory review",
    });
    const client = new Client({ name: "reviewer", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
      }),
    );
    try {
      // Three queries: more than a free-trial workspace may send in one search.
      const search = (await client.callTool({
        name: "search_leads",
        arguments: {
          queries: ["Ottawa", "Gatineau", "Kanata"].map((location) => ({ location, category: "plumber" })),
          max_results: 3,
        },
      })) as CallToolResult;
      expect(search.isError, JSON.stringify(search.content)).toBeFalsy();
      const spent = (search.structuredContent as { credits_spent: number }).credits_spent;
      expect(spent).toBeGreaterThan(0);
      const balance = (await client.callTool({
        name: "get_credit_balance",
        arguments: {},
      })) as CallToolResult;
      expect(balance.structuredContent).toMatchObject({ balance: 50 - spent });
    } finally {
      await client.close();
    }
  });

  it("refuses a missing email or a bad amount in one line", async () => {
    const missing = await admin(["reviewer", "create"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/Missing --email/);
    const bad = await admin(["reviewer", "create", "--email", "r@x.example", "--credits", "0"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--credits: a whole number/);
  });
});
