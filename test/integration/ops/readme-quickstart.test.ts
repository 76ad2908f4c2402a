/**
 * The README's Quickstart, run as written (issue 33 item 2): the service started with the README's
 * start command on a port other than 3000 (PORT set, as a newcomer would), and the Quickstart's
 * fenced block, read from README.md at test time, run whole by bash with that PORT exported. Every
 * command reads the address from one variable, so the block reaches the service and ends with a
 * draft; nothing in it names port 3000.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../support/oauth.ts";
import { type ServerProcess, startServerProcess } from "../../support/server-process.ts";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const run = promisify(execFile);

/** The fenced `sh` blocks of one README section (from its `## ` heading to the next). */
function shBlocksOf(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}`);
  expect(start, `README section "${heading}"`).toBeGreaterThan(-1);
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
}

/** The README's start command (`npm ci && VAR=value ... npm start`): its settings, `npm ci` left out. */
function startSettings(line: string): Record<string, string> {
  const words = line
    .replace(/^npm ci && /, "")
    .trim()
    .split(/\s+/);
  expect(words.slice(-2)).toEqual(["npm", "start"]);
  return Object.fromEntries(
    words.slice(0, -2).map((word) => {
      const separator = word.indexOf("=");
      expect(separator, word).toBeGreaterThan(0);
      return [word.slice(0, separator), word.slice(separator + 1)];
    }),
  );
}

/**
 * The JSON objects printed one after another (curl prints no newline after a body, so two answers
 * may share a line), skipping the other lines (the console link).
 */
function jsonValuesIn(output: string): Record<string, unknown>[] {
  const values: Record<string, unknown>[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let index = 0; index < output.length; index += 1) {
    const char = output[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"' && depth > 0) inString = true;
    else if (char === "{") {
      if (depth === 0) start = index;
      depth += 1;
    } else if (char === "}" && depth > 0) {
      depth -= 1;
      if (depth === 0) values.push(JSON.parse(output.slice(start, index + 1)) as Record<string, unknown>);
    }
  }
  return values;
}

let server: ServerProcess;
let dataDir: string;
let quickstart: string;
let port: number;

beforeAll(async () => {
  const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
  const [start] = shBlocksOf(readme, "Set-up: two commands");
  const blocks = shBlocksOf(readme, "Quickstart");
  expect(blocks).toHaveLength(1);
  quickstart = blocks[0] ?? "";
  const settings = startSettings((start ?? "").trim());
  port = await freePort();
  expect(port).not.toBe(3000);
  dataDir = await mkdtemp(join(tmpdir(), "readme-quickstart-"));
  // As written, with PORT set and a data folder of its own.
  server = await startServerProcess(
    { ...settings, PORT: String(port), DATA_DIR: dataDir },
    { command: { file: "npm", args: ["start"], cwd: REPO_ROOT }, readyTimeoutMs: 90_000 },
  );
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("the README's Quickstart on a port other than 3000", () => {
  it("reads the address from one variable: no command names port 3000", () => {
    expect(quickstart).not.toMatch(/127\.0\.0\.1:3000|localhost:3000/);
    // The service's own default: PORT when set, else 3000.
    expect(quickstart).toMatch(/^export API_URL=http:\/\/127\.0\.0\.1:\$\{PORT:-3000\}$/m);
    for (const line of quickstart.split("\n").filter((text) => /\bcurl\b/.test(text))) {
      expect(line, line).toContain('"$API_URL/');
    }
  });

  it("runs whole with bash and gets a search, a lead, a draft, the list, the balance and a console link", {
    timeout: 180_000,
  }, async () => {
    expect(server.port).toBe(port);
    const { stdout } = await run("bash", ["-c", `set -eo pipefail\n${quickstart}`], {
      cwd: REPO_ROOT,
      // A second terminal of the same machine: its PATH and HOME, and the PORT the service runs on.
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? tmpdir(),
        PORT: String(port),
      },
      timeout: 170_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const answers = jsonValuesIn(stdout);
    const search = answers.find((answer) => "results" in answer) as {
      results: { id: string }[];
      credits_spent: number;
      truncated: boolean;
    };
    expect(search.results.length, stdout).toBeGreaterThan(0);
    console.log(
      `the Quickstart's first search: ${search.results.length} results, truncated: ${search.truncated}`,
    );
    expect(search.credits_spent).toBe(search.results.length);
    const draft = answers.find((answer) => "subject" in answer && "body" in answer) as {
      subject: string;
      body: string;
      facts_used: string[];
    };
    expect(draft, stdout).toBeDefined();
    expect(draft.subject.length).toBeGreaterThan(0);
    expect(draft.facts_used.length).toBeGreaterThan(0);
    expect(answers.find((answer) => "balance" in answer)).toMatchObject({
      balance: 10 - search.credits_spent - 1,
    });
    expect(
      answers.some((answer) => "error" in answer),
      stdout,
    ).toBe(false);
    // The console link printed last names the address the service was started with.
    expect(stdout.trim(), stdout).toMatch(new RegExp(`http://127\\.0\\.0\\.1:${port}/app/invite/\\S+$`));
  });
});
