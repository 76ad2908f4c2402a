/**
 * Every draft of the offline demo, English and French, through SpamAssassin's rules (issue 30).
 *
 *     npm run spam-check [-- --out <folder>]
 *
 * Starts the service as the README's demo does (PLACES_FIXTURE_FILE=fixtures/places.example.json,
 * AUDIT_DEMO_SITES_DIR=fixtures/sites, embedded PGlite in a temporary folder, a free port), makes a
 * workspace with a sender, an offer per language and a postal address, runs the demo's searches
 * (plumbers and bakeries in Ottawa and Lyon, with live filters so every homepage is audited), drafts
 * every lead in English and in French, writes each draft as a plain-text message and runs
 * `spamassassin -L -t` on it (local tests only: no network checks), printing each score and the
 * rules it hit. Also reports any sentence two drafts of one search share beyond the fixed lines.
 *
 * Needs SpamAssassin installed (Debian: `apt-get install -y spamassassin`); it is a measurement
 * tool, not part of `npm test`. Exits 1 when a draft scores above 0 or neighbours share a sentence.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const ROOT = path.resolve(import.meta.dirname, "..");
const ADMIN_TOKEN = "spam-check-admin-token-0123456789";
const SEARCHES = [
  { location: "Ottawa", category: "plumber" },
  { location: "Ottawa", category: "bakery" },
  { location: "Lyon", category: "plumber" },
  { location: "Lyon", category: "bakery" },
];
/** Live filters audit every candidate's homepage; the last search (none) saves every place as a lead. */
const FILTER_PASSES = [
  { outdated_website: true },
  { not_mobile_friendly: true },
  { stale_content: true },
  undefined,
];

interface Draft {
  subject: string;
  body: string;
  facts_used: string[];
}

interface Lead {
  id: string;
  name: string;
  email: string | null;
}

const { values } = parseArgs({ options: { out: { type: "string" } } });

function requireSpamAssassin(): void {
  const probe = spawnSync("spamassassin", ["--version"], { encoding: "utf8" });
  if (probe.status !== 0) {
    console.error("spamassassin is not installed (Debian: apt-get install -y spamassassin)");
    process.exit(2);
  }
  console.log(probe.stdout.split("\n")[0]);
}

async function startServer(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["api/server.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      PLACES_FIXTURE_FILE: "fixtures/places.example.json",
      AUDIT_DEMO_SITES_DIR: "fixtures/sites",
      RATE_LIMIT_SEARCH_PER_MIN: "1000",
      RATE_LIMIT_READ_PER_MIN: "1000",
      DATABASE_URL: "",
      REDIS_URL: "",
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`the server exited (${code}):\n${output}`)));
  });
  return { url, child };
}

async function call<T>(
  base: string,
  method: string,
  route: string,
  auth: string,
  body?: unknown,
): Promise<{ status: number; json: T }> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${auth}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: (text === "" ? null : JSON.parse(text)) as T };
}

async function must<T>(promise: Promise<{ status: number; json: T }>, what: string): Promise<T> {
  const { status, json } = await promise;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(json)}`);
  return json;
}

/** An RFC 2047 encoded-word for a header that is not plain ASCII. */
function headerText(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, "utf8").toString("base64")}?=`;
}

/** The draft as the member's mail client would send it: plain text, UTF-8. */
function asMessage(draft: Draft, to: string, index: number): string {
  return [
    'From: "Claire Dubois" <claire@pixel-pine.example>',
    `To: ${to}`,
    `Subject: ${headerText(draft.subject)}`,
    `Date: ${new Date(Date.UTC(2026, 10, 27, 14, 0, index)).toUTCString().replace("GMT", "+0000")}`,
    `Message-ID: <draft-${index}@pixel-pine.example>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=UTF-8",
    "Content-Transfer-Encoding: 8bit",
    "",
    draft.body.replace(/\n/g, "\r\n"),
    "",
  ].join("\r\n");
}

/**
 * `spamassassin -L -t` on each message, in one run over an mbox (SpamAssassin takes some seconds to
 * load its rules; once per message would take minutes): each message's score and the rules it hit.
 */
function spamAssassin(messages: string[]): { score: number; rules: string[] }[] {
  const mbox = messages
    .map(
      (message, index) =>
        // The mbox separator line takes the asctime() date form, which SpamAssassin looks for.
        `From drafts@pixel-pine.example Fri Nov 27 14:00:${String(index % 60).padStart(2, "0")} 2026\n${message
          .replace(/\r\n/g, "\n")
          .replace(/^(>*From )/gm, ">$1")}\n`,
    )
    .join("\n");
  const run = spawnSync("spamassassin", ["-L", "-t", "--mbox"], {
    input: mbox,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const report = run.stdout ?? "";
  const parts = report.split(/(?=Content analysis details:)/).slice(1);
  if (parts.length !== messages.length) {
    throw new Error(`spamassassin reported ${parts.length} of ${messages.length} messages:\n${run.stderr}`);
  }
  return parts.map((part) => {
    const score = /^Content analysis details:\s+\((-?[\d.]+) points/.exec(part)?.[1];
    if (score === undefined) throw new Error(`no score in spamassassin's report:\n${part}`);
    // The rules table ends at the first blank line after its header.
    const table = part.slice(part.indexOf("---- ----")).split(/\n\s*\n/)[0] ?? "";
    const rules = [...table.matchAll(/^\s*(-?[\d.]+)\s+([A-Z0-9_]+)\s/gm)].map((m) => `${m[2]} ${m[1]}`);
    return { score: Number(score), rules };
  });
}

/** The sentences beyond the fixed lines: the greeting, the signature block and the last paragraph (notice). */
function variableSentences(body: string): string[] {
  const paragraphs = body.split("\n\n");
  return paragraphs
    .slice(1, -2)
    .flatMap((paragraph) => paragraph.split(/\n+|(?<=[.?!])\s+(?=[A-ZÀ-Ý«"])/u))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== "");
}

async function main(): Promise<void> {
  requireSpamAssassin();
  const dataDir = mkdtempSync(path.join(tmpdir(), "spam-check-"));
  const outDir = values.out === undefined ? null : path.resolve(values.out);
  if (outDir !== null) mkdirSync(outDir, { recursive: true });
  const { url, child } = await startServer(dataDir);
  try {
    const admin = (method: string, route: string, body?: unknown) =>
      must(
        call<Record<string, unknown>>(url, method, `/admin${route}`, ADMIN_TOKEN, body),
        `${method} ${route}`,
      );
    const workspace = (await admin("POST", "/workspaces", { name: "Pixel & Pine", language: "en" })) as {
      id: string;
    };
    await admin("PATCH", `/workspaces/${workspace.id}`, {
      sender_name: "Claire Dubois",
      sender_company: "Pixel & Pine Studio",
      offer_en: "Websites for local trades, live in two weeks",
      offer_fr: "Des sites web pour les artisans, en ligne en deux semaines",
      postal_address: "215 Bank Street, Suite 4\nOttawa ON K2P 1W8",
    });
    const member = (await admin("POST", `/workspaces/${workspace.id}/members`, {
      email: "claire@pixel-pine.example",
    })) as { id: string };
    const key = (await admin("POST", `/workspaces/${workspace.id}/api-keys`, {
      name: "spam check",
      created_by: member.id,
    })) as { key: string };
    await admin("POST", `/workspaces/${workspace.id}/credit-purchases`, { credits: 1000 });
    const v1 = <T>(method: string, route: string, body?: unknown) =>
      must(call<T>(url, method, `/v1${route}`, key.key, body), `${method} ${route}`);

    let index = 0;
    let failures = 0;
    interface Produced {
      heading: string;
      line: (score: string, rules: string) => string;
      message?: string;
      shared: string[];
    }
    const produced: Produced[] = [];
    for (const search of SEARCHES) {
      let leads: Lead[] = [];
      for (const filters of FILTER_PASSES) {
        const result = await v1<{ results: Lead[] }>("POST", "/searches", {
          queries: [search],
          max_results: 25,
          ...(filters === undefined ? {} : { filters }),
        });
        if (filters === undefined) leads = result.results;
      }
      for (const locale of ["en", "fr"] as const) {
        const seen = new Map<string, string>();
        const heading = `## ${search.category} in ${search.location}, ${locale} (${leads.length} leads)`;
        for (const lead of leads) {
          const { status, json } = await call<Draft & { error?: { code: string } }>(
            url,
            "POST",
            `/v1/leads/${lead.id}/outreach-draft`,
            key.key,
            { locale },
          );
          if (status === 422) {
            produced.push({
              heading,
              line: () => `  -     ${lead.name}: no draft (422 insufficient_audit_data)`,
              shared: [],
            });
            continue;
          }
          if (status !== 200) throw new Error(`draft of ${lead.name}: ${status} ${JSON.stringify(json)}`);
          index += 1;
          const message = asMessage(json, lead.email ?? "info@example.invalid", index);
          if (outDir !== null) {
            const file = `${String(index).padStart(3, "0")}-${locale}-${lead.name.replace(/[^\p{L}\p{N}]+/gu, "-")}.eml`;
            writeFileSync(path.join(outDir, file), message);
          }
          const shared: string[] = [];
          for (const sentence of variableSentences(json.body)) {
            const other = seen.get(sentence);
            if (other !== undefined) shared.push(`        shares "${sentence}" with ${other}`);
            seen.set(sentence, lead.name);
          }
          failures += shared.length;
          produced.push({
            heading,
            message,
            shared,
            line: (score, rules) =>
              `  ${score.padStart(4)}  ${lead.name} [${json.facts_used.join(", ")}]${rules}`,
          });
        }
      }
    }
    const results = spamAssassin(
      produced.flatMap((draft) => (draft.message === undefined ? [] : [draft.message])),
    );
    let scored = 0;
    let heading = "";
    for (const draft of produced) {
      if (draft.heading !== heading) {
        heading = draft.heading;
        console.log(`\n${heading}`);
      }
      if (draft.message === undefined) {
        console.log(draft.line("", ""));
        continue;
      }
      const result = results[scored];
      scored += 1;
      if (result === undefined) throw new Error("a draft without a score");
      if (result.score > 0) failures += 1;
      console.log(
        draft.line(result.score.toFixed(1), result.rules.length > 0 ? `  ${result.rules.join(", ")}` : ""),
      );
      for (const line of draft.shared) console.log(line);
    }
    const scores = results.map((result) => result.score);
    console.log(
      `\n${scores.length} drafts; highest score ${Math.max(...scores).toFixed(1)}; ${scores.filter((s) => s > 0).length} above 0`,
    );
    process.exitCode = failures === 0 ? 0 : 1;
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
