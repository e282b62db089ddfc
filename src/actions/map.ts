/**
 * `map`: a repository map in the spirit of Aider's. Files are ranked by
 * PageRank over the reference graph (`graph.ts`), personalised by a focus —
 * free text matched through search, paths and symbol names it mentions, and
 * the files changed in the working tree — and each file lists the signatures
 * of its definitions that carry the most rank. `role: onboarding` orders an
 * onboarding path instead: entry points, then core modules, then utilities,
 * each with why. The answer is fitted to `token_budget` (default about 1000
 * tokens) and paged like every other answer.
 */
import { analyzeQuery, pathMatchesMention } from "../engine/query.ts";
import {
  edgeFlow,
  type LinkMatrix,
  linkMatrix,
  outWeights,
  rankLinks,
} from "../engine/pagerank.ts";
import type { MethodParams } from "../protocol/methods.ts";
import type { Envelope, MapData, MapHit } from "../protocol/types.ts";
import type { StoredSymbol } from "../store/reader.ts";
import type { RequestScope } from "../workspace/scope.ts";
import { uncommittedChanges } from "../resolver/diff.ts";
import { isDocPath, isTestPath, isVendorPath } from "../search/rank.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import {
  buildFileGraph,
  type FileGraph,
  type GraphFile,
  modulePath,
  type NamedEdge,
} from "./graph.ts";
import { isOffset, issueCursor, PageFitter, readCursor } from "./paging.ts";
import { search } from "./search.ts";
import { signatureLine } from "./summaries.ts";

export type MapParams = MethodParams<"map">;

/** The budget of a map when none is given (tokens, bytes / 4). */
export const DEFAULT_MAP_BUDGET = 1024;
const DEFAULT_LIMIT = 200;
/** Search hits read for a free-text focus. */
const FOCUS_HITS = 40;
/** How strongly each kind of focus pulls (relative jump weights). */
const FOCUS_WEIGHT = { search: 3, path: 4, symbol: 2, changed: 2 };
/** How much a file's own focus adds to its rank (× its share of the strongest focus). */
const FOCUS_BOOST = 1;
/** With a focus, the surfer jumps back to it more often than without one. */
const DAMPING = { plain: 0.85, focused: 0.7 };
/** Definitions listed per file: more for the best files. */
const DEFINITIONS = { top: 6, rest: 3, topFiles: 5 };
/** A field or variable needs this share of its file's best definition rank to be listed. */
const VALUE_SHARE = 0.25;
/** Kinds worth listing even when nothing uses them. */
const PRIMARY_KINDS = new Set([
  "class",
  "function",
  "method",
  "interface",
  "type",
  "enum",
  "struct",
  "trait",
  "module",
  "macro",
  "constructor",
]);

interface Focus {
  weights: Map<number, number>;
  files: string[];
  symbols: string[];
  changed: string[];
  mentioned: Set<string>;
}

/** A ranked repository map of the repositories a request addresses. */
export async function map(scope: RequestScope, params: MapParams): Promise<Envelope<MapData>> {
  const { workspace } = scope;
  const role = params.role ?? "central";
  const budget = params.token_budget ?? DEFAULT_MAP_BUDGET;
  const limit = params.limit ?? DEFAULT_LIMIT;
  const repos = scope.repositories;
  const states = repositoryStates(workspace, repos, scope);
  const binding = { action: "map", params: { ...params }, repositories: states };
  const offset = params.cursor === undefined ? 0 : readCursor(params.cursor, binding, isOffset);
  const limitations: string[] = [];

  const text = params.focus?.trim() ?? "";
  const analysis = text ? analyzeQuery(text) : null;
  const mentioned = new Set<string>(analysis?.identifiers ?? []);
  if (text && !/\s/.test(text)) mentioned.add(text);
  const graph = buildFileGraph(scope, repos, { mentioned });
  for (const { repo, problem } of graph.problems) {
    limitations.push(`${repo}: no index to map (target ${problem})`);
  }
  const focus = await focusOf(scope, graph, {
    text,
    analysis,
    mentioned,
    uncommitted: params.uncommitted !== false,
  });
  if (text && focus.weights.size === 0) {
    limitations.push("nothing in the index matches the focus: the map is not personalised");
  }
  const focused = focus.weights.size > 0;
  const personalization = new Float64Array(graph.files.length);
  for (const [node, weight] of focus.weights) personalization[node] = weight;
  // An onboarding path is about the code itself: uses written in tests, docs and vendored
  // code do not vote.
  const edges = role === "onboarding" ? derivedOf(graph.edges).code(graph.files) : graph.edges;
  const derived = derivedOf(edges);
  const ranks = derived.ranks(graph.files.length, focused ? personalization : null);
  const shown = (node: number) => {
    const file = graph.files[node];
    return scope.matchesPaths(file.path) && scope.matchesLanguage(file.language);
  };
  // The focus files themselves lead their neighbourhood: a file's rank grows with its focus.
  const strongest = Math.max(0, ...focus.weights.values());
  const score = Float64Array.from(
    ranks,
    (rank, node) => rank * (1 + FOCUS_BOOST * (focus.weights.get(node) ?? 0) / (strongest || 1)),
  );
  const byRank = [...graph.files.keys()].filter(shown).sort((a, b) =>
    score[b] - score[a] || (graph.files[a].path < graph.files[b].path ? -1 : 1)
  );
  let ordered: { node: number; stage?: MapHit["stage"]; why?: string }[];
  if (role === "onboarding") {
    ordered = onboardingPath(scope, graph, { byRank, ...degrees(graph, edges), limitations });
  } else {
    ordered = byRank.filter((node) =>
      graph.files[node].symbols.length > 0 || focus.weights.has(node)
    )
      .map((node) => ({ node }));
  }

  const maxRank = ordered.length > 0 ? Math.max(...ordered.map(({ node }) => score[node])) : 1;
  const hitOf = (entry: (typeof ordered)[number], position: number): MapHit => {
    const file = graph.files[entry.node];
    const count = position < DEFINITIONS.topFiles ? DEFINITIONS.top : DEFINITIONS.rest;
    const definitions = keyDefinitions(
      file,
      derived.definitionRank(entry.node, ranks),
      mentioned,
      count,
    );
    return {
      repo: file.repo,
      path: file.path,
      start_line: 1,
      end_line: Math.max(1, file.lineCount),
      symbol: null,
      kind: "file",
      signature: null,
      language: file.language,
      source_kind: isDocPath(file.path, file.language) ? "doc" : "local",
      score: maxRank > 0 ? Math.round(score[entry.node] / maxRank * 1000) / 1000 : 0,
      snippet: "",
      definitions,
      ...(entry.stage ? { stage: entry.stage, why: entry.why } : {}),
    };
  };
  const fitter = new PageFitter({ limit, tokenBudget: budget });
  let end = offset;
  while (end < ordered.length && fitter.open && fitter.offer(hitOf(ordered[end], end))) end++;
  const next = end < ordered.length ? end : null;
  limitations.push(...fitter.limitations);
  limitations.push(
    "ranks come from uses matched to definitions by name and import path: they are approximate",
  );
  return envelope({
    action: "map",
    results: fitter.results,
    provenance: { backend: "pagerank", confidence: "approximate" },
    repositories: states,
    limitations,
    truncated: next !== null,
    nextCursor: next === null ? null : issueCursor(binding, next),
    data: {
      role,
      focus: { files: focus.files, symbols: focus.symbols, changed: focus.changed },
      graph: { files: graph.files.length, edges: graph.edges.length },
      token_budget: budget,
    },
  });
}

/** The jump weights a focus gives: search hits, mentioned paths, symbol names, changed files. */
async function focusOf(
  scope: RequestScope,
  graph: FileGraph,
  options: {
    text: string;
    analysis: ReturnType<typeof analyzeQuery> | null;
    mentioned: Set<string>;
    uncommitted: boolean;
  },
): Promise<Focus> {
  const weights = new Map<number, number>();
  const add = (node: number, weight: number) =>
    weights.set(node, (weights.get(node) ?? 0) + weight);
  const focus: Focus = {
    weights,
    files: [],
    symbols: [],
    changed: [],
    mentioned: options.mentioned,
  };
  const { text, analysis } = options;
  if (text && analysis) {
    // Free text: the files search ranks for it, by rank.
    if (analysis.terms.length > 0 || analysis.paths.length > 0) {
      const answer = await search(scope, { query: text, limit: FOCUS_HITS });
      const seen = new Map<number, number>();
      answer.results.forEach((hit, i) => {
        const node = graph.index.get(`${hit.repo}\0${hit.path}`);
        if (node === undefined) return;
        seen.set(node, (seen.get(node) ?? 0) + 1 / (i + 1));
      });
      const top = Math.max(0, ...seen.values());
      for (const [node, weight] of seen) add(node, FOCUS_WEIGHT.search * weight / top);
    }
    // Paths: every word that names an indexed file or directory, and traceback paths.
    const written = new Set([
      ...text.split(/[\s,;'"`()]+/).filter((word) => word.includes("/") || /\.\w+$/.test(word)),
      ...analysis.paths.map((mention) => mention.path),
    ]);
    for (const raw of written) {
      const mention = raw.replace(/^\.\//, "").replace(/[:.]+$/, "").replace(/:\d+(:\d+)?$/, "");
      if (!mention) continue;
      const matched: number[] = [];
      graph.files.forEach((file, node) => {
        if (
          file.path === mention || file.path.startsWith(`${mention.replace(/\/$/, "")}/`) ||
          (mention.includes("/") && pathMatchesMention(file.path, mention) >= 2) ||
          (!mention.includes("/") && file.path.split("/").pop() === mention)
        ) {
          matched.push(node);
        }
      });
      for (const node of matched) add(node, FOCUS_WEIGHT.path / matched.length);
    }
    // Symbol names: the files that define them.
    for (const name of options.mentioned) {
      const definers = new Set<number>();
      for (const repo of scope.repositories) {
        for (const node of graph.definers.get(`${repo.name}\0${name}`) ?? []) definers.add(node);
      }
      if (definers.size === 0 || definers.size > 10) continue;
      focus.symbols.push(name);
      for (const node of definers) add(node, FOCUS_WEIGHT.symbol / definers.size);
    }
  }
  if (options.uncommitted) {
    for (const repo of scope.repositories) {
      const changes = await uncommittedChanges(repo.root);
      for (const change of changes ?? []) {
        const node = graph.index.get(`${repo.name}\0${change.path}`);
        if (node === undefined) continue;
        add(node, FOCUS_WEIGHT.changed);
        focus.changed.push(`${repo.name}:${change.path}`);
      }
    }
  }
  focus.files = [...weights].sort((a, b) => b[1] - a[1]).slice(0, 20)
    .map(([node]) => `${graph.files[node].repo}:${graph.files[node].path}`);
  return focus;
}

/** Edge indices into each node, as compressed rows in edge order. */
interface Incoming {
  start: Int32Array;
  edges: Int32Array;
}

/**
 * What a map derives from a graph's edges alone, kept as long as the edges
 * array lives. A repository's graph is memoized per generation, so an unfocused
 * map of it ranks once per generation, and one personalised only by changed
 * files reuses its matrix (a focus text weighs its names' edges: new edges).
 */
class EdgeDerived {
  #edges: readonly NamedEdge[];
  #links?: { matrix: LinkMatrix; incoming: Incoming; outWeight: Float64Array };
  #plain?: Float64Array;
  #plainNames?: Map<number, Map<string, number> | undefined>;
  #code?: readonly NamedEdge[];

  constructor(edges: readonly NamedEdge[]) {
    this.#edges = edges;
  }

  links(nodeCount: number): { matrix: LinkMatrix; incoming: Incoming; outWeight: Float64Array } {
    if (this.#links?.matrix.nodeCount === nodeCount) return this.#links;
    const edges = this.#edges;
    const start = new Int32Array(nodeCount + 1);
    for (const edge of edges) start[edge.to + 1]++;
    for (let i = 0; i < nodeCount; i++) start[i + 1] += start[i];
    const fill = start.slice(0, nodeCount);
    const into = new Int32Array(edges.length);
    edges.forEach((edge, i) => into[fill[edge.to]++] = i);
    return this.#links = {
      matrix: linkMatrix(nodeCount, edges),
      incoming: { start, edges: into },
      outWeight: outWeights(nodeCount, edges),
    };
  }

  /** The ranks, personalised or not (unpersonalised ones are kept). */
  ranks(nodeCount: number, personalization: Float64Array | null): Float64Array {
    if (!personalization && this.#plain?.length === nodeCount) return this.#plain;
    const { ranks } = rankLinks(this.links(nodeCount).matrix, {
      damping: personalization ? DAMPING.focused : DAMPING.plain,
      personalization,
    });
    if (!personalization) [this.#plain, this.#plainNames] = [ranks, undefined];
    return ranks;
  }

  /**
   * The rank that flows into each definition name of `node` from the edges into
   * it (kept for the unpersonalised ranks this keeps).
   */
  definitionRank(node: number, ranks: Float64Array): Map<string, number> | undefined {
    const kept = ranks === this.#plain ? this.#plainNames ??= new Map() : null;
    if (kept?.has(node)) return kept.get(node);
    const { incoming, outWeight } = this.links(ranks.length);
    let names: Map<string, number> | undefined;
    for (let at = incoming.start[node]; at < incoming.start[node + 1]; at++) {
      const edge = this.#edges[incoming.edges[at]];
      if (!edge.name) continue;
      names ??= new Map();
      names.set(edge.name, (names.get(edge.name) ?? 0) + edgeFlow(ranks, outWeight, edge));
    }
    kept?.set(node, names);
    return names;
  }

  /** The edges out of code files (an onboarding path leaves tests, docs and vendored code out). */
  code(files: readonly GraphFile[]): readonly NamedEdge[] {
    return this.#code ??= this.#edges.filter((edge) => isCode(files[edge.from]));
  }
}

const derivedByEdges = new WeakMap<readonly NamedEdge[], EdgeDerived>();

function derivedOf(edges: readonly NamedEdge[]): EdgeDerived {
  let derived = derivedByEdges.get(edges);
  if (!derived) derivedByEdges.set(edges, derived = new EdgeDerived(edges));
  return derived;
}

/** Per file, how many other files use it and how many it uses. */
function degrees(
  graph: FileGraph,
  edges: readonly NamedEdge[],
): { usedBy: Int32Array; uses: Int32Array } {
  const usedBy = new Int32Array(graph.files.length);
  const uses = new Int32Array(graph.files.length);
  const pairs = new Set<number>();
  const width = graph.files.length + 1;
  for (const edge of edges) {
    const pair = edge.from * width + edge.to;
    if (pairs.has(pair)) continue;
    pairs.add(pair);
    usedBy[edge.to]++;
    uses[edge.from]++;
  }
  return { usedBy, uses };
}

/** The definitions of a file that carry the most rank, as `line: signature` lines. */
function keyDefinitions(
  file: GraphFile,
  rankOf: Map<string, number> | undefined,
  mentioned: ReadonlySet<string>,
  count: number,
): string[] {
  const names = new Map<string, number>();
  const scored = file.symbols.map((symbol, order) => {
    // A name defined several times in the file: its rank goes to the first (outermost) one.
    const seen = names.get(symbol.name) ?? 0;
    names.set(symbol.name, seen + 1);
    const rank = seen === 0 ? rankOf?.get(symbol.name) ?? 0 : 0;
    return { symbol, order, rank, boost: mentioned.has(symbol.name) ? 1 : 0 };
  });
  // A field or variable is listed only when it draws a good share of the file's best rank.
  const best = Math.max(0, ...scored.map(({ rank }) => rank));
  const listed = scored.filter(({ symbol, rank }) =>
    !/^__\w+__$/.test(symbol.name) &&
    (PRIMARY_KINDS.has(symbol.kind) || (rank > 0 && rank >= best * VALUE_SHARE))
  );
  listed.sort((a, b) =>
    b.boost - a.boost || b.rank - a.rank ||
    Number(a.symbol.parentId !== null) - Number(b.symbol.parentId !== null) ||
    Number(b.symbol.exported) - Number(a.symbol.exported) || a.order - b.order
  );
  const parents = new Map(file.symbols.map((symbol) => [symbol.id, symbol.name]));
  return listed.slice(0, count).sort((a, b) => a.order - b.order).map(({ symbol }) =>
    definitionLine(symbol, parents)
  );
}

function definitionLine(symbol: StoredSymbol, parents: Map<string, string>): string {
  const signature = signatureLine(symbol);
  const owner = symbol.parentId ? parents.get(symbol.parentId) : undefined;
  return `${symbol.startLine}: ${signature}${owner ? `  (in ${owner})` : ""}`;
}

// ---- onboarding -------------------------------------------------------------------------

/** How many of each stage lead the path before the rest of each follows. */
const ONBOARDING_LEAD = { entry: 5, core: 10, utility: 5 };
const UTILITY_NAME =
  /(^|[/_.-])(utils?|util_\w+|helpers?|compat|common|misc|_?internal|shared|tools|support)([/_.-]|$)/i;
/**
 * Entry points by name, most telling first (a manifest's console script
 * precedes them all): the pattern, why, and the order entries are listed in.
 */
const ENTRY_NAMES: [RegExp, string, number][] = [
  [/(^|\/)__main__\.py$/, "runs as a program (python -m)", 1],
  [
    /(^|\/)(cli|__cli__|command_line|cmdline)(\.\w+|\/[^/]+\.\w+)$/,
    "the command-line interface",
    2,
  ],
  [/(^|\/)(main|Main)\.\w+$/, "the program's main module", 2],
  [/^(src\/)?(app|server|manage|wsgi|asgi)\.\w+$/, "starts the application", 2],
  [/^(src\/)?[^/]+\/__init__\.py$/, "the package's public API", 3],
  [/^((src|packages\/[^/]+|lib)\/)?(index|mod)\.(ts|tsx|js|mjs)$/, "the package's public API", 3],
  [/^(src\/)?lib\.rs$/, "the crate's public API", 3],
  [/(^|\/)(bin|cmd)\/[^/]+$/, "a command-line entry point", 4],
];

/**
 * The onboarding order: entry points (main modules, CLI commands, exported
 * APIs, console scripts named by manifests), then core modules (central and
 * depending on others), then utilities (helpers many files use); tests, docs
 * and vendored code are left out.
 */
function onboardingPath(
  scope: RequestScope,
  graph: FileGraph,
  options: {
    byRank: number[];
    usedBy: Int32Array;
    uses: Int32Array;
    limitations: string[];
  },
): { node: number; stage: MapHit["stage"]; why: string }[] {
  const { byRank, usedBy, uses } = options;
  const scripts = manifestEntries(scope, graph);
  const stages: Record<"entry" | "core" | "utility", { node: number; why: string }[]> = {
    entry: [],
    core: [],
    utility: [],
  };
  const priority = new Map<number, number>();
  let skipped = 0;
  for (const node of byRank) {
    const file = graph.files[node];
    if (!isCode(file)) {
      skipped++;
      continue;
    }
    if (file.language === null) continue;
    const users = usedBy[node];
    const used = uses[node];
    const top = file.symbols.filter((s) => s.parentId === null && PRIMARY_KINDS.has(s.kind))
      .slice(0, 3).map((s) => s.name);
    const named = ENTRY_NAMES.find(([pattern]) => pattern.test(file.path));
    const entry = scripts.get(node) ?? named?.[1];
    if (entry) {
      priority.set(node, scripts.has(node) ? 0 : named![2]);
      const exports = file.path.endsWith("__init__.py") || /(index|mod)\.\w+$/.test(file.path)
        ? `; re-exports from ${used} file(s)`
        : "";
      stages.entry.push({ node, why: `${entry}${exports}` });
    } else if (users === 0 && file.symbols.length === 0) {
      continue;
    } else if (UTILITY_NAME.test(file.path) || (users >= 3 && used === 0)) {
      stages.utility.push({
        node,
        why: `helpers used by ${users} file(s)${top.length ? `: ${top.join(", ")}` : ""}`,
      });
    } else {
      stages.core.push({
        node,
        why: users > 0
          ? `used by ${users} file(s)${top.length ? `; defines ${top.join(", ")}` : ""}`
          : `defines ${top.join(", ") || "no top-level definitions"}; nothing else uses it`,
      });
    }
  }
  if (skipped > 0) options.limitations.push(`${skipped} test, doc or vendored file(s) left out`);
  // Entries by how telling their kind is, then by rank (the sort is stable).
  stages.entry.sort((a, b) => priority.get(a.node)! - priority.get(b.node)!);
  const lead = (stage: keyof typeof stages) =>
    stages[stage].slice(0, ONBOARDING_LEAD[stage]).map((entry) => ({ ...entry, stage }));
  const rest = (stage: keyof typeof stages) =>
    stages[stage].slice(ONBOARDING_LEAD[stage]).map((entry) => ({ ...entry, stage }));
  return [
    ...lead("entry"),
    ...lead("core"),
    ...lead("utility"),
    ...rest("entry"),
    ...rest("core"),
    ...rest("utility"),
  ];
}

/** Whether a file is the code itself (not a test, documentation or vendored code). */
function isCode(file: GraphFile): boolean {
  return !isTestPath(file.path) && !isDocPath(file.path, file.language) &&
    !isVendorPath(file.path);
}

/**
 * Files that manifests name as programs: `[project.scripts]` / `console_scripts`
 * (`name = "pkg.mod:func"`) and package.json `bin` / `main`. Manifests are read
 * from the index as text, never run.
 */
function manifestEntries(scope: RequestScope, graph: FileGraph): Map<number, string> {
  const found = new Map<number, string>();
  const byModule = new Map<string, number>();
  for (const [node, file] of graph.files.entries()) {
    const dotted = modulePath(file.path);
    byModule.set(`${file.repo}\0${dotted}`, node);
    if (dotted.startsWith("src.")) byModule.set(`${file.repo}\0${dotted.slice(4)}`, node);
  }
  for (const repo of scope.repositories) {
    const read = (path: string) =>
      scope.allowPath(repo.name, path)
        ? scope.workspace.withReader(repo, (reader) => reader.fileText(path)).value
        : null;
    for (const manifest of ["pyproject.toml", "setup.cfg", "setup.py"]) {
      const text = read(manifest);
      if (!text) continue;
      for (const m of text.matchAll(/["']?([\w.-]+)["']?\s*=\s*["']?([\w.]+):(\w+)/g)) {
        const node = byModule.get(`${repo.name}\0${m[2]}`);
        if (node !== undefined && !found.has(node)) {
          found.set(node, `console script '${m[1]}' (${manifest}) runs ${m[3]}()`);
        }
      }
    }
    const pkg = read("package.json");
    if (pkg) {
      try {
        const json = JSON.parse(pkg) as Record<string, unknown>;
        const bins = typeof json.bin === "string"
          ? { [String(json.name ?? "bin")]: json.bin }
          : (json.bin ?? {}) as Record<string, unknown>;
        const named: [string, unknown][] = [
          ...Object.entries(bins).map((
            [name, path],
          ): [string, unknown] => [`command '${name}'`, path]),
          ["package.json main", json.main],
          ["package.json module", json.module],
        ];
        for (const [what, path] of named) {
          if (typeof path !== "string") continue;
          const clean = path.replace(/^\.\//, "");
          const node = graph.index.get(`${repo.name}\0${clean}`) ??
            graph.index.get(`${repo.name}\0${clean.replace(/\.js$/, ".ts")}`);
          if (node !== undefined && !found.has(node)) found.set(node, `${what} (package.json)`);
        }
      } catch { /* not JSON: nothing named */ }
    }
  }
  return found;
}
