/**
 * docker-compose.yml parsed and checked (no container engine runs here): it scales as its header
 * says, every long-running service has a healthcheck, only the proxy publishes ports, the proxy
 * reaches `api`, the migration runs once before the app, secrets come from .env, and the
 * Prometheus and Grafana files it mounts exist and point at the right places.
 */
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type DockerfileModel, REPO_ROOT, readDockerfile, readYaml } from "../../support/deploy-files.ts";

interface ComposeService {
  image?: string;
  build?: string | { context: string };
  command?: string[];
  environment?: Record<string, string>;
  env_file?: string | string[];
  ports?: (string | { published?: string | number; target: number; host_ip?: string })[];
  healthcheck?: { test?: string[] | string; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  container_name?: string;
  volumes?: string[];
  networks?: unknown;
  network_mode?: string;
}

let compose: { services: Record<string, ComposeService>; volumes?: Record<string, unknown> };
let composeText: string;
let dockerfile: DockerfileModel;
let caddyfile: string;

beforeAll(async () => {
  composeText = await readFile(path.join(REPO_ROOT, "docker-compose.yml"), "utf8");
  compose = (await readYaml("docker-compose.yml")) as typeof compose;
  dockerfile = await readDockerfile();
  caddyfile = await readFile(path.join(REPO_ROOT, "deploy/compose/Caddyfile"), "utf8");
});

const service = (name: string): ComposeService => {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};

/** `--scale api=3 --scale worker=4` from the header comment. */
function scaledInHeader(): Map<string, number> {
  const scaled = new Map<string, number>();
  for (const match of composeText.matchAll(/--scale (\w[\w-]*)=(\d+)/g)) {
    scaled.set(match[1] as string, Number(match[2]));
  }
  return scaled;
}

/** [host ip, host port] of each published port ("8080:80", "127.0.0.1:3001:3001", long form). */
function publishedPorts(ports: ComposeService["ports"]): { hostIp: string; hostPort: string | null }[] {
  return (ports ?? []).map((port) => {
    if (typeof port === "object") {
      return {
        hostIp: port.host_ip ?? "0.0.0.0",
        hostPort: port.published === undefined ? null : String(port.published),
      };
    }
    // Interpolation with a default (${HTTP_PORT:-8080}) counts as its default.
    const text = port.replace(/\$\{\w+:-([^}]+)\}/g, "$1");
    const parts = text.split(":");
    if (parts.length === 1) return { hostIp: "0.0.0.0", hostPort: null };
    if (parts.length === 2) return { hostIp: "0.0.0.0", hostPort: parts[0] as string };
    return { hostIp: parts[0] as string, hostPort: parts[1] as string };
  });
}

const isOneShot = (entry: ComposeService) => entry.restart === "no";
const networksOf = (entry: ComposeService) =>
  entry.networks === undefined
    ? ["default"]
    : Array.isArray(entry.networks)
      ? (entry.networks as string[])
      : Object.keys(entry.networks as object);

describe("docker-compose.yml", () => {
  it("scales api and worker as its header says: no replica publishes a host port or has a fixed name", () => {
    const scaled = scaledInHeader();
    expect([...scaled.keys()].sort()).toEqual(["api", "worker"]);
    expect(scaled.get("api")).toBeGreaterThan(1);
    for (const name of scaled.keys()) {
      const entry = service(name);
      expect(entry.container_name, `${name}: container_name prevents --scale`).toBeUndefined();
      expect(entry.network_mode, `${name}: host networking makes replicas share ports`).toBeUndefined();
      expect(
        publishedPorts(entry.ports).filter((port) => port.hostPort !== null),
        `${name}: a fixed host port can be published by one replica only`,
      ).toEqual([]);
    }
  });

  it("publishes ports from the proxy only, each host port once", () => {
    const publishers = Object.entries(compose.services)
      .filter(([, entry]) => (entry.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(publishers).toEqual(["proxy"]);
    const taken = Object.values(compose.services).flatMap((entry) =>
      publishedPorts(entry.ports).map((port) => `${port.hostIp}:${port.hostPort}`),
    );
    expect(new Set(taken).size).toBe(taken.length);
  });

  it("gives every long-running service a healthcheck; only the migration is one-shot", () => {
    const oneShot = Object.entries(compose.services)
      .filter(([, entry]) => isOneShot(entry))
      .map(([name]) => name);
    expect(oneShot).toEqual(["migrate"]);
    for (const [name, entry] of Object.entries(compose.services)) {
      if (isOneShot(entry)) continue;
      expect(entry.healthcheck?.test, `${name} has no healthcheck`).toBeTruthy();
      expect(entry.healthcheck?.disable, `${name}`).not.toBe(true);
      expect(entry.restart, `${name} should come back after a crash`).toBe("unless-stopped");
    }
  });

  it("checks the API on /readyz and the worker on /healthz, on the ports they listen on", () => {
    const api = service("api");
    const apiCheck = [api.healthcheck?.test ?? []].flat().join(" ");
    expect(apiCheck).toContain(`http://127.0.0.1:${api.environment?.PORT}/readyz`);
    expect(api.environment?.HOST).toBe("0.0.0.0");
    const worker = service("worker");
    const workerCheck = [worker.healthcheck?.test ?? []].flat().join(" ");
    expect(workerCheck).toContain(`http://127.0.0.1:${worker.environment?.WORKER_METRICS_PORT}/healthz`);
    expect(worker.environment?.HOST).toBe("0.0.0.0");
  });

  it("has the proxy reach every `api` replica on the API's port, on a shared network", () => {
    const proxy = service("proxy");
    expect(proxy.volumes).toContain("./deploy/compose/Caddyfile:/etc/caddy/Caddyfile:ro");
    const dynamic = /dynamic a \{\s*name (\S+)\s+port (\d+)/.exec(caddyfile);
    expect(dynamic?.[1]).toBe("api");
    expect(dynamic?.[2]).toBe(service("api").environment?.PORT);
    expect(networksOf(proxy).some((network) => networksOf(service("api")).includes(network))).toBe(true);
    expect(proxy.depends_on?.api?.condition).toBe("service_healthy");
    // The container port the proxy publishes is the one Caddy listens on.
    const listens = [...caddyfile.matchAll(/^:(\d+) \{/gm)].map((match) => match[1]);
    for (const port of proxy.ports ?? []) {
      const target = String(typeof port === "object" ? port.target : port.split(":").at(-1));
      expect(listens, `published ${target}`).toContain(target);
    }
    // Caddy keeps /metrics off the published port.
    expect(caddyfile).toMatch(/respond \/metrics 404/);
  });

  it("runs the image's commands, the migration first and once", () => {
    for (const name of ["migrate", "api", "worker"]) {
      const entry = service(name);
      expect(entry.build, `${name} is built from ./Dockerfile`).toBe(".");
      expect(entry.image).toBe(service("api").image);
    }
    expect(service("api").command).toEqual(dockerfile.cmd);
    expect(service("worker").command).toEqual(["npm", "run", "worker"]);
    expect(service("migrate").command).toEqual(["npm", "run", "migrate"]);
    expect(service("migrate").depends_on?.postgres?.condition).toBe("service_healthy");
    for (const name of ["api", "worker"]) {
      expect(service(name).depends_on?.migrate?.condition, name).toBe("service_completed_successfully");
      expect(service(name).depends_on?.redis?.condition, name).toBe("service_healthy");
    }
  });

  it("reads secrets from .env (git-ignored, .env.example committed), never inline", async () => {
    const gitignore = await readFile(path.join(REPO_ROOT, ".gitignore"), "utf8");
    expect(gitignore.split("\n")).toContain(".env");
    const example = await readFile(path.join(REPO_ROOT, ".env.example"), "utf8");
    const exampleNames = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]));
    for (const name of ["migrate", "api", "worker"]) expect(service(name).env_file, name).toBe(".env");
    // Every variable compose interpolates is documented in .env.example.
    for (const match of composeText.matchAll(/\$\{(\w+)(?::?[-?][^}]*)?\}/g)) {
      if (match[1] === "LEAD_API_IMAGE") continue; // a build tag, not a setting
      expect(exampleNames, `\${${match[1]}} is not in .env.example`).toContain(match[1]);
    }
    for (const secret of [
      "ADMIN_TOKEN",
      "POSTGRES_PASSWORD",
      "GRAFANA_ADMIN_PASSWORD",
      "GOOGLE_PLACES_API_KEY",
      "OPENAI_API_KEY",
    ]) {
      expect(exampleNames).toContain(secret);
      expect(example).toMatch(new RegExp(`^${secret}=$`, "m"));
    }
    // Secret-looking values are interpolations, not literals.
    for (const [name, entry] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(entry.environment ?? {})) {
        if (!/(TOKEN|PASSWORD|SECRET|API_KEY|DATABASE_URL)/.test(key)) continue;
        expect(String(value), `${name}.${key}`).toMatch(/\$\{\w+:\?[^}]+\}/);
      }
    }
  });

  it("keeps Redis from evicting BullMQ's keys, and its queued jobs across a restart (AOF on a volume)", () => {
    const redis = service("redis");
    const command = redis.command?.join(" ") ?? "";
    expect(command).toContain("--maxmemory-policy noeviction");
    expect(command).toContain("--appendonly yes");
    // The append-only file lives in /data (the image's working directory), on a named volume.
    expect(redis.volumes ?? []).toContain("redisdata:/data");
    expect(Object.keys(compose.volumes ?? {})).toContain("redisdata");
  });

  it("scrapes every api and worker replica and provisions the dashboard from docs/grafana", async () => {
    const prometheus = (await readYaml("deploy/compose/prometheus.yml")) as {
      scrape_configs: {
        job_name: string;
        dns_sd_configs: { names: string[]; type: string; port: number }[];
      }[];
    };
    const targets = prometheus.scrape_configs.map((scrape) => ({
      names: scrape.dns_sd_configs[0]?.names,
      port: String(scrape.dns_sd_configs[0]?.port),
    }));
    expect(targets).toContainEqual({ names: ["api"], port: service("api").environment?.PORT });
    expect(targets).toContainEqual({
      names: ["worker"],
      port: service("worker").environment?.WORKER_METRICS_PORT,
    });
    expect(service("prometheus").volumes).toContain(
      "./deploy/compose/prometheus.yml:/etc/prometheus/prometheus.yml:ro",
    );

    const grafana = service("grafana");
    const dashboards = grafana.volumes?.find((volume) => volume.startsWith("./docs/grafana:"));
    expect(dashboards).toBeDefined();
    const mountedAt = dashboards?.split(":")[1];
    await access(path.join(REPO_ROOT, "docs/grafana/lead-api-dashboard.json"));
    const provider = (await readYaml("deploy/compose/grafana/provisioning/dashboards/lead-api.yaml")) as {
      providers: { options: { path: string } }[];
    };
    expect(provider.providers[0]?.options.path).toBe(mountedAt);
    const datasources = (await readYaml(
      "deploy/compose/grafana/provisioning/datasources/prometheus.yaml",
    )) as {
      datasources: { type: string; url: string; isDefault: boolean }[];
    };
    // The dashboard picks a Prometheus data source through its $datasource variable.
    expect(datasources.datasources[0]).toMatchObject({
      type: "prometheus",
      url: "http://prometheus:9090",
      isDefault: true,
    });
    expect(grafana.volumes).toContain("./deploy/compose/grafana/provisioning:/etc/grafana/provisioning:ro");
  });
});
