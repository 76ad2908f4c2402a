/**
 * The Dockerfile linted with hadolint's rules that matter here (no container engine runs on this
 * machine), and the build context checked: what the image holds, and that nothing it runs needs a
 * dev dependency (the final stage installs with `npm ci --omit=dev`).
 */
import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import {
  buildContextFiles,
  type DockerfileModel,
  REPO_ROOT,
  readDockerfile,
} from "../../support/deploy-files.ts";

let dockerfile: DockerfileModel;
let context: string[];
let packageJson: {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

beforeAll(async () => {
  dockerfile = await readDockerfile();
  context = await buildContextFiles();
  packageJson = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8"));
});

const runSteps = (stage = dockerfile.final) =>
  stage.instructions.filter((instruction) => instruction.keyword === "RUN").map((run) => run.content);

describe("Dockerfile (hadolint rules)", () => {
  it("pins every base image to an exact version (DL3006, DL3007), and the final stage is Node 24 slim", async () => {
    for (const { from } of dockerfile.stages) {
      expect(from.tag ?? from.digest, `FROM ${from.image} has no tag`).toBeTruthy();
      expect(from.tag).not.toBe("latest");
      // A version, not a moving major tag: node:24.21.0-bookworm-slim, not node:24-slim.
      if (!from.digest) expect(from.tag, `FROM ${from.image}:${from.tag}`).toMatch(/^\d+\.\d+\.\d+/);
    }
    const base = dockerfile.final.from;
    expect(base.image).toBe("node");
    expect(base.tag).toMatch(/^24\.\d+\.\d+-[a-z]+-slim$/);
    // The image's Node is the one development pins (the `node` dev dependency in the lock).
    const lock = JSON.parse(await readFile(path.join(REPO_ROOT, "package-lock.json"), "utf8"));
    const pinned = lock.packages["node_modules/node"]?.version as string | undefined;
    expect(pinned, "the lock pins the node package").toBeTruthy();
    expect(base.tag?.split("-")[0]).toBe(pinned);
  });

  it("names its stages and copies only from an earlier named stage (DL3022, DL3023)", () => {
    const names: string[] = [];
    for (const stage of dockerfile.stages) {
      for (const { keyword, flags } of stage.instructions) {
        if (keyword !== "COPY" || !("from" in flags)) continue;
        expect(names, `COPY --from=${flags.from}`).toContain(flags.from);
      }
      expect(stage.from.stage, `FROM ${stage.from.image} has no AS name`).toBeTruthy();
      names.push(stage.from.stage as string);
    }
  });

  it("runs as a non-root user, set after the installs (DL3002)", () => {
    expect(dockerfile.user).toBeTruthy();
    expect(["root", "0", "0:0"]).not.toContain(dockerfile.user);
    const keywords = dockerfile.final.instructions.map((instruction) => instruction.keyword);
    expect(keywords.lastIndexOf("USER")).toBeGreaterThan(keywords.lastIndexOf("RUN"));
  });

  it("installs production dependencies only, from the lock, in the final stage", () => {
    const installs = runSteps().filter((run) => /\bnpm (ci|install|i)\b/.test(run));
    expect(installs).toHaveLength(1);
    expect(installs[0]).toMatch(/\bnpm ci\b[^&]*--omit=dev/);
    for (const stage of dockerfile.stages) {
      for (const run of runSteps(stage))
        expect(run, "npm install ignores the lock").not.toMatch(/\bnpm (install|i)\b/);
    }
  });

  it("installs apt packages pinned, without recommends, and removes the apt lists (DL3008, DL3015, DL3009)", () => {
    for (const stage of dockerfile.stages) {
      for (const run of runSteps(stage)) {
        const install = /apt-get install ([^&]*)/.exec(run);
        if (!install?.[1]) continue;
        expect(install[1]).toContain("--no-install-recommends");
        expect(install[1]).toMatch(/-y\b/);
        const packages = install[1].split(/\s+/).filter((word) => word && !word.startsWith("-"));
        for (const name of packages) expect(name, "apt package without a version").toMatch(/=/);
        expect(run).toContain("rm -rf /var/lib/apt/lists/*");
      }
    }
  });

  it("has no ADD, no sudo, no cd in RUN, and an absolute WORKDIR (DL3020, DL3004, DL3003, DL3000)", () => {
    for (const stage of dockerfile.stages) {
      for (const { keyword, content } of stage.instructions) {
        expect(keyword).not.toBe("ADD");
        if (keyword === "RUN") {
          expect(content).not.toMatch(/\bsudo\b/);
          expect(content).not.toMatch(/(^|&&|;)\s*cd\s/);
        }
        if (keyword === "WORKDIR") expect(content).toMatch(/^\//);
      }
    }
  });

  it("bakes no secret into ENV or ARG", () => {
    const secretName = /(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|PRIVATE|CREDENTIAL|DATABASE_URL|REDIS_URL)/i;
    for (const name of Object.keys(dockerfile.env)) expect(name, `ENV ${name}`).not.toMatch(secretName);
    for (const stage of dockerfile.stages) {
      for (const { keyword, content } of stage.instructions) {
        if (keyword === "ARG") expect(content, `ARG ${content}`).not.toMatch(secretName);
      }
    }
  });

  it("starts under tini (signals forwarded, zombies reaped) with `npm start` in the exec form", () => {
    expect(dockerfile.entrypoint[0]).toMatch(/(^|\/)tini$/);
    expect(dockerfile.entrypoint.slice(1)).toEqual(["--"]);
    const tiniCopy = dockerfile.final.instructions.find(
      (instruction) => instruction.keyword === "COPY" && "from" in instruction.flags,
    );
    expect(tiniCopy?.content).toMatch(new RegExp(`\\s${dockerfile.entrypoint[0]}$`));
    expect(dockerfile.cmd).toEqual(["npm", "start"]);
    expect(dockerfile.env.NODE_ENV).toBe("production");
    // The container answers on every interface; the healthcheck and probes use these ports.
    expect(dockerfile.env.HOST).toBe("0.0.0.0");
    expect(dockerfile.env.PORT).toBe("3000");
  });

  it("checks its health on /readyz with Node's fetch (slim images have no curl)", () => {
    const healthcheck = dockerfile.healthcheck;
    expect(healthcheck).not.toBeNull();
    expect(healthcheck?.command.slice(0, 2)).toEqual(["node", "-e"]);
    expect(healthcheck?.command[2]).toContain("/readyz");
    expect(healthcheck?.command[2]).toContain("process.env.PORT");
    for (const flag of ["interval", "timeout", "start-period", "retries"]) {
      expect(healthcheck?.flags[flag], `HEALTHCHECK --${flag}`).toBeTruthy();
    }
  });
});

describe("the build context (.dockerignore)", () => {
  it("holds the code, the migrations, the served reference and the lock; no secrets, tests or modules", () => {
    for (const needed of [
      "package.json",
      "package-lock.json",
      "api/server.ts",
      "api/docs/reference.md",
      "cli/admin.ts",
      "workers/audit-worker.ts",
      "shared/db/migrate-cli.ts",
      "fixtures/places.example.json",
    ]) {
      expect(context, needed).toContain(needed);
    }
    expect(context.some((file) => file.startsWith("migrations/"))).toBe(true);
    for (const file of context) {
      expect(file).not.toMatch(/^(node_modules|\.git|test|bench|\.data|coverage)\//);
      expect(file).not.toMatch(/(^|\/)\.env$/);
      expect(file).not.toMatch(/\.test\.ts$/);
    }
  });

  it("runs the process types from files in the image, with `exec node` (the base image's node)", () => {
    // `exec`: npm runs a script as `sh -c "..."`; without exec, the SIGTERM that npm forwards
    // (from tini) ends `sh` and leaves node running, never told to shut down gracefully.
    for (const script of ["start", "worker", "migrate"]) {
      const command = packageJson.scripts[script];
      const match = /^exec node (\S+\.ts)$/.exec(command ?? "");
      expect(match, `npm run ${script}: ${command}`).not.toBeNull();
      expect(context).toContain(match?.[1]);
    }
  });

  it("imports no dev dependency from any file it ships (type-only imports are erased)", async () => {
    const builtins = new Set(builtinModules);
    const problems: string[] = [];
    // Module specifiers that exist at run time, read with TypeScript's parser: import and export
    // declarations that are not type-only, and import() calls.
    const specifiers = (file: string, text: string): string[] => {
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
      const found: string[] = [];
      const visit = (node: ts.Node) => {
        if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
          if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
        } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier) {
          if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
        } else if (
          ts.isCallExpression(node) &&
          node.expression.kind === ts.SyntaxKind.ImportKeyword &&
          node.arguments[0] &&
          ts.isStringLiteral(node.arguments[0])
        ) {
          found.push(node.arguments[0].text);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
      return found;
    };
    for (const file of context.filter((name) => name.endsWith(".ts"))) {
      const text = await readFile(path.join(REPO_ROOT, file), "utf8");
      for (const specifier of specifiers(file, text)) {
        if (specifier.startsWith(".") || specifier.startsWith("node:") || builtins.has(specifier)) continue;
        const name = specifier.startsWith("@")
          ? specifier.split("/").slice(0, 2).join("/")
          : specifier.split("/")[0];
        if (!name || !(name in packageJson.dependencies)) problems.push(`${file}: ${specifier}`);
      }
    }
    expect(problems, "imports of packages that are not production dependencies").toEqual([]);
  });
});
