import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "../shared/config.ts";
import { MAX_CREDIT_CAP } from "../shared/credits/caps.ts";
import { MAX_PURCHASE_CREDITS } from "../shared/credits/ledger.ts";
import { isLanguage, LANGUAGE_CHOICES, type Language } from "../shared/languages.ts";

/** What a reviewer's demo workspace is funded with: a few searches and drafts beyond the free 10. */
const REVIEWER_CREDITS = 100;

/**
 * `npm run admin -- <command>`: the admin API (/admin) from a terminal. It talks HTTP to a running
 * API node, so it works the same in embedded mode (where only the API process may open the data
 * directory) and against PostgreSQL. Needs ADMIN_TOKEN; the node's address is API_URL, else the
 * server's own HOST and PORT read as the server reads them.
 */
const usage = `Usage: npm run admin -- <command> [options]

  bootstrap --name <agency> --email <member email> [--language en|fr] [--key-name <name>]
                                      workspace + first member + first API key, in one go
  workspaces list
  workspaces create --name <name> [--language en|fr]
  workspaces show <workspace_id>
  workspaces update <workspace_id> [--language en|fr] [--sender-name <s>] [--sender-company <s>]
                                      [--offer-en <s>] [--offer-fr <s>]  (the offer of English / French drafts)
                                      [--postal-address <s>]  (ends every draft)
  members list <workspace_id>
  members add <workspace_id> --email <email> [--member-name <name>]
  members invite <workspace_id> --email <email> [--member-name <name>]
                                      a single-use sign-up link for the console (7 days); shown
                                      once, or only mailed to the person when SMTP_URL is set
  members remove <workspace_id> <member_id>
  accounts reset-link --email <email>
                                      a single-use password reset link for that account (1 hour)
  keys create <workspace_id> --name <name> --created-by <member_id> [--daily-cap <n>] [--total-cap <n>]
  keys list <workspace_id>            each key with its caps, spent_today (UTC) and spent_total
  keys caps <workspace_id> <key_id> [--daily-cap <n|none>] [--total-cap <n|none>]
                                      spending caps in credits: per UTC day, and in all; none
                                      clears one, an option left out keeps it
  keys revoke <workspace_id> <key_id>
  apps list <workspace_id>            the live connected apps (OAuth grants), with their caps
  apps caps <workspace_id> <grant_id> [--daily-cap <n|none>] [--total-cap <n|none>]
  suppressions list <workspace_id>
  suppressions add <workspace_id> (--email <e> | --domain <d> | --place-id <p>) [--reason <s>]
                                      the do-not-contact list: never returned, charged or drafted
  suppressions remove <workspace_id> <entry_id>
  credits buy <workspace_id> --credits <n>
                                      n: a whole number from 1 to ${MAX_PURCHASE_CREDITS}
  reviewer create --email <email> [--name <workspace>] [--credits <n>] [--language en|fr]
                                      a funded demo workspace for a connector directory's
                                      reviewer: the workspace (default "Reviewer demo"), n
                                      credits bought (default ${REVIEWER_CREDITS}, so no free-trial limits), and
                                      a sign-up link for the reviewer (shown, or mailed)

Environment: ADMIN_TOKEN (required, the server's), API_URL (default: http://HOST:PORT as the
server listens, 127.0.0.1:3000 by default; a wildcard HOST is reached on 127.0.0.1).`;

const text = { type: "string" } as const;
const OPTIONS = {
  name: text,
  email: text,
  language: text,
  "key-name": text,
  "member-name": text,
  "sender-name": text,
  "sender-company": text,
  "offer-en": text,
  "offer-fr": text,
  "postal-address": text,
  domain: text,
  "place-id": text,
  reason: text,
  "created-by": text,
  credits: text,
  "daily-cap": text,
  "total-cap": text,
  help: { type: "boolean", short: "h" },
} as const;
const STRING_OPTIONS: readonly string[] = Object.keys(OPTIONS).filter((name) => name !== "help");

/** A mistake of the person typing: shown as one message, never as a stack trace. */
class CliError extends Error {}

/**
 * `--credits -5` is a value that looks like an option: read it as `--credits=-5` so the value's
 * own check answers, instead of the argument parser's riddle.
 */
function withDashedValuesJoined(args: readonly string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? "";
    const next = args[index + 1];
    const option = /^--([a-z-]+)$/.exec(arg)?.[1];
    if (option && STRING_OPTIONS.includes(option) && next && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      index += 1;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

/** The command line, or the parser's complaint and the usage (exit 2). */
function parseCommandLine() {
  try {
    return parseArgs({
      args: withDashedValuesJoined(process.argv.slice(2)),
      allowPositionals: true,
      options: OPTIONS,
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}

/** The node to talk to: API_URL, else where the server listens with this same environment. */
function apiUrlOf(env: NodeJS.ProcessEnv): string {
  if (env.API_URL) {
    let url: URL;
    try {
      url = new URL(env.API_URL);
    } catch {
      throw new CliError(`API_URL: not a URL (${env.API_URL}); e.g. http://127.0.0.1:3000`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new CliError(`API_URL: must be an http or https URL (${env.API_URL})`);
    }
    return url.href.replace(/\/+$/, "");
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "::1" : config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
}

const { values, positionals } = parseCommandLine();

async function call(apiUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/admin${path}`, {
      method,
      headers: {
        authorization: `Bearer ${process.env.ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new CliError(`Cannot reach the API at ${apiUrl}: is it running? (${cause})`);
  }
  if (response.status === 204) return { ok: true };
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    throw new CliError(
      `${apiUrl} answered ${response.status} with something other than JSON: is it this API?`,
    );
  }
  if (!response.ok) {
    const error = (json as { error?: { code: string; message: string } } | null)?.error;
    if (response.status === 404 && error?.code === "not_found" && /^No route/i.test(error.message)) {
      throw new CliError(`${apiUrl} has no /admin: start the API with ADMIN_TOKEN set.`);
    }
    throw new CliError(`${response.status} ${error?.code ?? ""}: ${error?.message ?? text}`);
  }
  return json;
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new CliError(`Missing ${what}.\n\n${usage}`);
  return value;
}

function languageOption(value: string | undefined): Language | undefined {
  if (value === undefined || isLanguage(value)) return value;
  throw new CliError(`--language: ${LANGUAGE_CHOICES}, not ${value}`);
}

function creditsOption(value: string | undefined): number {
  const text = need(value, "--credits");
  const credits = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(credits) || credits < 1 || credits > MAX_PURCHASE_CREDITS) {
    throw new CliError(`--credits: a whole number from 1 to ${MAX_PURCHASE_CREDITS}, not ${text}`);
  }
  return credits;
}

/** A spending cap option: a whole number of credits, `none` (null: no cap), or left out (undefined). */
function capOption(value: string | undefined, option: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === "none") return null;
  const cap = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(cap) || cap > MAX_CREDIT_CAP) {
    throw new CliError(`${option}: a whole number from 0 to ${MAX_CREDIT_CAP}, or none, not ${value}`);
  }
  return cap;
}

/** The caps options given, as the admin API's body (a cap left out is not sent, so it is kept). */
function capsOptions(values: { "daily-cap"?: string | undefined; "total-cap"?: string | undefined }) {
  const daily = capOption(values["daily-cap"], "--daily-cap");
  const total = capOption(values["total-cap"], "--total-cap");
  return {
    ...(daily === undefined ? {} : { daily_credit_cap: daily }),
    ...(total === undefined ? {} : { total_credit_cap: total }),
  };
}

const defined = (entries: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));

async function run(apiUrl: string): Promise<unknown> {
  const [group, action, first, second] = positionals;
  const api = (method: string, path: string, body?: unknown) => call(apiUrl, method, path, body);
  const workspacePath = (suffix = "") => `/workspaces/${need(first, "<workspace_id>")}${suffix}`;
  switch (`${group} ${action ?? ""}`.trim()) {
    case "bootstrap": {
      const name = need(values.name, "--name");
      const email = need(values.email, "--email");
      const language = languageOption(values.language);
      const workspace = (await api("POST", "/workspaces", { name, ...defined({ language }) })) as {
        id: string;
      };
      const member = (await api("POST", `/workspaces/${workspace.id}/members`, { email })) as { id: string };
      const key = await api("POST", `/workspaces/${workspace.id}/api-keys`, {
        name: values["key-name"] ?? "server",
        created_by: member.id,
      });
      return { workspace, member, api_key: key };
    }
    case "workspaces list":
      return api("GET", "/workspaces");
    case "workspaces create":
      return api("POST", "/workspaces", {
        name: need(values.name, "--name"),
        ...defined({ language: languageOption(values.language) }),
      });
    case "workspaces show":
      return api("GET", workspacePath());
    case "workspaces update":
      return api(
        "PATCH",
        workspacePath(),
        defined({
          language: languageOption(values.language),
          sender_name: values["sender-name"],
          sender_company: values["sender-company"],
          offer_en: values["offer-en"],
          offer_fr: values["offer-fr"],
          postal_address: values["postal-address"],
        }),
      );
    case "members list":
      return api("GET", workspacePath("/members"));
    case "members add":
      return api("POST", workspacePath("/members"), {
        email: need(values.email, "--email"),
        ...defined({ name: values["member-name"] }),
      });
    case "members invite":
      return api("POST", workspacePath("/invites"), {
        email: need(values.email, "--email"),
        ...defined({ name: values["member-name"] }),
      });
    case "members remove":
      return api("DELETE", workspacePath(`/members/${need(second, "<member_id>")}`));
    case "accounts reset-link":
      return api("POST", "/accounts/reset-link", { email: need(values.email, "--email") });
    case "keys create":
      return api("POST", workspacePath("/api-keys"), {
        name: need(values.name, "--name"),
        created_by: need(values["created-by"], "--created-by"),
        ...capsOptions(values),
      });
    case "keys list":
      return api("GET", workspacePath("/api-keys"));
    case "keys caps":
      return api("PATCH", workspacePath(`/api-keys/${need(second, "<key_id>")}`), capsOptions(values));
    case "apps list":
      return api("GET", workspacePath("/oauth-grants"));
    case "apps caps":
      return api("PATCH", workspacePath(`/oauth-grants/${need(second, "<grant_id>")}`), capsOptions(values));
    case "keys revoke":
      return api("DELETE", workspacePath(`/api-keys/${need(second, "<key_id>")}`));
    case "suppressions list":
      return api("GET", workspacePath("/suppressions"));
    case "suppressions add":
      return api(
        "POST",
        workspacePath("/suppressions"),
        defined({
          email: values.email,
          domain: values.domain,
          place_id: values["place-id"],
          reason: values.reason,
        }),
      );
    case "suppressions remove":
      return api("DELETE", workspacePath(`/suppressions/${need(second, "<entry_id>")}`));
    case "credits buy": {
      const credits = creditsOption(values.credits);
      return api("POST", workspacePath("/credit-purchases"), { credits });
    }
    case "reviewer create": {
      const email = need(values.email, "--email");
      const credits = values.credits === undefined ? REVIEWER_CREDITS : creditsOption(values.credits);
      const language = languageOption(values.language);
      const workspace = (await api("POST", "/workspaces", {
        name: values.name ?? "Reviewer demo",
        ...defined({ language }),
      })) as { id: string };
      const invite = (await api("POST", `/workspaces/${workspace.id}/invites`, {
        email,
        name: "Reviewer",
      })) as {
        url?: string;
      };
      const purchase = await api("POST", `/workspaces/${workspace.id}/credit-purchases`, { credits });
      return {
        workspace: await api("GET", `/workspaces/${workspace.id}`),
        credit_purchase: purchase,
        invite,
        next_steps: [
          invite.url
            ? "Give the reviewer the invite url: they choose a password there and land in the workspace."
            : "The invite was mailed to the reviewer: they choose a password from it and land in the workspace.",
          "The reviewer connects the assistant to <PUBLIC_URL>/mcp and signs in with that email and password to approve it.",
          "Give the reviewer the privacy and terms pages: <PUBLIC_URL>/privacy and <PUBLIC_URL>/terms.",
        ],
      };
    }
    default:
      throw new CliError(
        `${positionals.length > 0 ? `Unknown command: ${positionals.join(" ")}\n\n` : ""}${usage}`,
      );
  }
}

if (values.help || positionals.length === 0) {
  console.log(usage);
} else if (!process.env.ADMIN_TOKEN) {
  console.error("ADMIN_TOKEN is not set: use the same value the API was started with.");
  process.exitCode = 1;
} else {
  try {
    console.log(JSON.stringify(await run(apiUrlOf(process.env)), null, 2));
  } catch (error) {
    // A bug of this tool still prints one line: what failed, not where.
    console.error(
      error instanceof CliError ? error.message : `Unexpected error: ${(error as Error).message}`,
    );
    process.exitCode = 1;
  }
}
