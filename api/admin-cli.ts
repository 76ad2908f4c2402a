import { parseArgs } from "node:util";

/**
 * `npm run admin -- <command>`: the admin API (/admin) from a terminal. It talks HTTP to a running
 * API node, so it works the same in embedded mode (where only the API process may open the data
 * directory) and against PostgreSQL. Needs ADMIN_TOKEN; API_URL defaults to http://127.0.0.1:$PORT.
 */
const usage = `Usage: npm run admin -- <command> [options]

  bootstrap --name <agency> --email <member email> [--language en|fr] [--key-name <name>]
                                      workspace + first member + first API key, in one go
  workspaces create --name <name> [--language en|fr]
  workspaces show <workspace_id>
  workspaces update <workspace_id> [--language en|fr] [--sender-name <s>] [--sender-company <s>] [--offer <s>]
  members add <workspace_id> --email <email> [--member-name <name>]
  members invite <workspace_id> --email <email> [--member-name <name>]
                                      a single-use sign-up link for the console (7 days); shown
                                      once, or only mailed to the person when SMTP_URL is set
  members remove <workspace_id> <member_id>
  accounts reset-link --email <email>
                                      a single-use password reset link for that account (1 hour)
  keys create <workspace_id> --name <name> --created-by <member_id>
  keys list <workspace_id>
  keys revoke <workspace_id> <key_id>
  credits buy <workspace_id> --credits <n>

Environment: ADMIN_TOKEN (required), API_URL (default http://127.0.0.1:$PORT, PORT default 3000).`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: "string" },
    email: { type: "string" },
    language: { type: "string" },
    "key-name": { type: "string" },
    "member-name": { type: "string" },
    "sender-name": { type: "string" },
    "sender-company": { type: "string" },
    offer: { type: "string" },
    "created-by": { type: "string" },
    credits: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});

const adminToken = process.env.ADMIN_TOKEN;
const apiUrl = (process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? "3000"}`).replace(/\/+$/, "");

class CliError extends Error {}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/admin${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new CliError(`Cannot reach the API at ${apiUrl}: is it running? (${(error as Error).message})`);
  }
  if (response.status === 204) return { ok: true };
  const text = await response.text();
  const json: unknown = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = (json as { error?: { code: string; message: string } } | null)?.error;
    throw new CliError(`${response.status} ${error?.code ?? ""}: ${error?.message ?? text}`);
  }
  return json;
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new CliError(`Missing ${what}.\n\n${usage}`);
  return value;
}

const defined = (entries: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));

async function run(): Promise<unknown> {
  const [group, action, first, second] = positionals;
  switch (`${group} ${action ?? ""}`.trim()) {
    case "bootstrap": {
      const workspace = (await call("POST", "/workspaces", {
        name: need(values.name, "--name"),
        ...defined({ language: values.language }),
      })) as { id: string };
      const member = (await call("POST", `/workspaces/${workspace.id}/members`, {
        email: need(values.email, "--email"),
      })) as { id: string };
      const key = await call("POST", `/workspaces/${workspace.id}/api-keys`, {
        name: values["key-name"] ?? "server",
        created_by: member.id,
      });
      return { workspace, member, api_key: key };
    }
    case "workspaces create":
      return call("POST", "/workspaces", {
        name: need(values.name, "--name"),
        ...defined({ language: values.language }),
      });
    case "workspaces show":
      return call("GET", `/workspaces/${need(first, "<workspace_id>")}`);
    case "workspaces update":
      return call(
        "PATCH",
        `/workspaces/${need(first, "<workspace_id>")}`,
        defined({
          language: values.language,
          sender_name: values["sender-name"],
          sender_company: values["sender-company"],
          offer: values.offer,
        }),
      );
    case "members add":
      return call("POST", `/workspaces/${need(first, "<workspace_id>")}/members`, {
        email: need(values.email, "--email"),
        ...defined({ name: values["member-name"] }),
      });
    case "members invite":
      return call("POST", `/workspaces/${need(first, "<workspace_id>")}/invites`, {
        email: need(values.email, "--email"),
        ...defined({ name: values["member-name"] }),
      });
    case "members remove":
      return call(
        "DELETE",
        `/workspaces/${need(first, "<workspace_id>")}/members/${need(second, "<member_id>")}`,
      );
    case "accounts reset-link":
      return call("POST", "/accounts/reset-link", { email: need(values.email, "--email") });
    case "keys create":
      return call("POST", `/workspaces/${need(first, "<workspace_id>")}/api-keys`, {
        name: need(values.name, "--name"),
        created_by: need(values["created-by"], "--created-by"),
      });
    case "keys list":
      return call("GET", `/workspaces/${need(first, "<workspace_id>")}/api-keys`);
    case "keys revoke":
      return call(
        "DELETE",
        `/workspaces/${need(first, "<workspace_id>")}/api-keys/${need(second, "<key_id>")}`,
      );
    case "credits buy":
      return call("POST", `/workspaces/${need(first, "<workspace_id>")}/credit-purchases`, {
        credits: Number(need(values.credits, "--credits")),
      });
    default:
      throw new CliError(usage);
  }
}

if (values.help || positionals.length === 0) {
  console.log(usage);
} else if (!adminToken) {
  console.error("ADMIN_TOKEN is not set: use the same value the API was started with.");
  process.exitCode = 1;
} else {
  try {
    console.log(JSON.stringify(await run(), null, 2));
  } catch (error) {
    console.error(error instanceof CliError ? error.message : error);
    process.exitCode = 1;
  }
}
