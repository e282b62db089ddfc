/**
 * The file-level reference graph of repository maps: which file uses the
 * definitions of which other file, weighted as Aider's repo map weighs it.
 *
 * One generation's graph is built once and memoized on the target's reader:
 * its files, the definers of every name, and every use already bound to the
 * files it may mean. A caller who may see every file of the repository gets
 * that graph as it is (several such repositories: their graphs joined once and
 * kept while each is its generation's); for a caller with hidden paths the edges are rebuilt
 * from the same uses over the visible files only, so a hidden file is never a
 * node, never a definer that splits an edge, and never counted (binding a use
 * is decided per definer file, so dropping hidden definers afterwards gives
 * the same answer as never having seen them).
 *
 * An edge is a written use matched to definitions by name, narrowed by the
 * file's imports: an import whose module path names a definer's file binds the
 * name to that file, a name the file defines itself is local, anything else is
 * shared among every definer of the name. Matching is by name and module path,
 * so the graph is approximate.
 */
import { posix } from "node:path";
import type { WeightedEdge } from "../engine/pagerank.ts";
import { MemoKey, type StoredSymbol, type TargetReader } from "../store/reader.ts";
import type { Repository } from "../workspace/workspace.ts";
import type { RequestScope } from "../workspace/scope.ts";

/** A node of the graph: one file. */
export interface GraphFile {
  repo: string;
  path: string;
  language: string | null;
  lineCount: number;
  /** Its definitions in source order. */
  symbols: StoredSymbol[];
}

/** An edge with the name whose uses it stands for ("" for a whole-module import). */
export interface NamedEdge extends WeightedEdge {
  name: string;
}

/** The graph of the files a request may see. */
export interface FileGraph {
  files: GraphFile[];
  /** `repo\0path` → node. */
  index: Map<string, number>;
  edges: NamedEdge[];
  /** `repo\0name` → the nodes that define the name. */
  definers: Map<string, number[]>;
  /** Repositories whose target could not be read, and why. */
  problems: { repo: string; problem: string }[];
}

/** One file's uses of one name, bound as far as the whole generation allows. */
interface Use {
  from: number;
  name: string;
  /** Kind, count and name-shape weight, before it is shared among targets. */
  weight: number;
  /** The files an import binds the name to, or the module file an import names; null: any definer. */
  bound: number[] | null;
  /** A whole-module import: only `bound` counts, never the name's definers. */
  module: boolean;
}

/** One repository's graph for one generation, every file included (shared: never mutated). */
interface RepositoryGraph {
  files: GraphFile[];
  /** `repo\0path` → node. */
  index: Map<string, number>;
  /** `name` → the nodes that define it. */
  definers: Map<string, number[]>;
  /** `repo\0name` → the nodes that define it (the FileGraph's keys). */
  keyedDefiners: Map<string, number[]>;
  uses: Use[];
  /** The edges when every file is visible. */
  edges: NamedEdge[];
}

const REPOSITORY_GRAPH = new MemoKey<RepositoryGraph>("actions:repository-graph");

/** What a use of each relation kind is worth (a call or inheritance says more than a read). */
const KIND_WEIGHT: Record<string, number> = {
  calls: 1,
  inherits: 2,
  implements: 2,
  type_of: 1,
  references: 0.5,
  imports: 0.5,
  reads: 0.3,
  writes: 0.3,
};

/** Python builtins and ECMAScript globals: a use not imported means these, not a definition. */
const BUILTINS: ReadonlySet<string> = new Set(
  ("abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile " +
    "complex delattr dict dir divmod enumerate eval exec filter float format frozenset getattr " +
    "globals hasattr hash help hex id input int isinstance issubclass iter len list locals map " +
    "max memoryview min next object oct open ord pow print property range repr reversed round " +
    "set setattr slice sorted staticmethod str sum super tuple type vars zip __import__ " +
    "Array Boolean Date Error JSON Map Math Number Object Promise Proxy Reflect RegExp Set " +
    "String Symbol WeakMap WeakSet console parseInt parseFloat isNaN isFinite require " +
    "setTimeout clearTimeout setInterval clearInterval fetch").split(" "),
);
/** Method names so common that a use on a receiver says little about whose method it is. */
const COMMON_MEMBERS: ReadonlySet<string> = new Set(
  ("get set add append extend insert update remove pop push shift keys values items copy " +
    "clear close open read write join split strip replace format startswith endswith lower " +
    "upper find index count sort reverse map filter reduce forEach then catch emit send " +
    "toString equals hashCode length size name value apply call bind").split(" "),
);

/** Names defined in more files than this say little about which one is meant. */
const COMMON_DEFINERS = 5;
/** Uses of a name defined in more files than this (and not imported) are not edges at all. */
const MAX_DEFINERS = 12;
/** How much more a use of a name the focus mentions weighs (Aider's mentioned identifiers). */
const MENTIONED = 10;

/** Options that change edge weights per request. */
export interface GraphOptions {
  /** Names the focus mentions: their uses weigh more. */
  mentioned?: ReadonlySet<string>;
}

/**
 * The reference graph of the visible files of `repos`: nodes are files, an
 * edge A → B means A uses a definition of B, weighted by how often, by the
 * relation's kind and by how specific the name is.
 */
export function buildFileGraph(
  scope: RequestScope,
  repos: readonly Repository[],
  options: GraphOptions = {},
): FileGraph {
  const mentioned = options.mentioned ?? new Set<string>();
  const graph = unweightedGraph(scope, repos);
  if (mentioned.size === 0) return graph;
  // Uses of a name the focus mentions weigh more: edges of this request's own.
  const edges = graph.edges.map((edge) =>
    mentioned.has(edge.name) ? { ...edge, weight: edge.weight * MENTIONED } : edge
  );
  return { ...graph, edges };
}

/** Graphs of several whole repositories, kept per first repository while every part is current. */
const combinedGraphs = new WeakMap<
  RepositoryGraph,
  { names: string; parts: RepositoryGraph[]; graph: FileGraph }[]
>();
/** Combinations of repositories kept per first repository. */
const COMBINATIONS_KEPT = 4;

/** The graph before any focus weighs it: memoized wherever the caller sees every file. */
function unweightedGraph(scope: RequestScope, repos: readonly Repository[]): FileGraph {
  const graph: FileGraph = {
    files: [],
    index: new Map(),
    edges: [],
    definers: new Map(),
    problems: [],
  };
  const parts: { repo: Repository; whole: RepositoryGraph }[] = [];
  for (const repo of repos) {
    scope.throwIfCancelled();
    const answer = scope.workspace.withReader(repo, (reader) => repositoryGraph(reader, repo.name));
    if (answer.problem) graph.problems.push({ repo: repo.name, problem: answer.problem });
    else parts.push({ repo, whole: answer.value });
  }
  const seenWhole = graph.problems.length === 0 &&
    !repos.some((r) => scope.pathRestricted(r.name));
  if (seenWhole && parts.length === 1) {
    // One repository seen whole: its memoized graph as it is.
    const [{ whole: part }] = parts;
    return {
      ...graph,
      files: part.files,
      index: part.index,
      definers: part.keyedDefiners,
      edges: part.edges,
    };
  }
  const kept = seenWhole && parts.length > 0 ? combinedGraphs.get(parts[0].whole) ?? [] : null;
  const same = kept?.find((entry) =>
    entry.parts.length === parts.length && entry.parts.every((part, i) => part === parts[i].whole)
  );
  if (same) return same.graph;
  for (const { repo, whole } of parts) {
    const visible = scope.pathRestricted(repo.name)
      ? whole.files.map((file) => scope.allowPath(repo.name, file.path))
      : null;
    // Nodes renumbered past the repositories before, hidden files left out.
    const renumber = new Int32Array(whole.files.length).fill(-1);
    whole.files.forEach((file, node) => {
      if (visible && !visible[node]) return;
      renumber[node] = graph.files.length;
      graph.index.set(`${repo.name}\0${file.path}`, graph.files.length);
      graph.files.push(file);
    });
    for (const [name, nodes] of whole.definers) {
      const kept = nodes.map((node) => renumber[node]).filter((node) => node >= 0);
      if (kept.length > 0) graph.definers.set(`${repo.name}\0${name}`, kept);
    }
    const edges = visible
      ? edgesOf(whole.uses, whole.definers, (node) => visible[node])
      : whole.edges;
    for (const edge of edges) {
      graph.edges.push({
        from: renumber[edge.from],
        to: renumber[edge.to],
        weight: edge.weight,
        name: edge.name,
      });
    }
  }
  if (kept) {
    // The same repositories' older join goes: it holds an earlier generation's graphs.
    const names = repos.map((repo) => repo.name).join("\0");
    const others = kept.filter((entry) => entry.names !== names);
    others.unshift({ names, parts: parts.map(({ whole }) => whole), graph });
    others.length = Math.min(others.length, COMBINATIONS_KEPT);
    combinedGraphs.set(parts[0].whole, others);
  }
  return graph;
}

/** The graph of a reader's generation (memoized until the generation moves). */
function repositoryGraph(reader: TargetReader, repo: string): RepositoryGraph {
  return reader.memo(REPOSITORY_GRAPH, () => {
    const table = reader.fileTable();
    const entries = [...table.files.values()].sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : 0
    );
    const nodeOfId = new Map<number, number>();
    const nodeOfPath = new Map<string, number>();
    const files: GraphFile[] = entries.map((entry, node) => {
      nodeOfId.set(entry.id, node);
      nodeOfPath.set(entry.path, node);
      return {
        repo,
        path: entry.path,
        language: entry.language,
        lineCount: entry.lineCount,
        symbols: [],
      };
    });
    const definers = new Map<string, number[]>();
    for (const symbol of reader.allSymbols()) {
      const node = nodeOfPath.get(symbol.path);
      if (node === undefined) continue;
      files[node].symbols.push(symbol);
      let list = definers.get(symbol.name);
      if (!list) definers.set(symbol.name, list = []);
      if (list[list.length - 1] !== node) list.push(node);
    }
    const modules = new ModuleMatcher(files);
    const uses: Use[] = [];
    // Per file, the names its imports bind to files.
    const imported = new Map<number, Map<string, number[]>>();
    const pending: { from: number; name: string; weight: number; member: boolean }[] = [];
    for (const row of reader.relationCounts()) {
      const from = nodeOfId.get(row.fileId);
      if (from === undefined) continue;
      const name = lastSegment(row.target);
      // `__init__`, `__eq__`: protocol methods are called by the language, not by name.
      if (row.kind !== "imports" && /^__\w+__$/.test(name)) continue;
      const all = definers.get(name);
      let weight = (KIND_WEIGHT[row.kind] ?? 0.3) * Math.sqrt(row.count);
      if (row.member) weight *= 0.5;
      if (row.kind === "imports" && row.module) {
        if (!all) {
          // A whole module imported (`import a.b`, `from . import mod`): an edge to its file.
          const bound = modules.moduleFiles(files[from].path, row.module, row.target);
          if (bound.length > 0) uses.push({ from, name: "", weight, bound, module: true });
          continue;
        }
        const bound = modules.bind(files[from].path, row.module, all);
        if (bound.length > 0) {
          let names = imported.get(from);
          if (!names) imported.set(from, names = new Map());
          names.set(name, bound);
        }
      }
      if (!all) continue;
      // A name the file defines itself is local (its import of the same name still counts).
      if (row.kind !== "imports" && all.includes(from)) continue;
      if (isSpecific(name)) weight *= 3;
      if (name.startsWith("_")) weight *= 0.1;
      pending.push({ from, name, weight, member: row.member });
    }
    for (const use of pending) {
      const bound = imported.get(use.from)?.get(use.name) ?? null;
      // `str(x)`, `len(x)`, `Object.keys`: a use the file does not import most likely means
      // the language's own name, not a same-named definition somewhere in the repository.
      if (!bound && BUILTINS.has(use.name)) continue;
      // `T`, `E`, `id`: a name this short, not imported, is a type parameter or a local.
      if (!bound && use.name.length < 3) continue;
      const weight = !bound && use.member && COMMON_MEMBERS.has(use.name)
        ? use.weight * 0.1
        : use.weight;
      uses.push({ from: use.from, name: use.name, weight, bound, module: false });
    }
    const index = new Map(files.map((file, node) => [`${repo}\0${file.path}`, node]));
    const keyedDefiners = new Map(
      [...definers].map(([name, nodes]) => [`${repo}\0${name}`, nodes]),
    );
    return { files, index, definers, keyedDefiners, uses, edges: edgesOf(uses, definers, null) };
  });
}

/** The edges of a repository's uses over the files `visible` keeps (null: every file). */
function edgesOf(
  uses: readonly Use[],
  definers: ReadonlyMap<string, number[]>,
  visible: ((node: number) => boolean) | null,
): NamedEdge[] {
  const merged = new Map<number, Map<string, NamedEdge>>();
  const width = 1 << 20;
  const out: NamedEdge[] = [];
  const keep = (nodes: readonly number[], from: number) =>
    nodes.filter((node) => node !== from && (visible === null || visible(node)));
  for (const use of uses) {
    if (visible && !visible(use.from)) continue;
    let targets: number[];
    let shared = 1;
    if (use.module) {
      targets = keep(use.bound!, use.from);
    } else {
      const all = definers.get(use.name)!;
      const definedBy = visible ? all.filter(visible) : all;
      const bound = use.bound ? keep(use.bound, use.from) : [];
      if (bound.length > 0) {
        targets = bound;
      } else {
        if (definedBy.length > MAX_DEFINERS) continue;
        targets = keep(definedBy, use.from);
        if (definedBy.length > COMMON_DEFINERS) shared = 0.1;
      }
    }
    if (targets.length === 0) continue;
    const weight = use.weight * shared / targets.length;
    for (const to of targets) {
      const key = use.from * width + to;
      let byName = merged.get(key);
      if (!byName) merged.set(key, byName = new Map());
      const edge = byName.get(use.name);
      if (edge) edge.weight += weight;
      else {
        const created = { from: use.from, to, weight, name: use.name };
        byName.set(use.name, created);
        out.push(created);
      }
    }
  }
  return out;
}

/** A long snake_case or camelCase name, unlikely to mean two unrelated things. */
function isSpecific(name: string): boolean {
  return name.length >= 8 && (/_/.test(name.replace(/^_+/, "")) || /[a-z][A-Z]/.test(name));
}

/** The name of a written target: `typing.List` → `List`, `a::b::f` → `f`. */
export function lastSegment(target: string): string {
  const at = Math.max(
    target.lastIndexOf("."),
    target.lastIndexOf(":"),
    target.lastIndexOf("/"),
    target.lastIndexOf("\\"),
  );
  if (at < 0) return target;
  const tail = target.slice(at + 1);
  return tail || lastSegment(target.slice(0, at));
}

/** The dotted module path of a file: `src/pkg/mod.py` → `src.pkg.mod`, `a/__init__.py` → `a`. */
export function modulePath(path: string): string {
  const bare = path.replace(/\.[^./]+$/, "").replace(/\/(__init__|index|mod|lib)$/, "");
  return bare.replaceAll("/", ".");
}

/** Binds an import's module to the files it names, by module path (one repository). */
class ModuleMatcher {
  readonly #dotted: string[];
  readonly #cache = new Map<string, string | null>();
  #bySuffix: Map<string, number[]> | null = null;

  constructor(files: readonly GraphFile[]) {
    this.#dotted = files.map((file) => modulePath(file.path));
  }

  /** The definers of a name that the module written in file `from` names (empty: none known). */
  bind(from: string, module: string, definers: readonly number[]): number[] {
    const prefix = this.#absolute(from, module);
    if (prefix === null) return [];
    return definers.filter((node) => {
      const dotted = this.#dotted[node];
      return dotted === prefix || dotted.endsWith(`.${prefix}`) ||
        dotted.startsWith(`${prefix}.`) || dotted.includes(`.${prefix}.`);
    });
  }

  /** The files a module import names (`import a.b` → `a/b.py`, `from . import m` → `./m.py`). */
  moduleFiles(from: string, module: string, target: string): number[] {
    const form = this.#absolute(from, module);
    if (form === null) return [];
    const bySuffix = this.#suffixes();
    const withTarget = target === module || form.endsWith(`.${target}`)
      ? form
      : `${form}.${target}`;
    return bySuffix.get(withTarget) ?? bySuffix.get(form) ?? [];
  }

  /** Every file by each dotted suffix of its module path (`src.pkg.mod`, `pkg.mod`, `mod`). */
  #suffixes(): Map<string, number[]> {
    if (this.#bySuffix) return this.#bySuffix;
    const map = new Map<string, number[]>();
    this.#dotted.forEach((dotted, node) => {
      const parts = dotted.split(".");
      for (let i = 0; i < parts.length; i++) {
        const key = parts.slice(i).join(".");
        let list = map.get(key);
        if (!list) map.set(key, list = []);
        list.push(node);
      }
    });
    // A suffix many files share names none of them.
    for (const [key, list] of map) if (list.length > 3) map.delete(key);
    this.#bySuffix = map;
    return map;
  }

  /** The dotted form of a module written in `from` (null: nothing to match on). */
  #absolute(from: string, module: string): string | null {
    const dir = posix.dirname(from);
    const key = `${dir}\0${module}`;
    if (this.#cache.has(key)) return this.#cache.get(key)!;
    let form: string | null;
    if (module.startsWith("./") || module.startsWith("../")) {
      form = modulePath(posix.normalize(posix.join(dir, module)));
    } else if (module.startsWith(".")) {
      // Python relative import: one dot is the file's own package, each more goes up one.
      const dots = /^\.+/.exec(module)![0].length;
      let base = dir === "." ? [] : dir.split("/");
      base = base.slice(0, Math.max(0, base.length - (dots - 1)));
      const rest = module.slice(dots);
      const parts = [...base, ...(rest ? rest.split(".") : [])];
      form = parts.length > 0 ? parts.join(".") : null;
    } else {
      const segments = module.split(/::|\.|\/|\\/).filter((s) =>
        s && s !== "crate" && s !== "self" && s !== "super"
      );
      form = segments.length > 0 ? segments.join(".") : null;
    }
    this.#cache.set(key, form);
    return form;
  }
}
