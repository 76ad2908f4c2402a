import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  findFolderCycles,
  findWrongWayImports,
  folderGraph,
  folderOf,
  mutualFolderPairs,
  shortestLoop,
  withoutPairs,
} from "../../support/architecture/folder-rules.ts";
import { functionsOf } from "../../support/architecture/functions.ts";
import { type ImportLine, importsOf } from "../../support/architecture/imports.ts";

/** A source file parsed from text held in memory. */
const parsed = (file: string, text: string) => ({
  file,
  source: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS),
});

/** An import line from `file` to the repository file `target`, as the reader would report it. */
const local = (file: string, target: string, line = 1): ImportLine => ({
  file,
  line,
  text: `import { x } from "${target}";`,
  target,
  local: true,
});

describe("reading imports", () => {
  it("finds imports, type-only imports, re-exports, import() calls and import types, resolved from the file", () => {
    const found = importsOf(
      parsed(
        "shared/accounts/members.ts",
        [
          'import { a } from "../oauth/secrets.ts";',
          'import type { B } from "./types.ts";',
          'import { type C } from "fastify";',
          'export { d } from "../db/database.ts";',
          'export * from "./index.ts";',
          "const e = await import('../../api/app.ts');",
          'type F = import("node:http").IncomingMessage;',
          "const g = await import(name);",
        ].join("\n"),
      ),
    );
    expect(found.map(({ line, target, local, computed }) => ({ line, target, local, computed }))).toEqual([
      { line: 1, target: "shared/oauth/secrets.ts", local: true, computed: undefined },
      { line: 2, target: "shared/accounts/types.ts", local: true, computed: undefined },
      { line: 3, target: "fastify", local: false, computed: undefined },
      { line: 4, target: "shared/db/database.ts", local: true, computed: undefined },
      { line: 5, target: "shared/accounts/index.ts", local: true, computed: undefined },
      { line: 6, target: "api/app.ts", local: true, computed: undefined },
      { line: 7, target: "node:http", local: false, computed: undefined },
      { line: 8, target: "", local: false, computed: true },
    ]);
    expect(found[1]!.text).toBe('import type { B } from "./types.ts";');
  });
});

describe("folders", () => {
  it("are a file's top folder and the one below it; a file at the top is a unit of its own", () => {
    expect(folderOf("api/console/routes/leads.ts")).toBe("api/console");
    expect(folderOf("shared/accounts/accounts.ts")).toBe("shared/accounts");
    expect(folderOf("shared/metrics.ts")).toBe("shared/metrics.ts");
    expect(folderOf("bench/run.ts")).toBe("bench/run.ts");
  });

  it("find no cycle in a graph that points one way, imports inside a folder ignored", () => {
    const graph = folderGraph([
      local("api/v1/leads.ts", "shared/leads/leads.ts"),
      local("shared/leads/leads.ts", "shared/db/database.ts"),
      local("shared/db/database.ts", "shared/db/schema.ts"),
      local("api/app.ts", "api/v1/index.ts"),
    ]);
    expect(findFolderCycles(graph)).toEqual([]);
    expect(mutualFolderPairs(graph)).toEqual([]);
  });

  it("find two folders that import each other, with the lines that do it", () => {
    const there = local("shared/accounts/sessions.ts", "shared/oauth/secrets.ts", 4);
    const back = local("shared/oauth/authorization.ts", "shared/accounts/accounts.ts", 2);
    const graph = folderGraph([there, back, local("shared/oauth/grants.ts", "shared/db/database.ts")]);
    expect(mutualFolderPairs(graph)).toEqual(["shared/accounts <-> shared/oauth"]);
    expect(findFolderCycles(graph)).toEqual([
      {
        key: "shared/accounts <-> shared/oauth",
        folders: ["shared/accounts", "shared/oauth"],
        imports: [there, back],
      },
    ]);
  });

  it("find a loop of three folders that no pair of them makes, and its shortest path", () => {
    const graph = folderGraph([
      local("api/console/layout.ts", "api/legal/paths.ts"),
      local("api/legal/pages.ts", "api/plugins/errors.ts"),
      local("api/plugins/openapi.ts", "api/console/html.ts"),
      local("api/console/index.ts", "shared/db/database.ts"),
    ]);
    expect(mutualFolderPairs(graph)).toEqual([]);
    const [cycle, ...others] = findFolderCycles(graph);
    expect(others).toEqual([]);
    expect(cycle!.key).toBe("api/console <-> api/legal <-> api/plugins");
    expect(shortestLoop(graph, cycle!).map(({ from, to }) => `${from} -> ${to}`)).toEqual([
      "api/console -> api/legal",
      "api/legal -> api/plugins",
      "api/plugins -> api/console",
    ]);
  });

  it("excuse the loops that run through an allowlisted pair, not the others", () => {
    const graph = folderGraph([
      local("shared/a/x.ts", "shared/b/x.ts"),
      local("shared/b/x.ts", "shared/a/x.ts"),
      // A loop a -> b -> c -> a runs through the pair; d <-> e does not.
      local("shared/b/y.ts", "shared/c/x.ts"),
      local("shared/c/x.ts", "shared/a/x.ts"),
      local("shared/d/x.ts", "shared/e/x.ts"),
      local("shared/e/x.ts", "shared/d/x.ts"),
    ]);
    expect(findFolderCycles(graph).map(({ key }) => key)).toEqual([
      "shared/a <-> shared/b <-> shared/c",
      "shared/d <-> shared/e",
    ]);
    const reduced = withoutPairs(graph, ["shared/a <-> shared/b"]);
    expect(findFolderCycles(reduced).map(({ key }) => key)).toEqual(["shared/d <-> shared/e"]);
  });
});

describe("wrong-way imports", () => {
  it("name the rule each breaks, and let the right way through", () => {
    const fastify: ImportLine = { ...local("shared/x/y.ts", ""), target: "@fastify/cookie", local: false };
    const computed: ImportLine = { ...local("api/x.ts", ""), target: "", computed: true };
    const found = findWrongWayImports([
      local("shared/leads/leads.ts", "api/schemas.ts"),
      local("shared/audit/queue.ts", "workers/build-worker.ts"),
      local("api/app.ts", "workers/metrics-server.ts"),
      local("workers/audit-worker.ts", "api/services.ts"),
      local("migrations/0014_x.ts", "shared/db/schema.ts"),
      fastify,
      computed,
      // The right way: doors and workers on the domain, a migration on a package.
      local("api/v1/leads.ts", "shared/leads/leads.ts"),
      local("workers/audit-worker.ts", "shared/config.ts"),
      { ...local("migrations/0001_initial.ts", ""), target: "kysely", local: false },
      { ...local("api/app.ts", ""), target: "fastify", local: false },
    ]);
    expect(found.map(({ rule }) => rule)).toEqual([
      "shared/ imports api/",
      "shared/ imports workers/",
      "api/ imports workers/",
      "workers/ imports api/",
      "a migration imports application code",
      "domain code (shared/) imports Fastify",
      "an import whose target is computed (the fence cannot read it)",
    ]);
  });
});

describe("function lengths", () => {
  it("measure declarations, arrows, methods and nested functions by the lines they span", () => {
    const text = [
      "export function outer() {", // 1
      "  const inner = (a: number) => {", // 2
      "    return a;", // 3
      "  };", // 4
      "  return inner;", // 5
      "}", // 6
      "class Store {", // 7
      "  read() { return 1; }", // 8
      "}", // 9
      "export const routes = { list: function () {} };", // 10
      "function declared(): void;", // 11: an overload without a body is no function
    ].join("\n");
    expect(
      functionsOf(parsed("api/x.ts", text)).map(({ name, line, lines }) => ({ name, line, lines })),
    ).toEqual([
      { name: "outer", line: 1, lines: 6 },
      { name: "inner", line: 2, lines: 3 },
      { name: "Store.read", line: 8, lines: 1 },
      { name: "list", line: 10, lines: 1 },
    ]);
  });
});
