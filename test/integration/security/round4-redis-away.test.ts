/**
 * Limits held while Redis is away (issue 31 item 8), over real HTTP: the counts a node read from
 * Redis before it stopped answering are where its in-process fallback goes on from, so an outage
 * hands nobody a fresh budget. The Redis is one this test owns (stopped with SIGKILL).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace } from "../../support/app.ts";
import { signedUpMember } from "../../support/console.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { createOwnedRedis, type OwnedRedis } from "../../support/owned-redis.ts";

let redis: OwnedRedis;
let t: HttpTestApp;

beforeAll(async () => {
  redis = await createOwnedRedis();
  await redis.start();
  t = await startHttpTestApp({
    REDIS_URL: redis.url,
    RATE_LIMIT_READ_PER_MIN: "4",
    PASSWORD_FAILURES_PER_ACCOUNT_ADDRESS: "4",
    QUEUE_PREFIX: "i31_away",
  });
});
afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

describe("item 8: limits held while Redis is away", () => {
  it("a key that spent 3 of its 4 reads before the outage gets 1 more during it, not 4; so do 3 of 4 wrong passwords (finding 9)", async () => {
    const ws = await createWorkspace(t.app);
    await signedUpMember(t.app, ws.workspaceId, "away@agency.test");
    const read = async () => (await fetch(`${t.baseUrl}/v1/credits`, { headers: ws.auth })).status;
    const wrongPassword = async () =>
      (
        await new HttpConsoleBrowser(t.baseUrl).submit("/app/sign-in", "/app/sign-in", {
          email: "away@agency.test",
          password: "not the password",
        })
      ).status;
    expect([await read(), await read(), await read()]).toEqual([200, 200, 200]);
    expect([await wrongPassword(), await wrongPassword(), await wrongPassword()]).toEqual([401, 401, 401]);
    await redis.stop();
    // PASSWORD_FAILURES_PER_ACCOUNT_ADDRESS=4: one more check during the outage, not a fresh four.
    expect([await wrongPassword(), await wrongPassword(), await wrongPassword()]).toEqual([401, 429, 429]);
    expect([await read(), await read(), await read()]).toEqual([200, 429, 429]);
  });
});
