/**
 * `npm run admin`, run as an operator runs it (a child process talking HTTP to a listening node):
 * it finds the node from PORT as the server does (or API_URL), lists workspaces and members, and
 * answers bad input with one clear line and a failing exit code, never a stack trace.
 */
import { execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { freePort, type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

let t: HttpTestApp;
let ws: TestWorkspace;
let port: string;

/** The CLI with only the variables an operator's second terminal would have. */
function admin(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["cli/admin.ts", ...args],
      { env: { PATH: process.env.PATH ?? "", ADMIN_TOKEN, PORT: port, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A failure the operator can read: one message, no `at file:line` frames. */
function expectClearFailure(run: CliRun, message: RegExp): void {
  expect(run.code, run.stdout).not.toBe(0);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stdout).toBe("");
}

beforeAll(async () => {
  t = await startHttpTestApp();
  port = new URL(t.baseUrl).port;
  ws = await createWorkspace(t.app, { name: "CLI agency" });
});
afterAll(() => t?.close());

describe("npm run admin", () => {
  it("reaches the node at the server's own PORT, and lists workspaces and their members", async () => {
    const workspaces = await admin(["workspaces", "list"]);
    expect(workspaces.code, workspaces.stderr).toBe(0);
    const listed = JSON.parse(workspaces.stdout).workspaces as {
      id: string;
      name: string;
      balance: number;
    }[];
    expect(listed).toContainEqual(
      expect.objectContaining({ id: ws.workspaceId, name: "CLI agency", balance: 10 }),
    );

    const members = await admin(["members", "list", ws.workspaceId]);
    expect(members.code, members.stderr).toBe(0);
    expect(JSON.parse(members.stdout).members).toEqual([
      expect.objectContaining({
        id: ws.memberId,
        email: expect.stringMatching(/@agency\.test$/),
        signed_up: false,
      }),
    ]);
  });

  it("takes API_URL over PORT", async () => {
    const run = await admin(["workspaces", "show", ws.workspaceId], { API_URL: t.baseUrl, PORT: "1" });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: ws.workspaceId });
  });

  it("buys credits, and refuses a negative, zero, fractional or missing amount in one line", async () => {
    const bought = await admin(["credits", "buy", ws.workspaceId, "--credits", "5"]);
    expect(bought.code, bought.stderr).toBe(0);
    for (const amount of ["-5", "0", "2.5", "abc", "100001"]) {
      expectClearFailure(
        await admin(["credits", "buy", ws.workspaceId, "--credits", amount]),
        new RegExp(`^--credits: a whole number from 1 to 100000, not ${amount.replace(".", "\\.")}$`, "m"),
      );
    }
    expectClearFailure(await admin(["credits", "buy", ws.workspaceId]), /^Missing --credits\./m);
    // Nothing but the 5 credits above reached the ledger.
    const shown = await admin(["workspaces", "show", ws.workspaceId]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ balance: 15 });
  });

  it("creates a key with spending caps, changes and clears them, and refuses a cap that is not a whole number", async () => {
    const created = await admin([
      "keys",
      "create",
      ws.workspaceId,
      "--name",
      "agent",
      "--created-by",
      ws.memberId,
      "--daily-cap",
      "50",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout) as {
      id: string;
      daily_credit_cap: number;
      total_credit_cap: number;
    };
    expect(key).toMatchObject({ daily_credit_cap: 50, total_credit_cap: null });
    const changed = await admin([
      "keys",
      "caps",
      ws.workspaceId,
      key.id,
      "--total-cap",
      "500",
      "--daily-cap",
      "none",
    ]);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({
      daily_credit_cap: null,
      total_credit_cap: 500,
      spent_today: 0,
      spent_total: 0,
    });
    const listed = JSON.parse((await admin(["keys", "list", ws.workspaceId])).stdout) as {
      api_keys: { id: string; total_credit_cap: number | null }[];
    };
    expect(listed.api_keys.find((listedKey) => listedKey.id === key.id)).toMatchObject({
      total_credit_cap: 500,
    });
    for (const cap of ["-1", "2.5", "lots", "10000001"]) {
      expectClearFailure(
        await admin(["keys", "caps", ws.workspaceId, key.id, "--total-cap", cap]),
        new RegExp(
          `^--total-cap: a whole number from 0 to 10000000, or none, not ${cap.replace(".", "\\.")}$`,
          "m",
        ),
      );
    }
    expect(JSON.parse((await admin(["apps", "list", ws.workspaceId])).stdout)).toEqual({ oauth_grants: [] });
    expectClearFailure(
      await admin([
        "apps",
        "caps",
        ws.workspaceId,
        "00000000-0000-4000-8000-000000000000",
        "--daily-cap",
        "5",
      ]),
      /No such live OAuth grant in this workspace/,
    );
  });

  it("sets the postal address and keeps the do-not-contact list", async () => {
    const updated = await admin([
      "workspaces",
      "update",
      ws.workspaceId,
      "--postal-address",
      "215 Bank Street",
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ postal_address: "215 Bank Street" });
    const added = await admin([
      "suppressions",
      "add",
      ws.workspaceId,
      "--domain",
      "Maple-Plumbing.ca",
      "--reason",
      "asked by phone",
    ]);
    expect(added.code, added.stderr).toBe(0);
    const entry = JSON.parse(added.stdout) as { id: string };
    expect(entry).toMatchObject({ kind: "domain", value: "maple-plumbing.ca", added_by: "operator" });
    const listed = await admin(["suppressions", "list", ws.workspaceId]);
    expect(JSON.parse(listed.stdout).suppressions).toEqual([expect.objectContaining({ id: entry.id })]);
    expectClearFailure(
      await admin(["suppressions", "add", ws.workspaceId, "--email", "a@b.ca", "--domain", "b.ca"]),
      /exactly one of email, domain or place_id/,
    );
    const removed = await admin(["suppressions", "remove", ws.workspaceId, entry.id]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse((await admin(["suppressions", "list", ws.workspaceId])).stdout).suppressions).toEqual(
      [],
    );
  });

  it("answers bad input, unknown commands and the API's refusals with one clear line", async () => {
    expectClearFailure(await admin(["workspaces", "list", "--bogus"]), /Unknown option '--bogus'/);
    expectClearFailure(await admin(["workspace", "lst"]), /^Unknown command: workspace lst$/m);
    expectClearFailure(
      await admin(["workspaces", "create", "--name", "X", "--language", "de"]),
      /^--language: en or fr, not de$/m,
    );
    expectClearFailure(await admin(["workspaces", "show", "not-a-uuid"]), /^400 invalid_request: /m);
    expectClearFailure(
      await admin(["members", "list", crypto.randomUUID()]),
      /^404 not_found: No such workspace/m,
    );
    expectClearFailure(
      await admin(["workspaces", "list"], { ADMIN_TOKEN: "wrong-token-0123456789" }),
      /^401 /m,
    );
    expectClearFailure(await admin(["workspaces", "list"], { PORT: "not-a-port" }), /PORT/);
    expectClearFailure(await admin(["workspaces", "list"], { API_URL: "ftp://x" }), /^API_URL: /m);
  });

  it("says when no node answers at that address", async () => {
    const closed = String(await freePort());
    expectClearFailure(
      await admin(["workspaces", "list"], { PORT: closed }),
      new RegExp(`^Cannot reach the API at http://127\\.0\\.0\\.1:${closed}: is it running\\?`, "m"),
    );
  });
});
