/**
 * An API node restarted under load, on the same port, with real processes: the old node drains
 * (SIGTERM) and exits, the new one starts (its start-up server answers at once, then hands the port
 * to the app). Clients keep their keep-alive connections busy the whole time, on a health check
 * and on an authenticated read.
 *
 * No connection is ever reset: every request sent on a connection the server accepted gets an
 * answer (200, or 503 `service_unavailable` from the start-up server). The only other outcome
 * allowed is a refused connection while no process listens, between the old node's exit and the new
 * one's start; both are counted and printed.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../support/owned-postgres.ts";
import { createDatabaseFromTemplate } from "../../support/postgres.ts";
import { type ServerProcess, startServerProcess } from "../../support/server-process.ts";

const ADMIN_TOKEN = "node-restart-admin-token-0123456789";
const READY_MS = 90_000;
const CLIENTS = 8;

type Outcome = "200" | "503 starting" | "refused" | "reset" | "other";

let database: { url: string; drop(): Promise<void> };
const started: ServerProcess[] = [];

beforeAll(async () => {
  database = await createDatabaseFromTemplate();
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map((node) => node.stop(5_000)));
  await database?.drop();
});

/** What one request came to: an answer, a refused connection, or a connection dropped under it. */
async function send(url: string, token?: string): Promise<{ outcome: Outcome; detail: string }> {
  try {
    const response = await fetch(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    if (response.status === 200) return { outcome: "200", detail: "" };
    if (response.status === 503 && text.includes("Not ready: starting"))
      return { outcome: "503 starting", detail: "" };
    return { outcome: "other", detail: `${response.status} ${text.slice(0, 200)}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? "";
    if (code === "ECONNREFUSED") return { outcome: "refused", detail: code };
    if (["ECONNRESET", "UND_ERR_SOCKET", "EPIPE", "UND_ERR_CLOSED"].includes(code)) {
      return { outcome: "reset", detail: `${code} ${cause?.message ?? ""}` };
    }
    return { outcome: "other", detail: `${String(error)} ${code} ${cause?.message ?? ""}` };
  }
}

describe("an API node restarted under load", () => {
  it("resets no connection: the old node drains, the new one's start-up server hands over", {
    timeout: 240_000,
  }, async () => {
    const port = await freePort();
    const env = {
      DATABASE_URL: database.url,
      ADMIN_TOKEN,
      PORT: String(port),
      RATE_LIMIT_READ_PER_MIN: "1000000",
    };
    const first = await startServerProcess(env, { readyTimeoutMs: READY_MS });
    started.push(first);
    const base = first.baseUrl;
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const workspace = (await (
      await fetch(`${base}/admin/workspaces`, {
        method: "POST",
        headers: admin,
        body: '{"name":"Restart agency"}',
      })
    ).json()) as { id: string };
    const member = (await (
      await fetch(`${base}/admin/workspaces/${workspace.id}/members`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ email: "owner@restart.test" }),
      })
    ).json()) as { id: string };
    const key = (await (
      await fetch(`${base}/admin/workspaces/${workspace.id}/api-keys`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ name: "server", created_by: member.id }),
      })
    ).json()) as { key: string };

    type Phase = "first node" | "first node stopping" | "second node starting" | "second node";
    let phase: Phase = "first node";
    const counts = new Map<string, number>();
    const problems: string[] = [];
    let running = true;
    const loops = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let turn = 0; running; turn += 1) {
        const current = phase;
        // Half the clients mostly hold keep-alive connections on the health check (answered 200 by
        // the start-up server too), half read their credits (503 from the start-up server).
        const health = (client + turn) % 2 === 0;
        const result = health ? await send(`${base}/healthz`) : await send(`${base}/v1/credits`, key.key);
        const label = `${current}: ${health ? "/healthz" : "/v1/credits"} ${result.outcome}`;
        counts.set(label, (counts.get(label) ?? 0) + 1);
        if (result.outcome === "reset" || result.outcome === "other")
          problems.push(`${label} ${result.detail}`);
        // A refused connection: nothing listens yet; try again shortly, as a client would.
        if (result.outcome === "refused") await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });

    await new Promise((resolve) => setTimeout(resolve, 1_500));
    phase = "first node stopping";
    const exit = await first.stop(30_000);
    expect(exit.code, first.output().slice(-2000)).toBe(0);
    phase = "second node starting";
    const second = await startServerProcess(env, { readyTimeoutMs: READY_MS });
    started.push(second);
    phase = "second node";
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    running = false;
    await Promise.all(loops);

    console.log(
      `restart under load (${CLIENTS} keep-alive clients):\n${[...counts]
        .sort()
        .map(([label, count]) => `  ${label}: ${count}`)
        .join("\n")}`,
    );
    expect(problems.slice(0, 10)).toEqual([]);
    // The handover happened under load: the start-up server answered (on keep-alive connections
    // that it then handed over), then the app did.
    const answered = (label: string) => counts.get(label) ?? 0;
    expect(answered("second node starting: /healthz 200")).toBeGreaterThan(0);
    expect(answered("second node starting: /v1/credits 503 starting")).toBeGreaterThan(0);
    // The old node drained under load too: it answered after SIGTERM.
    expect(
      answered("first node stopping: /healthz 200") + answered("first node stopping: /v1/credits 200"),
    ).toBeGreaterThan(0);
    expect(answered("second node: /v1/credits 200")).toBeGreaterThan(0);
    expect(
      second.logs.some((line) => String(line.json?.msg).startsWith("started: the app serves the port")),
    ).toBe(true);
  });
});
