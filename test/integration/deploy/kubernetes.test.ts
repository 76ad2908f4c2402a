/**
 * deploy/kubernetes validated offline: every resource of the kustomization (and the example
 * Secret) against the Kubernetes JSON schemas (kubernetes-models: types, formats, required
 * fields, enums), then what a schema cannot see: selectors that select, probes on declared ports,
 * resources on every container, the image's commands, the references between resources, and the
 * autoscaler's metric matching the adapter rule that produces it.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Job } from "kubernetes-models/batch/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, Secret, Service } from "kubernetes-models/v1";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type DockerfileModel,
  KUBERNETES_DIR,
  REPO_ROOT,
  readDockerfile,
  readYaml,
  readYamlDocuments,
} from "../../support/deploy-files.ts";

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "v1/Namespace": Namespace,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "apps/v1/StatefulSet": StatefulSet,
  "batch/v1/Job": Job,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
};

/** Files in the folder that are not resources of the kustomization, and why. */
const NOT_RESOURCES = {
  "kustomization.yaml": "the kustomization itself",
  "secret.example.yaml": "the operator creates the Secret from a vault",
  "prometheus-adapter-rules.yaml": "Helm values for the Prometheus adapter",
};

interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are untyped YAML; each check reads what it needs
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  ports?: { name: string; containerPort: number }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: { name: string; value: string }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  startupProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean };
}

let kustomization: {
  resources: string[];
  namespace: string;
  images: { name: string; newName: string; newTag: string }[];
};
let resources: Resource[];
let secretExample: Resource;
let dockerfile: DockerfileModel;

beforeAll(async () => {
  kustomization = (await readYaml("deploy/kubernetes/kustomization.yaml")) as typeof kustomization;
  resources = [];
  for (const file of kustomization.resources) {
    resources.push(...((await readYamlDocuments(`deploy/kubernetes/${file}`)) as Resource[]));
  }
  const [secret] = (await readYamlDocuments("deploy/kubernetes/secret.example.yaml")) as Resource[];
  if (!secret) throw new Error("secret.example.yaml is empty");
  secretExample = secret;
  dockerfile = await readDockerfile();
});

const find = (kind: string, name: string): Resource => {
  const found = resources.find((resource) => resource.kind === kind && resource.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the kustomization`);
  return found;
};
const deployments = () => resources.filter((resource) => resource.kind === "Deployment");
const podSpecs = () =>
  resources
    .filter((resource) => resource.kind === "Deployment" || resource.kind === "Job")
    .map((resource) => ({ resource, pod: resource.spec.template.spec }));
const selects = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);
const onlyContainer = (resource: Resource): Container => {
  const containers = resource.spec.template.spec.containers as Container[];
  expect(containers, `${resource.metadata.name}`).toHaveLength(1);
  return containers[0] as Container;
};

describe("deploy/kubernetes", () => {
  it("lists every manifest of the folder in the kustomization, and only existing files", async () => {
    const files = (await readdir(KUBERNETES_DIR)).filter((file) => file.endsWith(".yaml")).sort();
    const expected = [...kustomization.resources, ...Object.keys(NOT_RESOURCES)].sort();
    expect(files).toEqual(expected);
  });

  it("validates every resource against the Kubernetes schemas", () => {
    expect(resources.length).toBeGreaterThanOrEqual(9);
    for (const resource of [...resources, secretExample]) {
      const Model = MODELS[`${resource.apiVersion}/${resource.kind}`];
      expect(Model, `no schema for ${resource.apiVersion} ${resource.kind}`).toBeDefined();
      const model = new (Model as NonNullable<typeof Model>)(resource as never);
      expect(() => model.validate(), `${resource.kind} ${resource.metadata.name}`).not.toThrow();
    }
  });

  it("catches a schema violation (the validation is not a no-op)", () => {
    const api = structuredClone(find("Deployment", "lead-api"));
    api.spec.template.spec.containers[0].readinessProbe.periodSeconds = "often";
    expect(() => new Deployment(api as never).validate()).toThrow(/periodSeconds/);
    const noSelector = structuredClone(find("Deployment", "lead-api"));
    delete noSelector.spec.selector;
    expect(() => new Deployment(noSelector as never).validate()).toThrow(/selector/);
  });

  it("has Deployment selectors that select their own pods, and a Service and PDBs that select pods", () => {
    for (const deployment of deployments()) {
      expect(selects(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels)).toBe(
        true,
      );
    }
    const service = find("Service", "lead-api");
    const served = deployments().filter((deployment) =>
      selects(service.spec.selector, deployment.spec.template.metadata.labels),
    );
    expect(served.map((deployment) => deployment.metadata.name)).toEqual(["lead-api"]);
    expect(service.spec.ports[0].targetPort).toBe("http");
    const pdbs = resources.filter((resource) => resource.kind === "PodDisruptionBudget");
    expect(pdbs).toHaveLength(2);
    for (const pdb of pdbs) {
      const covered = deployments().filter((deployment) =>
        selects(pdb.spec.selector.matchLabels, deployment.spec.template.metadata.labels),
      );
      expect(covered, `PDB ${pdb.metadata.name}`).toHaveLength(1);
    }
  });

  it("probes the API on /readyz and /healthz and the worker on its metrics port, on declared ports", () => {
    const config = find("ConfigMap", "lead-api-config").data ?? {};
    const api = onlyContainer(find("Deployment", "lead-api"));
    expect(api.readinessProbe?.httpGet?.path).toBe("/readyz");
    // Liveness must not follow the database: a PostgreSQL outage would restart every node.
    expect(api.livenessProbe?.httpGet?.path).toBe("/healthz");
    expect(api.ports?.find((port) => port.name === "http")?.containerPort).toBe(Number(config.PORT));
    const worker = onlyContainer(find("Deployment", "lead-api-worker"));
    expect(worker.livenessProbe?.httpGet?.path).toBe("/healthz");
    expect(worker.readinessProbe?.httpGet?.path).toBe("/healthz");
    expect(worker.ports?.find((port) => port.name === "metrics")?.containerPort).toBe(
      Number(config.WORKER_METRICS_PORT),
    );
    expect(config.HOST).toBe("0.0.0.0");
    for (const container of [api, worker]) {
      const names = (container.ports ?? []).map((port) => port.name);
      for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
        expect(probe?.httpGet, `${container.name}: every probe is an HTTP GET`).toBeDefined();
        expect(names).toContain(probe?.httpGet?.port);
      }
    }
  });

  it("gives every container requests and limits, a non-root user and the grace its shutdown needs", () => {
    for (const { resource, pod } of podSpecs()) {
      expect(pod.securityContext?.runAsNonRoot, resource.metadata.name).toBe(true);
      for (const container of pod.containers as Container[]) {
        for (const kind of ["requests", "limits"] as const) {
          expect(container.resources?.[kind]?.cpu, `${container.name} ${kind}.cpu`).toBeTruthy();
          expect(container.resources?.[kind]?.memory, `${container.name} ${kind}.memory`).toBeTruthy();
        }
        expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
      }
    }
    // closeWithGrace waits 60 s for in-flight requests; the worker finishes its active audits.
    expect(find("Deployment", "lead-api").spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(
      60,
    );
    expect(
      find("Deployment", "lead-api-worker").spec.template.spec.terminationGracePeriodSeconds,
    ).toBeGreaterThan(30);
  });

  it("runs the image's commands: the default for the API, npm run worker, npm run migrate", () => {
    const imageName = kustomization.images[0]?.name;
    for (const { pod } of podSpecs()) {
      for (const container of pod.containers as Container[]) {
        expect(container.image, "kustomize `images` rewrites this name").toBe(imageName);
        // `command` would replace tini, the image's entry point.
        expect(container.command, container.name).toBeUndefined();
      }
    }
    expect(onlyContainer(find("Deployment", "lead-api")).args ?? dockerfile.cmd).toEqual(["npm", "start"]);
    expect(onlyContainer(find("Deployment", "lead-api-worker")).args).toEqual(["npm", "run", "worker"]);
    const job = find("Job", "lead-api-migrate");
    expect(onlyContainer(job).args).toEqual(["npm", "run", "migrate"]);
    expect(job.spec.template.spec.restartPolicy).toBe("Never");
  });

  it("reads settings from the ConfigMap and secrets from the Secret, and the ConfigMap holds no secret", () => {
    const secretName = secretExample.metadata.name;
    for (const { resource, pod } of podSpecs()) {
      for (const container of pod.containers as Container[]) {
        const refs = container.envFrom ?? [];
        expect(refs.map((ref) => ref.configMapRef?.name).filter(Boolean), resource.metadata.name).toEqual([
          "lead-api-config",
        ]);
        expect(refs.map((ref) => ref.secretRef?.name).filter(Boolean)).toEqual([secretName]);
      }
    }
    const config = find("ConfigMap", "lead-api-config").data ?? {};
    for (const key of Object.keys(config)) {
      expect(key).not.toMatch(/(TOKEN|PASSWORD|SECRET|API_KEY|DATABASE_URL|REDIS_URL)/);
    }
    for (const key of ["DATABASE_URL", "REDIS_URL", "ADMIN_TOKEN"]) {
      expect(Object.keys(secretExample.stringData ?? {})).toContain(key);
    }
    expect(kustomization.resources).not.toContain("secret.example.yaml");
  });

  it("runs Redis with an append-only file on a volume and noeviction, behind the Service REDIS_URL names", () => {
    const redis = find("StatefulSet", "redis");
    const pod = redis.spec.template.spec;
    const container = onlyContainer(redis);
    const args = (container.args ?? []).join(" ");
    expect(args).toContain("--appendonly yes");
    expect(args).toContain("--maxmemory-policy noeviction");
    // noeviction only refuses writes below a maxmemory; without one the container is killed instead.
    expect(args).toMatch(/--maxmemory \d+mb/);
    const dir = /--dir (\S+)/.exec(args)?.[1];
    const mount = (
      container as Container & { volumeMounts?: { name: string; mountPath: string }[] }
    ).volumeMounts?.find((volume) => volume.mountPath === dir);
    expect(mount, "the append-only file's folder is a mounted volume").toBeDefined();
    expect(
      (redis.spec.volumeClaimTemplates as { metadata: { name: string } }[]).map(
        (claim) => claim.metadata.name,
      ),
    ).toContain(mount?.name);
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    for (const kind of ["requests", "limits"] as const) {
      expect(container.resources?.[kind]?.memory, `redis ${kind}.memory`).toBeTruthy();
    }
    // The Service selects the Redis pod, on the host and port of the example Secret's REDIS_URL.
    const service = find("Service", "redis");
    expect(selects(service.spec.selector, redis.spec.template.metadata.labels)).toBe(true);
    const url = new URL(secretExample.stringData?.REDIS_URL ?? "");
    expect(url.hostname).toBe(service.metadata.name);
    expect(Number(url.port)).toBe(service.spec.ports[0].port);
    expect(container.ports?.map((port) => port.name)).toContain(service.spec.ports[0].targetPort);
    // The app's Service selects the API pods only, not Redis.
    expect(selects(find("Service", "lead-api").spec.selector, redis.spec.template.metadata.labels)).toBe(
      false,
    );
  });

  it("autoscales workers on the outstanding-jobs metric that the adapter rule produces", async () => {
    const hpa = find("HorizontalPodAutoscaler", "lead-api-worker");
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: "Deployment", name: "lead-api-worker" });
    expect(
      find("Deployment", "lead-api-worker").spec.replicas,
      "the HPA owns the replica count",
    ).toBeUndefined();
    const metric = hpa.spec.metrics[0];
    expect(metric.type).toBe("External");
    const adapter = (await readYaml("deploy/kubernetes/prometheus-adapter-rules.yaml")) as {
      rules: { external: { name: { as: string }; metricsQuery: string }[] };
    };
    const rule = adapter.rules.external.find(
      (candidate) => candidate.name.as === metric.external.metric.name,
    );
    expect(rule, `no adapter rule produces ${metric.external.metric.name}`).toBeDefined();
    // Series the processes really export (shared/metrics.ts).
    const metricsSource = await readFile(path.join(REPO_ROOT, "shared/metrics.ts"), "utf8");
    for (const series of rule?.metricsQuery.match(/leadapi_\w+/g) ?? []) {
      expect(metricsSource).toContain(`\${METRICS_PREFIX}${series.replace(/^leadapi_/, "")}`);
    }
    // The per-worker target stays under what one worker holds in flight.
    const concurrency = Number(find("ConfigMap", "lead-api-config").data?.AUDIT_CONCURRENCY);
    expect(Number(metric.external.target.averageValue)).toBeLessThanOrEqual(concurrency);
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
  });

  it("carries a sizing note that cites the bench it comes from", async () => {
    for (const file of ["api-deployment.yaml", "worker-deployment.yaml"]) {
      const text = await readFile(path.join(KUBERNETES_DIR, file), "utf8");
      expect(text, file).toContain("SIZING NOTE");
    }
    const api = await readFile(path.join(KUBERNETES_DIR, "api-deployment.yaml"), "utf8");
    const cited = /bench\/[\w-]+\.bench\.ts/.exec(api)?.[0];
    expect(cited).toBeDefined();
    await readFile(path.join(REPO_ROOT, cited as string));
  });
});
