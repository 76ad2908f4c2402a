/**
 * Once signed in, a console form accepts only the CSRF token bound to the session: a token made
 * from the pre-sign-in cookie (which a sibling subdomain or a network attacker can plant, and
 * so knows) opens nothing. Over real HTTP, as a browser sends it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csrfTokenFor } from "../../../shared/accounts/sessions.ts";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { csrfOf, PASSWORD, signedUpMember } from "../../support/console.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";

let t: HttpTestApp;
let workspace: TestWorkspace;
const EMAIL = "csrf-member@agency.test";

beforeAll(async () => {
  t = await startHttpTestApp();
  workspace = await createWorkspace(t.app);
  await signedUpMember(t.app, workspace.workspaceId, EMAIL);
});
afterAll(async () => t?.close());

/** A cookie jar over fetch: what the server sets is sent back, nothing is followed. */
class Jar {
  readonly cookies = new Map<string, string>();
  async request(path: string, init: { form?: Record<string, string> } = {}): Promise<Response> {
    const response = await fetch(`${t.baseUrl}${path}`, {
      method: init.form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "),
        ...(init.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const separator = pair.indexOf("=");
      const value = pair.slice(separator + 1);
      if (/Max-Age=0/i.test(line) || value === "") this.cookies.delete(pair.slice(0, separator));
      else this.cookies.set(pair.slice(0, separator), value);
    }
    return response;
  }
}

const keyCount = async (name: string) =>
  (
    await t.database.db
      .selectFrom("api_keys")
      .select("id")
      .where("workspace_id", "=", workspace.workspaceId)
      .where("name", "=", name)
      .execute()
  ).length;

describe("console CSRF once signed in (finding 8)", () => {
  it("refuses a form token derived from the pre-sign-in cookie, and accepts the session's", async () => {
    const jar = new Jar();
    const signInPage = await jar.request("/app/sign-in");
    const preSignInToken = csrfOf(await signInPage.text());
    expect(jar.cookies.get("ld_pre")).toBeDefined();
    const signedIn = await jar.request("/app/sign-in", {
      form: { csrf_token: preSignInToken, email: EMAIL, password: PASSWORD },
    });
    expect(signedIn.status).toBe(303);
    expect(jar.cookies.get("ld_session")).toBeDefined();
    const keysPath = `/app/w/${workspace.workspaceId}/keys`;

    // The token of the sign-in page still lies in the browser (and in any page that planted the cookie).
    const withOldToken = await jar.request(keysPath, {
      form: { csrf_token: preSignInToken, name: "old-token" },
    });
    expect(withOldToken.status).toBe(403);
    expect(await keyCount("old-token")).toBe(0);

    // An attacker who planted a pre-sign-in cookie of their choosing knows its token.
    jar.cookies.set("ld_pre", "P".repeat(43));
    const planted = await jar.request(keysPath, {
      form: { csrf_token: csrfTokenFor("P".repeat(43)), name: "planted-token" },
    });
    expect(planted.status).toBe(403);
    expect(await keyCount("planted-token")).toBe(0);

    // The session's own token, read from a page of the signed-in console, works.
    const sessionToken = csrfOf(await (await jar.request(keysPath)).text());
    expect(sessionToken).toBe(csrfTokenFor(jar.cookies.get("ld_session") ?? ""));
    const created = await jar.request(keysPath, {
      form: { csrf_token: sessionToken, name: "session-token" },
    });
    expect(created.status).toBeLessThan(400);
    expect(await keyCount("session-token")).toBe(1);
  });
});
