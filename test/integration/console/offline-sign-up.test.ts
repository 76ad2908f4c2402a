/**
 * The README's offline sign-up line, run as written (`npm start` with its settings, a real process
 * on a free port and a data folder of its own): a person signs up over HTTP, finds the link in the
 * server's log (`SMTP_URL=log:`), confirms, and is signed in to a free-trial workspace.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csrfOf, PASSWORD } from "../../support/console.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { type ServerProcess, startServerProcess } from "../../support/server-process.ts";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The README's `sh` line that sets `SMTP_URL=log:`: its settings and its command. */
async function readmeOfflineLine(): Promise<{ env: Record<string, string>; command: string[] }> {
  const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
  const lines = blocks.flatMap((block) => block.split("\n")).filter((line) => line.includes("SMTP_URL=log:"));
  expect(lines, "one README line starts the service with SMTP_URL=log:").toHaveLength(1);
  const words = (lines[0] ?? "").trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (words[0] && /^[A-Z_]+=/.test(words[0])) {
    const word = words.shift() as string;
    const separator = word.indexOf("=");
    env[word.slice(0, separator)] = word.slice(separator + 1);
  }
  return { env, command: words };
}

let server: ServerProcess;
let dataDir: string;
let readmeEnv: Record<string, string>;

beforeAll(async () => {
  const line = await readmeOfflineLine();
  readmeEnv = line.env;
  expect(line.command).toEqual(["npm", "start"]);
  dataDir = await mkdtemp(join(tmpdir(), "offline-sign-up-"));
  // As written, but on a free port (PORT 0) and in a data folder of its own.
  server = await startServerProcess(
    { ...line.env, DATA_DIR: dataDir },
    { command: { file: "npm", args: ["start"], cwd: REPO_ROOT }, readyTimeoutMs: 90_000 },
  );
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Waits (generously: the machine is loaded) for a log line with this message and field. */
async function logLine(match: (json: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const found = server.logs.find((line) => line.json !== undefined && match(line.json));
    if (found?.json) return found.json;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no such log line in:\n${server.output()}`);
}

describe("sign-up offline, as the README says", () => {
  it("uses open sign-up and log mail, and warns at start that mail goes nowhere", async () => {
    expect(readmeEnv).toMatchObject({ SIGNUP: "open", SMTP_URL: "log:" });
    const warning = await logLine((json) => String(json.msg).startsWith("SMTP_URL=log:"));
    expect(warning.level).toBe(40);
    expect(warning.msg).toContain("account mail goes nowhere");
  });

  it("signs up over HTTP, reads the link from the log, confirms and lands in a free-trial workspace", async () => {
    const email = "newcomer@first-hour.test";
    const browser = new HttpConsoleBrowser(server.baseUrl);
    const answer = await browser.submit("/app/sign-up", "/app/sign-up", {
      name: "Alex Newcomer",
      email,
      agency_name: "First Hour Web",
    });
    // POST, 303, GET like every console form: a reload of the page sends nothing again.
    expect(answer.status).toBe(303);
    const sent = await browser.get(answer.location ?? "");
    expect(sent.status).toBe(200);
    expect(sent.body).toContain(`Check your mailbox: a link is on its way to ${email}`);

    const logged = await logLine((json) => (json.mail as { to?: string } | undefined)?.to === email);
    const mail = logged.mail as { to: string; subject: string; text: string };
    expect(mail.subject).toBe("Confirm your Lead discovery account");
    const link = mail.text.split(/\s+/).find((word) => word.includes("/app/sign-up/confirm/"));
    expect(link, mail.text).toBeDefined();
    // The link names PUBLIC_URL, which defaults to the configured port (0 here): open its path.
    const path = new URL(link as string).pathname;

    const confirmPage = await browser.get(path);
    expect(confirmPage.status).toBe(200);
    expect(confirmPage.body).toContain("First Hour Web");
    const confirmed = await browser.post("/app/sign-up/confirm", {
      csrf_token: csrfOf(confirmPage.body),
      token: path.split("/").at(-1) ?? "",
      password: PASSWORD,
    });
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toMatch(/^\/app\/w\/[0-9a-f-]+$/);
    const workspace = await browser.get(confirmed.location as string);
    expect(workspace.status).toBe(200);
    expect(workspace.body).toContain("First Hour Web");
  });
});
