import { type ImportLine, packageOf } from "./imports.ts";

/*
 * The rules of the layout over the imports, as pure functions (their unit tests feed them graphs
 * built in memory).
 */

/**
 * The unit the layout rules speak of, at the granularity issue 27 counted its folder pairs: a
 * file's top folder and the one below it (`api/console` for `api/console/routes/leads.ts`); a file
 * directly in a top folder is a unit of its own (`shared/metrics.ts`, `api/app.ts`), since
 * `api/app.ts` assembles every door that `api/services.ts` serves.
 */
export function folderOf(file: string): string {
  const parts = file.split("/").slice(0, -1);
  return parts.length < 2 ? file : parts.slice(0, 2).join("/");
}

/** Imports from one folder to another, grouped: `graph.get(from).get(to)` holds the import lines. */
export type FolderGraph = Map<string, Map<string, ImportLine[]>>;

export function folderGraph(imports: readonly ImportLine[]): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const line of imports) {
    if (!line.local) continue;
    const from = folderOf(line.file);
    const to = folderOf(line.target);
    if (from === to) continue;
    const edges = graph.get(from) ?? new Map<string, ImportLine[]>();
    graph.set(from, edges);
    edges.set(to, [...(edges.get(to) ?? []), line]);
  }
  return graph;
}

/** Folders that import one another, directly or round a longer loop, and the lines that do it. */
export interface FolderCycle {
  /** The folders, sorted; also the allowlist's key: `shared/accounts <-> shared/oauth`. */
  key: string;
  folders: string[];
  /** Every import from one of these folders to another of them. */
  imports: ImportLine[];
}

/**
 * The cycles of the folder graph: its strongly connected components of more than one folder
 * (Tarjan's algorithm). Two folders importing each other make one; so does a loop of three.
 */
export function findFolderCycles(graph: FolderGraph): FolderCycle[] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const nodes = new Set<string>([...graph.keys()]);
  for (const edges of graph.values()) for (const to of edges.keys()) nodes.add(to);

  const connect = (node: string) => {
    index.set(node, next);
    lowLink.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        connect(to);
        lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(to)!));
      } else if (onStack.has(to)) {
        lowLink.set(node, Math.min(lowLink.get(node)!, index.get(to)!));
      }
    }
    if (lowLink.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...nodes].sort()) if (!index.has(node)) connect(node);

  return components
    .map((folders) => {
      const members = new Set(folders);
      const imports = folders.flatMap((from) =>
        [...(graph.get(from) ?? [])].filter(([to]) => members.has(to)).flatMap(([, lines]) => lines),
      );
      return { key: folders.join(" <-> "), folders, imports };
    })
    .sort((a, b) => a.key.localeCompare(b.key));
}

/** The graph without the imports between the folders of the pairs named (`a <-> b`), both ways. */
export function withoutPairs(graph: FolderGraph, pairs: readonly string[]): FolderGraph {
  const excused = new Set(
    pairs.flatMap((pair) => {
      const [a, b] = pair.split(" <-> ");
      return [`${a} -> ${b}`, `${b} -> ${a}`];
    }),
  );
  const reduced: FolderGraph = new Map();
  for (const [from, edges] of graph) {
    reduced.set(from, new Map([...edges].filter(([to]) => !excused.has(`${from} -> ${to}`))));
  }
  return reduced;
}

/**
 * One shortest loop through the folders of a cycle, as the steps a reader would follow: each
 * step's folders and the import lines that make it.
 */
export function shortestLoop(
  graph: FolderGraph,
  cycle: FolderCycle,
): { from: string; to: string; imports: ImportLine[] }[] {
  const members = new Set(cycle.folders);
  let best: string[] | undefined;
  for (const start of cycle.folders) {
    // Breadth first from the start's successors back to the start, inside the cycle.
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const at = queue.shift()!;
      const successors = [...(graph.get(at)?.keys() ?? [])].filter((to) => members.has(to)).sort();
      if (successors.includes(start)) {
        const path = [start];
        for (let step = at; step !== start; step = previous.get(step)!) path.splice(1, 0, step);
        if (!best || path.length < best.length) best = path;
        break;
      }
      for (const to of successors) {
        if (to === start || previous.has(to)) continue;
        previous.set(to, at);
        queue.push(to);
      }
    }
  }
  const loop = [...best!, best![0]!];
  return loop.slice(0, -1).map((from, step) => {
    const to = loop[step + 1]!;
    return { from, to, imports: graph.get(from)!.get(to)! };
  });
}

/** Pairs of folders that import each other directly: the figure issue 27 counts. */
export function mutualFolderPairs(graph: FolderGraph): string[] {
  const pairs: string[] = [];
  for (const [from, edges] of graph) {
    for (const to of edges.keys()) if (from < to && graph.get(to)?.has(from)) pairs.push(`${from} <-> ${to}`);
  }
  return pairs.sort();
}

/** An import that points the wrong way down the layout, and the rule it breaks. */
export interface WrongWayImport {
  rule: string;
  import: ImportLine;
}

const top = (file: string) => file.split("/")[0]!;
const FASTIFY_PACKAGES = /^(fastify|fastify-.+|@fastify\/.+)$/;

/**
 * The direction rules of DESIGN and the brief: `shared/` (the domain) imports neither `api/` nor
 * `workers/` nor Fastify; `api/` and `workers/` do not import each other; migrations import no
 * application code. An import whose target cannot be read (`import(name)`) breaks a rule too:
 * what the fence cannot see, it cannot keep.
 */
export function findWrongWayImports(imports: readonly ImportLine[]): WrongWayImport[] {
  const found: WrongWayImport[] = [];
  for (const line of imports) {
    const from = top(line.file);
    const rule = (() => {
      if (line.computed) return "an import whose target is computed (the fence cannot read it)";
      if (!line.local) {
        return from === "shared" && FASTIFY_PACKAGES.test(packageOf(line.target))
          ? "domain code (shared/) imports Fastify"
          : undefined;
      }
      const to = top(line.target);
      if (from === "shared" && (to === "api" || to === "workers")) return `shared/ imports ${to}/`;
      if ((from === "api" && to === "workers") || (from === "workers" && to === "api"))
        return `${from}/ imports ${to}/`;
      if (from === "migrations" && to !== "migrations") return "a migration imports application code";
      return undefined;
    })();
    if (rule) found.push({ rule, import: line });
  }
  return found;
}

/** One import as a failure message shows it: `file:line  statement`. */
export function describeImport(line: ImportLine): string {
  return `${line.file}:${line.line}  ${line.text}`;
}
