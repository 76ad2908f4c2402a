/**
 * The deployment files as the tests read them: the Dockerfile (parsed with dockerfile-ast), the
 * build context that .dockerignore lets through (@balena/dockerignore, Docker's own matching
 * rules), the compose file and the Kubernetes manifests (yaml). And the image emulated on this
 * machine: the final stage's COPY and `npm ci` steps replayed into a temp folder, so that the
 * start commands run with exactly the image's files and dependencies (no dev dependency, no
 * `node_modules/.bin/node`: `node` is a Node 24 binary on PATH, as in the base image).
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, readdir, readFile, symlink } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import dockerignoreModule from "@balena/dockerignore";
import { DockerfileParser, type Instruction, type JSONInstruction } from "dockerfile-ast";
import { parse, parseAllDocuments } from "yaml";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const KUBERNETES_DIR = path.join(REPO_ROOT, "deploy/kubernetes");

const run = promisify(execFile);
// The package is CommonJS (`module.exports = factory`) but its .d.ts declares an ES default export:
// at run time the default import is the factory itself.
const dockerignore = dockerignoreModule as unknown as typeof dockerignoreModule.default;

interface DockerfileFrom {
  image: string;
  tag: string | null;
  digest: string | null;
  stage: string | null;
}

interface DockerfileStage {
  from: DockerfileFrom;
  instructions: { keyword: string; content: string; flags: Record<string, string | null> }[];
}

export interface DockerfileModel {
  text: string;
  stages: DockerfileStage[];
  /** The last stage: what `docker build` produces. */
  final: DockerfileStage;
  /** ENV of the final stage, in order. */
  env: Record<string, string>;
  /** The last USER of the final stage, or null. */
  user: string | null;
  cmd: string[];
  entrypoint: string[];
  healthcheck: { flags: Record<string, string | null>; command: string[] } | null;
}

function jsonArguments(instruction: Instruction, what: string): string[] {
  const strings = (instruction as JSONInstruction).getJSONStrings?.() ?? [];
  if (strings.length === 0)
    throw new Error(`${what} must use the JSON (exec) form: ${instruction.getTextContent()}`);
  return strings.map((value) => value.getJSONValue());
}

export async function readDockerfile(): Promise<DockerfileModel> {
  const text = await readFile(path.join(REPO_ROOT, "Dockerfile"), "utf8");
  const dockerfile = DockerfileParser.parse(text);
  const stages: DockerfileStage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    const flags: Record<string, string | null> = {};
    const withFlags = instruction as Instruction & {
      getFlags?: () => { getName(): string; getValue(): string | null }[];
    };
    for (const flag of withFlags.getFlags?.() ?? []) flags[flag.getName()] = flag.getValue();
    if (keyword === "FROM") {
      const from = dockerfile
        .getFROMs()
        .find((candidate) => candidate.getRange().start.line === instruction.getRange().start.line);
      if (!from) throw new Error(`unparsed FROM: ${instruction.getTextContent()}`);
      stages.push({
        from: {
          image: from.getImageName() ?? "",
          tag: from.getImageTag(),
          digest: from.getImageDigest(),
          stage: from.getBuildStage(),
        },
        instructions: [],
      });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`${keyword} before the first FROM`);
    stage.instructions.push({ keyword, content: instruction.getArgumentsContent() ?? "", flags });
  }
  const final = stages.at(-1);
  if (!final) throw new Error("the Dockerfile has no FROM");

  const finalFrom = dockerfile.getFROMs().at(-1);
  const inFinal = <T extends Instruction>(list: T[]) =>
    list.filter(
      (instruction) => finalFrom && instruction.getRange().start.line > finalFrom.getRange().start.line,
    );
  const env: Record<string, string> = {};
  for (const instruction of inFinal(dockerfile.getENVs())) {
    for (const property of instruction.getProperties()) env[property.getName()] = property.getValue() ?? "";
  }
  const users = inFinal(
    dockerfile.getInstructions().filter((instruction) => instruction.getKeyword() === "USER"),
  );
  const cmds = inFinal(dockerfile.getCMDs());
  const entrypoints = inFinal(dockerfile.getENTRYPOINTs());
  const healthchecks = inFinal(dockerfile.getHEALTHCHECKs());
  let healthcheck: DockerfileModel["healthcheck"] = null;
  const lastHealthcheck = healthchecks.at(-1);
  if (lastHealthcheck) {
    const flags: Record<string, string | null> = {};
    for (const flag of lastHealthcheck.getFlags()) flags[flag.getName()] = flag.getValue();
    const content = lastHealthcheck.getArgumentsContent() ?? "";
    const form = /^CMD\s+(\[.*\])\s*$/s.exec(content);
    if (!form?.[1]) throw new Error(`HEALTHCHECK must be CMD in the JSON (exec) form: ${content}`);
    healthcheck = { flags, command: JSON.parse(form[1]) as string[] };
  }
  const lastCmd = cmds.at(-1);
  const lastEntrypoint = entrypoints.at(-1);
  return {
    text,
    stages,
    final,
    env,
    user: users.at(-1)?.getArgumentsContent() ?? null,
    cmd: lastCmd ? jsonArguments(lastCmd, "CMD") : [],
    entrypoint: lastEntrypoint ? jsonArguments(lastEntrypoint, "ENTRYPOINT") : [],
    healthcheck,
  };
}

/** The build context's files (paths relative to the repository, "/" separated) after .dockerignore. */
export async function buildContextFiles(): Promise<string[]> {
  const patterns = (await readFile(path.join(REPO_ROOT, ".dockerignore"), "utf8"))
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const ignore = dockerignore({ ignorecase: false }).add(patterns);
  const exceptions = patterns.filter((pattern) => pattern.startsWith("!")).map((pattern) => pattern.slice(1));
  const files: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(path.join(REPO_ROOT, relative), { withFileTypes: true });
    for (const entry of entries) {
      const entryPath = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        // An ignored folder is skipped whole unless an exception reaches inside it.
        const reachable = exceptions.some((exception) => exception.startsWith(`${entryPath}/`));
        if (ignore.ignores(`${entryPath}/`) && !reachable) continue;
        await walk(entryPath);
      } else if (entry.isFile() && !ignore.ignores(entryPath)) {
        files.push(entryPath);
      }
    }
  };
  await walk("");
  return files.sort();
}

export interface StagedImage {
  /** The image's WORKDIR, here. */
  appDir: string;
  /** PATH inside the "image": a folder with `node` (Node 24), then the system's npm. */
  path: string;
  /** The image's ENV, with PATH and a HOME for npm. */
  env: Record<string, string>;
}

/** Node 24 for the staged image: this process when it is one, else the pinned `node` package's. */
function node24Binary(): string {
  const major = Number(process.versions.node.split(".")[0]);
  return major >= 24 ? process.execPath : path.join(REPO_ROOT, "node_modules/node/bin/node");
}

/** The RUN steps of the final stage this emulation may skip, and why. */
const SKIPPED_RUN_STEPS: { pattern: RegExp; why: string }[] = [
  { pattern: /^npm cache clean --force$/, why: "must not clean this machine's npm cache" },
  { pattern: /^mkdir -p \/data$/, why: "DATA_DIR is only for embedded mode; the test uses PostgreSQL" },
  { pattern: /^chown node:node \/data$/, why: "no /data here" },
];

/**
 * Replays the final stage into `root`: WORKDIR becomes `root/app`, COPY of the build context
 * (after .dockerignore) copies files, the `npm ci` step runs there with `--offline` (from this
 * machine's npm cache, no network). Any other instruction that changes files fails loudly, so a new
 * build step is never silently left out of what the tests run.
 */
export async function stageImage(root: string, dockerfile: DockerfileModel): Promise<StagedImage> {
  const appDir = path.join(root, "app");
  const binDir = path.join(root, "bin");
  const homeDir = path.join(root, "home");
  await mkdir(appDir, { recursive: true });
  await mkdir(binDir, { recursive: true });
  await mkdir(homeDir, { recursive: true });
  await symlink(node24Binary(), path.join(binDir, "node"));
  const pathValue = [binDir, "/usr/local/bin", "/usr/bin", "/bin"].join(":");
  const env: Record<string, string> = { ...dockerfile.env, PATH: pathValue, HOME: homeDir };
  const context = await buildContextFiles();

  for (const { keyword, content, flags } of dockerfile.final.instructions) {
    if (keyword === "COPY" && "from" in flags) continue; // tini: the entry point, not run here
    if (keyword === "COPY") {
      const parts = content.split(/\s+/).filter((part) => !part.startsWith("--"));
      const destination = parts.pop();
      if (destination !== "./" && destination !== ".") {
        throw new Error(`COPY into ${destination}: the emulation copies into WORKDIR only`);
      }
      for (const source of parts) {
        const chosen = source === "." ? context : context.filter((file) => file === source);
        if (chosen.length === 0) throw new Error(`COPY ${source}: not in the build context`);
        for (const file of chosen) {
          await mkdir(path.dirname(path.join(appDir, file)), { recursive: true });
          await copyFile(path.join(REPO_ROOT, file), path.join(appDir, file));
        }
      }
    } else if (keyword === "RUN") {
      for (const step of content.split("&&").map((part) => part.replace(/\s+/g, " ").trim())) {
        if (step.startsWith("npm ci ")) {
          const [file, ...args] = step.split(" ");
          await run(file as string, [...args, "--offline"], {
            cwd: appDir,
            // HOME stays this machine's: the npm cache (~/.npm) is where --offline reads from.
            env: { ...env, HOME: process.env.HOME ?? homeDir },
            maxBuffer: 16 * 1024 * 1024,
          });
        } else if (!SKIPPED_RUN_STEPS.some(({ pattern }) => pattern.test(step))) {
          throw new Error(`RUN step "${step}": the image emulation does not know it; add it to stageImage`);
        }
      }
    } else if (keyword === "ADD") {
      throw new Error("ADD: use COPY (and the emulation does not replay ADD)");
    }
  }
  return { appDir, path: pathValue, env };
}

export async function readYaml(relativePath: string): Promise<unknown> {
  // Compose uses YAML merge keys (<<: *anchor); Kubernetes files do not.
  return parse(await readFile(path.join(REPO_ROOT, relativePath), "utf8"), { merge: true });
}

/** Every document of a (possibly multi-document) YAML file. */
export async function readYamlDocuments(relativePath: string): Promise<unknown[]> {
  const documents = parseAllDocuments(await readFile(path.join(REPO_ROOT, relativePath), "utf8"));
  return documents.map((document) => {
    if (document.errors.length > 0) throw new Error(`${relativePath}: ${document.errors[0]?.message}`);
    return document.toJS();
  });
}
