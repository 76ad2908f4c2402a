/**
 * The image's start commands, run on this machine as the Dockerfile and docker-compose.yml declare
 * them (no container engine here): the final stage is replayed into a temp folder (its COPY steps
 * through .dockerignore, then its `npm ci --omit=dev`, offline from the npm cache), so the
 * processes have exactly the image's files and production dependencies and Node 24 on PATH, not
 * the `node` dev dependency. Then, as compose runs them: the migration job (`npm run migrate`) on
 * an empty database, two API nodes (the image's CMD, `npm start`) behind a local round-robin proxy
 * (test/support/reverse-proxy.ts, standing in for Caddy), two workers (`npm run worker`), the
 * image's HEALTHCHECK command against each node, a live-check search through the proxy, and
 * SIGTERM to each `npm` process as tini would send it. PostgreSQL and Redis are the machine's;
 * the database and the queue prefix are this file's own.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { SITE_AUDIT_QUEUE } from "../../../shared/audit/queue.ts";
import {
  type DockerfileModel,
  REPO_ROOT,
  readDockerfile,
  readYaml,
  type StagedImage,
  stageImage,
} from "../../support/deploy-files.ts";
import { type FakeGooglePlacesServer, googlePlace } from "../../support/fake-google-places.ts";
import { type FakeSitesServer, OLD_HOMEPAGE, startFakeSites } from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { databaseUrl, withAdminClient } from "../../support/postgres.ts";
import { requestJson } from "../../support/request-json.ts";
import { type ReverseProxy, startReverseProxy } from "../../support/reverse-proxy.ts";
import { type ServerProcess, startServerProcess } from "../../support/server-process.ts";
import { startAuditWorker, stopAllWorkers, type WorkerProcess } from "../../support/worker-process.ts";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const ADMIN_TOKEN = "image-admin-token-0123456789";
/** `npm` + Node start-up + the whole app on a loaded 2-core machine: generous. */
const START_TIMEOUT_MS = 120_000;

interface ComposeFile {
  services: Record<string, { command?: string[] }>;
}

let dockerfile: DockerfileModel;
let compose: ComposeFile;
let root: string;
let image: StagedImage;
let places: FakeGooglePlacesServer;
let sites: FakeSitesServer;
let proxy: ReverseProxy | undefined;
const nodes: ServerProcess[] = [];
const workers: WorkerProcess[] = [];
const database = `lead_api_test_image_${randomBytes(6).toString("hex")}`;
const queuePrefix = `image-${randomBytes(5).toString("hex")}`;

test.beforeAll(async ({ googlePlaces }) => {
  dockerfile = await readDockerfile();
  compose = (await readYaml("docker-compose.yml")) as ComposeFile;
  root = await mkdtemp(path.join(tmpdir(), "lead-api-image-"));
  image = await stageImage(root, dockerfile);
  places = googlePlaces;
  sites = await startFakeSites();
  // Empty, not cloned from the migrated template: the migration job must have work to do.
  await withAdminClient((client) => client.query(`create database ${database}`));
}, 300_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all(nodes.map((node) => node.stop(10_000)));
  await stopAllWorkers();
  await sites?.close();
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const queue = new Queue(SITE_AUDIT_QUEUE, { connection, prefix: queuePrefix });
  await queue.obliterate({ force: true }).finally(async () => {
    await queue.close();
    connection.disconnect();
  });
  await withAdminClient((client) => client.query(`drop database if exists ${database} with (force)`));
  if (root) await rm(root, { recursive: true, force: true });
}, 120_000);

/** What compose passes to every app container, for this machine (PORT 0: several nodes on one host). */
function appEnv(): Record<string, string> {
  return {
    ...image.env,
    DATABASE_URL: databaseUrl(database),
    REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    ADMIN_TOKEN,
    ...places.env,
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    RATE_LIMIT_READ_PER_MIN: "10000",
    RATE_LIMIT_SEARCH_PER_MIN: "10000",
    HOST: "127.0.0.1",
    PORT: "0",
    WORKER_METRICS_PORT: "0",
    AUDIT_THREADS: "1",
    LOG_LEVEL: "info",
  };
}

function composeCommand(service: string): string[] {
  const command = compose.services[service]?.command;
  if (!command?.length) throw new Error(`docker-compose.yml: ${service} has no command`);
  return command;
}

const asCommand = ([file, ...args]: string[]) => ({ file: file as string, args, cwd: image.appDir });

/** Runs a one-shot command with the image's PATH; resolves with its exit code and output. */
function runOnce(command: string[], env: Record<string, string>, timeoutMs = START_TIMEOUT_MS) {
  const [file, ...args] = command;
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      file as string,
      args,
      { cwd: image.appDir, env, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

function call(
  method: "GET" | "POST",
  url: string,
  options: { key?: string; admin?: boolean; body?: unknown } = {},
) {
  if (!proxy) throw new Error("the proxy is not started");
  return requestJson(`${proxy.baseUrl}${url}`, method, {
    token: options.admin ? ADMIN_TOKEN : options.key,
    body: options.body,
    timeoutMs: 60_000,
  });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || !address) throw new Error("no port");
  return address.port;
}

/** Resident memory of the `node` process under an `npm` process (for the sizing note; not asserted). */
async function nodeRssMb(npmPid: number): Promise<number | null> {
  const children = async (pid: number): Promise<number[]> => {
    const text = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
    return text.split(/\s+/).filter(Boolean).map(Number);
  };
  const queue = [npmPid];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const argv = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0");
    if (pid !== npmPid && path.basename(argv[0] ?? "") === "node" && argv[1]?.endsWith(".ts")) {
      const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
      return kb ? Math.round(Number(kb) / 1024) : null;
    }
    queue.push(...(await children(pid)));
  }
  return null;
}

describe("the image's start commands on this machine", () => {
  it("has no dev dependency and no pinned node binary in the staged image", async () => {
    const modules = await readdir(path.join(image.appDir, "node_modules"));
    const packageJson = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
      dependencies: Record<string, string>;
    };
    for (const dev of Object.keys(packageJson.devDependencies)) {
      // A dev dependency may still come in as some production package's dependency; not these.
      if (["node", "vitest", "typescript", "@biomejs/biome", "kubernetes-models"].includes(dev)) {
        expect(modules, dev).not.toContain(dev.split("/")[0]);
      }
    }
    const bin = await readdir(path.join(image.appDir, "node_modules/.bin")).catch(() => [] as string[]);
    expect(bin).not.toContain("node");
    for (const dependency of Object.keys(packageJson.dependencies)) {
      expect(modules, dependency).toContain(dependency.split("/")[0]);
    }
  });

  it("migrates, then serves a live-check search through the proxy from two nodes and two workers", async () => {
    // 1. The one-shot migration, as compose's `migrate` service runs it, on an empty database.
    const migrate = await runOnce(composeCommand("migrate"), appEnv());
    expect(migrate.code, migrate.output).toBe(0);
    expect(migrate.output).toContain("Database is up to date.");
    const migrationFiles = (await readdir(path.join(REPO_ROOT, "migrations"))).filter((file) =>
      /\.(ts|js|sql)$/.test(file),
    );
    const client = new pg.Client({ connectionString: databaseUrl(database) });
    await client.connect();
    try {
      const applied = await client.query("select name from kysely_migration");
      expect(applied.rowCount).toBe(migrationFiles.length);
    } finally {
      await client.end();
    }

    // 2. Two API nodes with the image's CMD, two workers with compose's worker command.
    expect(composeCommand("api")).toEqual(dockerfile.cmd);
    const startedNodes = await Promise.all(
      [1, 2].map(() =>
        startServerProcess(appEnv(), {
          command: asCommand(dockerfile.cmd),
          readyTimeoutMs: START_TIMEOUT_MS,
        }),
      ),
    );
    nodes.push(...startedNodes);
    const startedWorkers = await Promise.all(
      [1, 2].map((index) =>
        startAuditWorker(
          { ...appEnv(), PUBLIC_URL: `http://worker-${index}.image.test` },
          {
            name: `worker-${index}`,
            command: asCommand(composeCommand("worker")),
            readyTimeoutMs: START_TIMEOUT_MS,
          },
        ),
      ),
    );
    workers.push(...startedWorkers);
    proxy = await startReverseProxy(startedNodes.map((node) => node.baseUrl));

    // 3. The image's HEALTHCHECK command: healthy against each ready node, unhealthy on a dead port.
    const healthcheck = dockerfile.healthcheck?.command;
    if (!healthcheck) throw new Error("the Dockerfile has no HEALTHCHECK");
    for (const node of startedNodes) {
      const check = await runOnce(healthcheck, { ...image.env, PORT: String(node.port) }, 30_000);
      expect(check.code, `HEALTHCHECK against ${node.baseUrl}: ${check.output}`).toBe(0);
    }
    const dead = await runOnce(healthcheck, { ...image.env, PORT: String(await closedPort()) }, 30_000);
    expect(dead.code).toBe(1);

    // 4. The proxy balances over both nodes.
    for (let index = 0; index < 4; index += 1) expect((await call("GET", "/readyz")).status).toBe(200);
    const upstreams = new Set(proxy.requests.map((request) => request.upstream));
    expect(upstreams).toEqual(new Set(startedNodes.map((node) => node.baseUrl)));

    // 5. A workspace and a live-check search, all through the proxy.
    const workspace = await call("POST", "/admin/workspaces", { admin: true, body: { name: "Image test" } });
    expect(workspace.status, JSON.stringify(workspace.body)).toBe(201);
    const workspaceId = (workspace.body as { id: string }).id;
    const member = await call("POST", `/admin/workspaces/${workspaceId}/members`, {
      admin: true,
      body: { email: "ops@agency.test" },
    });
    expect(member.status, JSON.stringify(member.body)).toBe(201);
    const key = await call("POST", `/admin/workspaces/${workspaceId}/api-keys`, {
      admin: true,
      body: { name: "server", created_by: (member.body as { id: string }).id },
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const apiKey = (key.body as { key: string }).key;

    const location = `Imageville-${randomBytes(3).toString("hex")}`;
    const placeIds = [1, 2, 3].map((index) => `${location}-old-${index}`);
    for (const id of placeIds) sites.set(`/${id}`, { html: OLD_HOMEPAGE, delayMs: 300 });
    places.setPlaces(
      `plumber in ${location}`,
      placeIds.map((id) => googlePlace(id, sites.url(`/${id}`))),
    );
    const search = await call("POST", "/v1/searches", {
      key: apiKey,
      body: {
        queries: [{ location, category: "plumber" }],
        filters: { outdated_website: true },
        max_results: 3,
      },
    });
    expect(search.status, JSON.stringify(search.body)).toBe(200);
    const result = search.body as {
      results: { place_id: string; is_outdated: boolean | null }[];
      credits_spent: number;
      truncated: boolean;
    };
    expect(result.truncated).toBe(false);
    expect(result.results.map((lead) => lead.place_id).sort()).toEqual([...placeIds].sort());
    expect(result.results.every((lead) => lead.is_outdated === true)).toBe(true);
    expect(result.credits_spent).toBe(3);
    // The homepages were fetched by the workers, not by the API nodes.
    const audited = startedWorkers.flatMap((worker) => worker.linesWith("audit finished"));
    expect(audited.map((line) => line.json?.place_id).sort()).toEqual([...placeIds].sort());

    const rss = await Promise.all(
      [...startedNodes, ...startedWorkers].map((process) => nodeRssMb(process.pid)),
    );
    console.log(
      `resident memory after the search (MB): API nodes ${rss.slice(0, 2).join(", ")}; workers ${rss.slice(2).join(", ")}`,
    );

    // 6. SIGTERM to each `npm` process, as tini (PID 1) sends it: npm forwards it to node, which
    // shuts down gracefully and exits 0.
    for (const node of startedNodes) {
      const exit = await node.stop(60_000);
      expect(node.output()).toContain("shutting down");
      expect(exit, node.output()).toEqual({ code: 0, signal: null });
    }
    for (const worker of startedWorkers) {
      const exit = await worker.stop(60_000);
      expect(worker.linesWith("audit worker stopped"), worker.output()).toHaveLength(1);
      expect(exit, worker.output()).toEqual({ code: 0, signal: null });
    }
  }, 600_000);
});
