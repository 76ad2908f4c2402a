/**
 * Logs: pino JSON, one request id per request (a sane client `X-Request-Id` is kept and echoed,
 * anything else replaced), and no secret in them: a grep over the captured output of a real
 * server process finds no API key, no admin token, no places key and no `Authorization` value.
 */
import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../api/app.ts";
import { createServices } from "../../../api/services.ts";
import { loadConfig } from "../../../shared/config.ts";
import { loggerOptions } from "../../../shared/logger.ts";
import { ADMIN_TOKEN as TEST_ADMIN_TOKEN } from "../../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { type FakeGooglePlacesServer, syntheticPlaces } from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { createDatabaseFromTemplate } from "../../support/postgres.ts";
import { type ServerProcess, startServerProcess } from "../../support/server-process.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("the server process's logs", () => {
  const adminToken = `admin-${randomBytes(18).toString("hex")}`;
  const wrongAdminToken = `admin-${randomBytes(18).toString("hex")}`;
  const unknownKey = `ldk_${randomBytes(32).toString("base64url")}`;
  const basicCredentials = Buffer.from(`user:${randomBytes(12).toString("hex")}`).toString("base64");
  const clientRequestId = `req-credits.${randomBytes(4).toString("hex")}`;
  const rejectedRequestIds = ["has spaces <and> markup", `long-${"x".repeat(200)}`];

  let places: FakeGooglePlacesServer;
  let database: Awaited<ReturnType<typeof createDatabaseFromTemplate>>;
  let server: ServerProcess;
  let searchTruncated: unknown;
  /** Secrets that went over the wire during the run. */
  const secrets: string[] = [adminToken, wrongAdminToken, unknownKey, basicCredentials];
  const responses: { requestId: string | null; sentId: string | undefined; status: number }[] = [];

  async function call(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown>; requestId: string | null }> {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const requestId = response.headers.get("x-request-id");
    responses.push({ requestId, sentId: headers["x-request-id"], status: response.status });
    return {
      status: response.status,
      json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      requestId,
    };
  }

  test.beforeAll(async ({ googlePlaces }) => {
    places = googlePlaces;
    secrets.push(places.apiKey);
    places.setPlaces("plumber in Ottawa", syntheticPlaces(2, { prefix: "logs" }));
    database = await createDatabaseFromTemplate();
    server = await startServerProcess(
      {
        DATABASE_URL: database.url,
        ADMIN_TOKEN: adminToken,
        ...places.env,
        // The most verbose level: whatever any code logs, it is in the capture.
        LOG_LEVEL: "trace",
      },
      { readyTimeoutMs: 90_000 },
    );

    const admin = { authorization: `Bearer ${adminToken}` };
    const workspace = await call("POST", "/admin/workspaces", admin, { name: "Logs test" });
    expect(workspace.status).toBe(201);
    const member = await call("POST", `/admin/workspaces/${workspace.json.id}/members`, admin, {
      email: "owner@logs.test",
    });
    const created = await call("POST", `/admin/workspaces/${workspace.json.id}/api-keys`, admin, {
      name: "server",
      created_by: member.json.id,
    });
    expect(created.status).toBe(201);
    const key = created.json.key as string;
    secrets.push(key);
    const auth = { authorization: `Bearer ${key}` };

    expect((await call("GET", "/v1/credits", { ...auth, "x-request-id": clientRequestId })).status).toBe(200);
    for (const id of rejectedRequestIds) {
      expect((await call("GET", "/v1/credits", { ...auth, "x-request-id": id })).status).toBe(200);
    }
    const payload = { queries: [{ location: "Ottawa", category: "plumber" }], max_results: 2 };
    const searched = await call("POST", "/v1/searches", auth, payload);
    expect(searched.status).toBe(200);
    searchTruncated = searched.json.truncated as boolean;
    // The provider rejects the places key and quotes it back: the failure is logged, the key is not.
    places.failNext(1, 400, { message: `API key not valid: ${places.apiKey}`, reason: "API_KEY_INVALID" });
    expect((await call("POST", "/v1/searches", auth, payload)).status).toBe(500);
    expect((await call("GET", "/v1/credits", { authorization: `Bearer ${unknownKey}` })).status).toBe(401);
    expect((await call("GET", "/v1/credits", { authorization: `Basic ${basicCredentials}` })).status).toBe(
      401,
    );
    expect(
      (await call("GET", "/admin/workspaces/x/api-keys", { authorization: `Bearer ${wrongAdminToken}` }))
        .status,
    ).toBeGreaterThanOrEqual(400);
    const revoked = await call(
      "DELETE",
      `/admin/workspaces/${workspace.json.id}/api-keys/${created.json.id}`,
      admin,
    );
    expect(revoked.status).toBe(204);
    expect((await call("GET", "/v1/credits", auth)).status).toBe(401);

    // Stop the process so that everything it wrote is read.
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  }, 120_000);
  afterAll(async () => {
    await server?.stop(2_000);
    await database?.drop();
  });

  it("name the node's mode and each choice in one start line", () => {
    const start = server.logs.find((line) => typeof line.json?.mode === "string");
    expect(start?.json).toMatchObject({
      level: 30,
      mode: "distributed",
      audits: "in-process",
      mail: "none",
      sign_up: "invite",
      drafter: "template",
      payments: "none",
      places: "google",
      msg: "mode distributed, audits in-process, mail none, sign-up invite, drafter template, payments none, places google",
    });
  });

  it("say on a search's line whether its answer was truncated, as the answer and the metric do", () => {
    const searchLine = server.logs.find(
      (line) => line.json?.operation === "search" && line.json?.outcome === "ok",
    );
    expect(typeof searchTruncated).toBe("boolean");
    expect(searchLine?.json).toMatchObject({ truncated: searchTruncated, credits_spent: 2 });
  });

  it("are pino JSON, one object per line, with a level, a time and a message", () => {
    const stdout = server.logs.filter((line) => line.stream === "stdout");
    expect(stdout.length).toBeGreaterThan(20);
    for (const line of stdout) {
      expect(line.json, line.raw).toBeDefined();
      expect(line.json).toMatchObject({
        level: expect.any(Number),
        time: expect.any(String),
        msg: expect.any(String),
      });
    }
    expect(server.logs.filter((line) => line.stream === "stderr").map((line) => line.raw)).toEqual([]);
  });

  it("contain no API key, admin token, places key or Authorization value", () => {
    const output = server.output();
    // The failures above were logged (so the grep looks at lines that carried secrets nearby).
    expect(output).toContain("places request failed");
    expect(output).toContain("[redacted]");
    for (const secret of secrets) expect(output).not.toContain(secret);
    // Nor a fragment long enough to matter, nor any Authorization value at all.
    for (const secret of secrets) expect(output).not.toContain(secret.slice(-16));
    expect(output).not.toMatch(/Bearer/i);
    expect(output).not.toMatch(/Basic /);
    expect(output).not.toMatch(/ldk_[A-Za-z0-9_-]{8,}/);
  });

  it("carry the client's X-Request-Id on every line of its request, and echo it", () => {
    const echoed = responses.find((response) => response.sentId === clientRequestId);
    expect(echoed?.requestId).toBe(clientRequestId);
    const lines = server.logs.filter((line) => line.json?.reqId === clientRequestId);
    // The operation layer logs one line of its own between the request's two.
    expect(lines.map((line) => line.json?.msg)).toEqual([
      "incoming request",
      "operation finished",
      "request completed",
    ]);
    expect(lines[0]?.json?.req).toMatchObject({ method: "GET", url: "/v1/credits" });
    expect(lines[1]?.json).toMatchObject({ operation: "get_credits", outcome: "ok" });
    expect(lines[2]?.json?.res).toMatchObject({ statusCode: 200 });
  });

  it("give every request its own id, and replace an X-Request-Id that is not a sane token", () => {
    for (const id of rejectedRequestIds) {
      const response = responses.find((r) => r.sentId === id);
      expect(response?.requestId).toMatch(UUID);
      expect(server.output()).not.toContain(id.slice(0, 20));
      const lines = server.logs.filter((line) => line.json?.reqId === response?.requestId);
      expect(lines.length).toBeGreaterThanOrEqual(2);
    }
    const ids = responses.map((response) => response.requestId);
    expect(ids.every((id) => id !== null)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // Each request's lines share its id: an incoming and a completed line per id.
    for (const id of ids) {
      const messages = server.logs.filter((line) => line.json?.reqId === id).map((line) => line.json?.msg);
      expect(messages).toContain("incoming request");
      expect(messages).toContain("request completed");
    }
  });
});

describe("the logger's redaction, on objects that carry secrets", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  it("redacts headers, keys and tokens wherever code logs them, in the app's real pino output", async () => {
    const lines: string[] = [];
    const logger = pino(loggerOptions("trace", "api"), {
      write: (line: string) => {
        lines.push(line);
      },
    });
    const config = loadConfig({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: "trace" });
    const services = await createServices(config, logger, { db: database.db });
    const app = await buildApp({ services, logger });
    const secret = `ldk_${randomBytes(32).toString("base64url")}`;
    const placesKey = `places-${randomBytes(16).toString("hex")}`;
    // What careless code might log: request headers, an HTTP client's error, credentials by name.
    app.get("/log-probe", async (request) => {
      request.log.info({ headers: request.headers }, "probe: headers");
      request.log.info({ req: { headers: request.headers } }, "probe: req.headers");
      const upstream = Object.assign(new Error("upstream refused"), {
        config: { headers: { Authorization: `Bearer ${secret}`, "x-goog-api-key": placesKey } },
      });
      request.log.warn(
        { err: upstream, request: { headers: { authorization: `Bearer ${secret}` } } },
        "probe: error",
      );
      request.log.info(
        { key: secret, apiKey: placesKey, token: secret, access_token: secret },
        "probe: fields",
      );
      request.log.info({ workspace: { api_key: secret, refresh_token: secret } }, "probe: nested fields");
      return { ok: true };
    });
    await app.ready();
    try {
      const response = await app.inject({
        url: "/log-probe",
        headers: {
          authorization: `Bearer ${secret}`,
          "x-goog-api-key": placesKey,
          cookie: `session=${secret}`,
          "x-request-id": "probe-1",
        },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers["x-request-id"]).toBe("probe-1");
    } finally {
      await app.close();
      await services.close();
    }
    const output = lines.join("");
    const probes = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => String(line.msg).startsWith("probe:"));
    expect(probes).toHaveLength(5);
    for (const probe of probes) expect(probe.reqId).toBe("probe-1");
    expect(output).toContain("[redacted]");
    expect(output).not.toContain(secret);
    expect(output).not.toContain(placesKey);
    expect(output).not.toMatch(/Bearer/);
    // Redaction replaces values, it does not drop the lines or their other fields.
    expect(output).toContain("upstream refused");
    expect(output).toContain('"host":"localhost:80"');
  });
});
