/**
 * The consent page in a real browser (the project's headless Chromium, driven by playwright-core): the
 * member signs in, chooses a workspace and clicks Approve (or Deny), and the browser ends on the client's
 * redirect URI. Chromium enforces the page's CSP (form-action, no script) and its framing rules.
 *
 * `UPDATE_SCREENSHOTS=1` rewrites docs/oauth-authorize.png from this test.
 */
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { seriousViolations } from "../../support/axe.ts";
import { launchBrowser } from "../../support/browser.ts";
import { PASSWORD, signedUpMember } from "../../support/console.ts";
import {
  authorizeUrl,
  type HttpTestApp,
  pkcePair,
  type RegisteredTestClient,
  registerTestClient,
  startHttpTestApp,
  tokenRequest,
} from "../../support/oauth.ts";

const SCREENSHOT = fileURLToPath(new URL("../../../docs/oauth-authorize.png", import.meta.url));

let t: HttpTestApp;
let ws: TestWorkspace;
let browser: Browser;
let client: RegisteredTestClient;
let session: string;
/** The assistant client's redirect URI, served by a small server that records its hits. */
let callback: { server: Server; origin: string; hits: URL[]; framingPage: string };

async function startCallbackServer(): Promise<typeof callback> {
  const hits: URL[] = [];
  const state = { framingPage: "" };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/frame") {
      response.writeHead(200, { "content-type": "text/html" });
      response.end(
        `<!doctype html><title>framing</title><iframe id="victim" src="${state.framingPage}"></iframe>` +
          '<iframe id="control" src="/control"></iframe>',
      );
      return;
    }
    hits.push(url);
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<!doctype html><title>Connected</title><p>Connected</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    hits,
    get framingPage() {
      return state.framingPage;
    },
    set framingPage(value: string) {
      state.framingPage = value;
    },
  };
}

beforeAll(async () => {
  browser = await launchBrowser();
  t = await startHttpTestApp();
  ws = await createWorkspace(t.app, { name: "Browser agency" });
  session = (
    await signedUpMember(t.app, ws.workspaceId, "browser@agency.test", "Browser Person")
  ).cookies.get("ld_session")!;
  callback = await startCallbackServer();
  client = await registerTestClient(t.baseUrl, {
    client_name: "Example Assistant",
    redirect_uris: [`${callback.origin}/oauth/callback`],
  });
}, 60_000);

/** A browser already signed in to the console as the workspace's member. */
async function signedInContext(options: Parameters<Browser["newContext"]>[0] = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.addCookies([{ name: "ld_session", value: session, url: t.baseUrl }]);
  return context;
}

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (callback ? callback.server.close(() => resolve()) : resolve()));
  await t?.close();
});

describe("the authorization page in Chromium", () => {
  it("approving by clicking ends on the client's redirect URI with a code that exchanges for tokens", async () => {
    const pkce = pkcePair();
    const redirectUri = `${callback.origin}/oauth/callback`;
    const context = await browser.newContext({ viewport: { width: 820, height: 900 } });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    try {
      await page.goto(
        authorizeUrl(t.baseUrl, {
          clientId: client.client_id,
          redirectUri,
          challenge: pkce.challenge,
          state: "browser-state",
          scope: "email profile",
        }),
      );
      // Not signed in: the console's sign-in page first, then back to this very request.
      await expect.poll(() => page.title()).toBe("Sign in · Lead discovery");
      await page.getByLabel("Email").fill("browser@agency.test");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect.poll(() => page.title()).toBe("Connect Example Assistant · Lead discovery");
      expect(await seriousViolations(page), "axe on the consent page").toEqual([]);
      const heading = await page.locator("h1").textContent();
      expect(heading).toContain("Example Assistant");
      const text = await page.locator("main").textContent();
      expect(text).toContain(new URL(callback.origin).host);
      expect(text).toContain("email");
      expect(text).toContain("profile");

      expect(text).toContain("Browser Person");
      await page.getByLabel("Browser agency").check();
      await Promise.all([
        page.waitForURL((url) => url.toString().startsWith(redirectUri)),
        page.getByRole("button", { name: "Approve" }).click(),
      ]);
      const landed = new URL(page.url());
      expect(landed.searchParams.get("state")).toBe("browser-state");
      const code = landed.searchParams.get("code");
      expect(code).toMatch(/^ldac_/);
      const callbackHits = callback.hits.filter((hit) => hit.pathname === "/oauth/callback");
      expect(callbackHits.at(-1)?.searchParams.get("code")).toBe(code);
      // The style passes the CSP (hash-allowed): nothing was blocked.
      expect(consoleErrors).toEqual([]);

      const tokens = await tokenRequest(t.baseUrl, {
        grant_type: "authorization_code",
        code: code!,
        redirect_uri: redirectUri,
        client_id: client.client_id,
        code_verifier: pkce.verifier,
      });
      expect(tokens.status).toBe(200);
      const { access_token } = (await tokens.json()) as { access_token: string };
      const credits = await fetch(`${t.baseUrl}/v1/credits`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      expect(await credits.json()).toMatchObject({ balance: 10 });

      // The same token on /mcp, and the person's claims from userinfo.
      const mcp = await fetch(`${t.baseUrl}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "browser-test", version: "1" },
          },
        }),
      });
      expect(mcp.status).toBe(200);
      expect(await mcp.text()).toContain('"serverInfo"');
      const userinfo = await fetch(`${t.baseUrl}/oauth/userinfo`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      expect(await userinfo.json()).toEqual({
        sub: expect.any(String),
        email: "browser@agency.test",
        name: "Browser Person",
      });
    } finally {
      await context.close();
    }
  });

  it("renders the page kept in the docs (UPDATE_SCREENSHOTS=1 rewrites docs/oauth-authorize.png)", async () => {
    // A client as an assistant registers it in production: an https redirect URI of its own.
    const assistant = await registerTestClient(t.baseUrl, {
      client_name: "Example Assistant",
      redirect_uris: ["https://assistant.example/oauth/callback"],
    });
    const context = await signedInContext({ viewport: { width: 820, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(
        authorizeUrl(t.baseUrl, {
          clientId: assistant.client_id,
          redirectUri: "https://assistant.example/oauth/callback",
          challenge: pkcePair().challenge,
          state: "docs",
        }),
      );
      expect(await page.locator("main").textContent()).toContain("assistant.example");
      await expect.poll(() => page.getByRole("button", { name: "Approve" }).isVisible()).toBe(true);
      if (process.env.UPDATE_SCREENSHOTS === "1") {
        await page.screenshot({ path: SCREENSHOT, fullPage: true });
      }
      expect(existsSync(SCREENSHOT), `${SCREENSHOT}: run with UPDATE_SCREENSHOTS=1`).toBe(true);
    } finally {
      await context.close();
    }
  });

  it("Deny sends the browser back with access_denied", async () => {
    const redirectUri = `${callback.origin}/oauth/callback`;
    const context = await signedInContext();
    const page = await context.newPage();
    try {
      await page.goto(
        authorizeUrl(t.baseUrl, {
          clientId: client.client_id,
          redirectUri,
          challenge: pkcePair().challenge,
          state: "denied",
        }),
      );
      await Promise.all([
        page.waitForURL((url) => url.toString().startsWith(redirectUri)),
        page.getByRole("button", { name: "Deny" }).click(),
      ]);
      const landed = new URL(page.url());
      expect(landed.searchParams.get("error")).toBe("access_denied");
      expect(landed.searchParams.get("state")).toBe("denied");
      expect(landed.searchParams.has("code")).toBe(false);
    } finally {
      await context.close();
    }
  });

  it("refuses to be framed by another site (clickjacking)", async () => {
    callback.framingPage = authorizeUrl(t.baseUrl, {
      clientId: client.client_id,
      redirectUri: `${callback.origin}/oauth/callback`,
      challenge: pkcePair().challenge,
    });
    const context = await signedInContext();
    const page = await context.newPage();
    try {
      await page.goto(`${callback.origin}/frame`, { waitUntil: "load" });
      // The control frame shows that framing itself works on this page.
      await expect.poll(() => page.frameLocator("#control").locator("p").textContent()).toBe("Connected");
      // Chromium replaces a refused frame with its own error page: no form is ever shown.
      const victim = page.frameLocator("#victim");
      expect(await victim.locator("input[type=radio]").count()).toBe(0);
      expect(await victim.getByRole("button", { name: "Approve" }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
