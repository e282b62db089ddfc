/**
 * Navigation actions over the relation graph: definition, references,
 * callers, callees, impact and neighborhood. Each answer is resolved at query
 * time over the caller's scope; nothing is persisted.
 */
import type { MethodParams } from "../protocol/methods.ts";
import type { Envelope, NavigationData, ResultHit } from "../protocol/types.ts";
import { WireError } from "../protocol/errors.ts";
import { normaliseRequestPath } from "../workspace/workspace.ts";
import type { RequestScope } from "../workspace/scope.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import { isOffset, issueCursor, PageFitter, pageOf, readCursor, tokenCost } from "./paging.ts";
import { ScopeStore } from "../resolver/store.ts";
import { ModuleResolver } from "../resolver/modules.ts";
import { Resolver } from "../resolver/resolve.ts";
import {
  type Ambiguity,
  type GraphEdge,
  type GraphNode,
  pathConfidence,
  type Reached,
  type TraversalResult,
  traverse,
} from "../resolver/traverse.ts";
import { mermaidDiagram } from "../resolver/mermaid.ts";
import { dynamicSites } from "../resolver/dynamic.ts";
import { uncommittedChanges } from "../resolver/diff.ts";
import { findSubject, type Subject } from "../resolver/subject.ts";
import {
  type Candidate,
  confidenceOf,
  type Evidence,
  EVIDENCE_LEVEL,
  languageFamily,
  type SymbolRecord,
} from "../resolver/types.ts";

export type NavigationAction =
  | "definition"
  | "references"
  | "callers"
  | "callees"
  | "impact"
  | "neighborhood";

/** The params of every navigation action (impact's are the widest: it also takes `diff`). */
export type NavigationParams = MethodParams<"impact">;

/** Hops a traversal may take; deeper requests are clamped and told so. */
export const MAX_DEPTH = 10;
const DEFAULT_DEPTH: Record<NavigationAction, number> = {
  definition: 1,
  references: 1,
  callers: 1,
  callees: 1,
  impact: 3,
  neighborhood: 1,
};
const DEFAULT_LIMIT = 50;
/** Nodes a walk may reach when filters thin out its hits. */
const MAX_WALK_NODES = 10_000;
const CALLS = new Set(["calls"]);

/** Navigation over the relation graph, resolved over each repository's resolver scope. */
export async function navigate(
  scope: RequestScope,
  action: NavigationAction,
  params: NavigationParams,
): Promise<Envelope<NavigationData>> {
  const { workspace } = scope;
  const store = new ScopeStore(scope);
  const resolver = new Resolver(store, new ModuleResolver(store));
  const limitations: string[] = [];
  const path = params.path === undefined ? undefined : normaliseRequestPath(params.path);
  let depth = params.depth ?? DEFAULT_DEPTH[action];
  if (depth > MAX_DEPTH) {
    limitations.push(`depth ${depth} was clamped to ${MAX_DEPTH}`);
    depth = MAX_DEPTH;
  }
  const limit = params.limit ?? DEFAULT_LIMIT;
  // A cursor is bound to every visible repository: the resolver may read any of them.
  const binding = {
    action,
    params: { ...params },
    repositories: repositoryStates(workspace, scope.visible, scope),
  };
  const offset = params.cursor === undefined ? 0 : readCursor(params.cursor, binding, isOffset);
  const searchRepos = scope.repositories.map((repo) => repo.name);

  let subject: Subject;
  if (action === "impact" && params.diff) {
    subject = await diffSubject(store, searchRepos, limitations);
  } else {
    if (params.symbol === undefined && path === undefined) {
      throw new WireError(
        "InvalidParams",
        `'${action}' needs 'symbol', or 'path' (with 'line' and 'column' for a use)` +
          (action === "impact" ? ", or 'diff'" : ""),
      );
    }
    subject = findSubject(resolver, {
      repos: searchRepos,
      siblings: scope.resolverRepositories().map((repo) => repo.name),
      symbol: params.symbol,
      path,
      line: params.line,
      column: params.column,
      wholeFile: action === "impact",
    });
  }
  limitations.push(...subject.limitations);

  const answer: Answer = {
    results: [],
    candidates: [],
    confidence: "exact",
    data: { depth, evidence_levels: EVIDENCE_LEVEL },
  };
  // Candidates are the definitions a name may mean, or else ambiguous uses met by the walk.
  const definitions = subject.roots.length === 0 || action === "definition";
  if (definitions) {
    definitionAnswer(answer, subject, store);
  } else {
    const walk = (nodes: number) =>
      traverse(resolver, {
        roots: subject.roots,
        direction: action === "callees" ? "out" : action === "neighborhood" ? "both" : "in",
        kinds: action === "callers" || action === "callees" ? CALLS : null,
        depth: action === "references" ? 1 : depth,
        limit: nodes,
        selfUses: action === "references",
      });
    let nodes = offset + limit + 1;
    let result = walk(nodes);
    // A walk cut short whose hits the `paths`/`language` filters thin out goes further, so a
    // page is never empty only because the walk stopped early.
    while (
      result.cut && nodes < MAX_WALK_NODES &&
      keptSites(result, action, scope) <= offset + limit
    ) {
      nodes = Math.min(MAX_WALK_NODES, nodes * 4);
      result = walk(nodes);
    }
    graphAnswer(answer, { action, subject, result, store, limitations });
    if (params.format === "mermaid" && (action === "impact" || action === "neighborhood")) {
      answer.data.mermaid = mermaidDiagram(subject.roots, result.reached);
    }
    answer.data.nodes_expanded = result.expanded;
  }
  if (subject.candidates.length > 0) {
    limitations.push(subject.ambiguity ?? "the symbol is ambiguous: see candidates");
  }
  limitations.push(...dynamicLimitations(store, answer, subject));
  // What could not be read is named: an answer is never exact about what it did not search.
  const unread = [...store.problems].map(([repo, problem]) => `${repo} (target ${problem})`);
  if (unread.length > 0) {
    limitations.push(
      `not searched: ${unread.join(", ")}; answered without ${
        unread.length === 1 ? "it" : "them"
      } (refresh to index)`,
    );
  }
  for (const [repo, problem] of store.dependencyProblems) {
    limitations.push(`${repo}: dependency target ${problem}; uses into it are not resolved`);
  }
  // Records in dependency packages, as the caller sees them (under the importing repository).
  answer.results = store.presentDependencies(answer.results);
  answer.candidates = store.presentDependencies(answer.candidates);
  answer.data = store.presentDependencies(answer.data);
  limitations.splice(0, limitations.length, ...store.presentDependencies(limitations));

  // Filters on the answer (never on the resolver's scope), then paging and budget.
  const kept = answer.results.filter((hit) =>
    scope.matchesPaths(hit.path) && scope.matchesLanguage(hit.language)
  );
  const page = pageOf(kept, { offset, limit, tokenBudget: params.token_budget });
  limitations.push(...page.limitations);
  const results = page.results;
  // Candidates share the first page: at most `limit`, within what the budget leaves after the
  // results (later pages continue the results only).
  const spent = results.reduce((sum, hit) => sum + tokenCost(hit), 0);
  const budget = params.token_budget ?? null;
  const fitter = new PageFitter({
    limit,
    tokenBudget: budget === null ? null : Math.max(0, budget - spent),
  });
  if (offset === 0) {
    for (const candidate of answer.candidates) {
      if (!fitter.fits(candidate)) break;
      fitter.offer(candidate);
    }
  } else if (answer.candidates.length > 0) {
    limitations.push("candidates are listed on the first page of this answer");
  }
  const listed = fitter.results;
  const candidatesCut = offset === 0 && listed.length < answer.candidates.length;
  if (candidatesCut) {
    limitations.push(
      `${answer.candidates.length} candidate(s); the first ${listed.length} are listed ` +
        (listed.length >= limit ? `(limit ${limit})` : `(token_budget ${budget})`) +
        (definitions ? ": a qualified name, or 'path', narrows them" : ""),
    );
  }
  // A walk cut at its node limit may hold more beyond this page even when the list does not.
  const cut = answer.data.cut === true;
  const next = page.next ?? (cut && results.length > 0 ? offset + results.length : null);
  if (cut && next === null) {
    limitations.push(
      `the walk stopped at ${MAX_WALK_NODES} nodes: narrow 'paths', 'language' or 'depth' to see more`,
    );
  }
  const truncated = next !== null || cut || candidatesCut;
  const nextCursor = next === null ? null : issueCursor(binding, next);
  answer.data.rows_read = store.rowsRead;
  // Every repository the answer came from or looked in, the answering siblings included.
  const answering = [
    ...searchRepos,
    ...subject.scopeRepos,
    ...answer.results.map((hit) => hit.repo),
    ...answer.candidates.map((hit) => hit.repo),
  ];
  const repos = [...new Set(answering)]
    .filter((name) => searchRepos.includes(name) || !store.problems.has(name))
    .map((name) => store.repository(name)).filter((r) => r !== null);
  const approximate = results.some((hit) => hit.confidence === "approximate") ||
    answer.confidence === "approximate" ||
    // Part of the scope could not be read: an absence, or a list of uses, is not known whole.
    (store.problems.size > 0 && (answer.results.length === 0 || action !== "definition"));
  const built = envelope({
    action,
    results,
    provenance: {
      backend: "relations",
      confidence: approximate ? "approximate" : "exact",
      fresh: store.problems.size === 0,
    },
    repositories: repositoryStates(workspace, repos, scope),
    limitations,
    truncated,
    nextCursor,
    data: answer.data,
  });
  if (listed.length > 0) built.candidates = listed;
  return built;
}

interface Answer {
  results: ResultHit[];
  candidates: ResultHit[];
  confidence: "exact" | "approximate";
  data: Record<string, unknown>;
}

function definitionAnswer(answer: Answer, subject: Subject, store: ScopeStore): void {
  for (const root of subject.roots) {
    const evidence = subject.evidence ?? "same_file";
    answer.results.push({
      ...definitionHit(root, store),
      evidence,
      evidence_level: EVIDENCE_LEVEL[evidence],
      confidence: confidenceOf(evidence),
      ...(subject.note ? { note: subject.note } : {}),
      ...(subject.use ? { use: subject.use } : {}),
    });
    if (confidenceOf(evidence) === "approximate") answer.confidence = "approximate";
  }
  for (const candidate of subject.candidates) {
    answer.candidates.push({ ...definitionHit(candidate.symbol, store), why: candidate.reason });
  }
  if (subject.suggestions.length > 0) answer.data.suggestions = subject.suggestions;
}

function definitionHit(symbol: SymbolRecord, store: ScopeStore): ResultHit {
  return {
    repo: symbol.repo,
    path: symbol.path,
    start_line: symbol.startLine,
    end_line: symbol.endLine,
    symbol: symbol.qualified,
    kind: symbol.kind,
    signature: symbol.signature,
    language: symbol.language,
    source_kind: "local",
    score: 1,
    snippet: store.snippet(symbol.repo, symbol.path, symbol.startLine, symbol.endLine, 12),
    name: symbol.name,
    start_column: symbol.startCol,
  };
}

function graphAnswer(
  answer: Answer,
  options: {
    action: NavigationAction;
    subject: Subject;
    result: TraversalResult;
    store: ScopeStore;
    limitations: string[];
  },
): void {
  const { action, subject, result, store, limitations } = options;
  const edgeHits = (entry: Reached): GraphEdge[] =>
    action === "references" ? [entry.edge, ...entry.sites] : [entry.edge];
  for (const entry of result.reached) {
    for (const edge of edgeHits(entry)) {
      const confidence = pathConfidence(entry.path.slice(0, -1).concat(edge));
      answer.results.push({
        ...siteHit(edge, store),
        symbol: entry.node.qualified,
        kind: edge.relation.kind,
        signature: entry.node.signature,
        score: Math.round(1000 / (entry.depth + EVIDENCE_LEVEL[edge.evidence] / 10)) / 1000,
        relation: edge.relation.kind,
        direction: entry.direction,
        depth: entry.depth,
        evidence: edge.evidence,
        evidence_level: EVIDENCE_LEVEL[edge.evidence],
        confidence,
        ...(edge.note ? { note: edge.note } : {}),
        node: nodeSummary(entry.node),
        via: entry.path.slice(0, -1).concat(edge).map(edgeSummary),
        ...(action !== "references" && entry.sites.length > 0
          ? { other_sites: entry.sites.map((site) => siteSummary(site)) }
          : {}),
      });
    }
  }
  // Uses that could mean the same definitions are one candidate: the first use is the hit, the
  // rest its `other_sites`. A hub name (`doit`, `__init__`) is written at thousands of sites, each
  // meaning any of its hundreds of definitions; listed use by use that is megabytes no one reads.
  const groups = ambiguityGroups(result.ambiguities);
  for (const group of groups) {
    const [first, ...rest] = group.uses;
    const shown = first.candidates.slice(0, DEFINITIONS_LISTED);
    answer.candidates.push({
      ...siteHit(
        { from: first.from, to: first.from, relation: first.relation, evidence: "unique_name" },
        store,
      ),
      symbol: first.from.qualified,
      kind: first.relation.kind,
      signature: null,
      score: 0,
      why: first.reason,
      depth: first.depth,
      candidates: shown.map(candidateSummary),
      ...(first.candidates.length > shown.length
        ? { candidates_total: first.candidates.length }
        : {}),
      ...(group.count > 1 ? { uses: group.count } : {}),
      ...(rest.length > 0
        ? {
          other_sites: rest.map((use) => ({
            ...siteSummary({
              from: use.from,
              to: use.from,
              relation: use.relation,
              evidence: "unique_name",
            }),
            symbol: use.from.qualified,
            depth: use.depth,
          })),
        }
        : {}),
    });
  }
  if (result.ambiguities.length > 0) {
    limitations.push(
      `${result.ambiguities.length} use(s) could mean several definitions; their branches stop and come back as candidates` +
        (groups.length < result.ambiguities.length
          ? ` (${groups.length}: one per group of uses that could mean the same definitions)`
          : ""),
    );
    answer.data.ambiguous_uses = result.ambiguities.length;
  }
  const unresolved = result.unresolved.filter((u) => !u.external);
  const external = result.unresolved.filter((u) => u.external);
  for (const u of unresolved.slice(0, NAMED_SITES)) {
    limitations.push(
      `${u.relation.kind} '${
        written(u.relation)
      }' at ${u.relation.repo}:${u.relation.path}:${u.relation.startLine} resolves to nothing: ${u.reason}`,
    );
  }
  if (unresolved.length > NAMED_SITES) {
    limitations.push(
      `${unresolved.length - NAMED_SITES} more uses resolve to nothing in scope (data.unresolved)`,
    );
  }
  if (external.length > 0) {
    limitations.push(`${external.length} use(s) lead outside the resolver scope (data.unresolved)`);
  }
  if (result.unresolved.length > 0) {
    answer.data.unresolved = result.unresolved.slice(0, 100).map((u) => ({
      ...siteSummary({ from: u.from, to: u.from, relation: u.relation, evidence: "unique_name" }),
      target: written(u.relation),
      external: u.external,
      reason: u.reason,
    }));
  }
  // Edges matched by name through a receiver of no evident type: the first ones named, the rest
  // counted (a walk through a hub reaches dozens, each otherwise a line of its own).
  const dispatched = result.reached.filter((entry) =>
    entry.edge.evidence === "unique_name" && entry.edge.relation.receiver
  );
  for (const entry of dispatched.slice(0, NAMED_SITES)) {
    const r = entry.edge.relation;
    limitations.push(
      `dynamic dispatch at ${r.repo}:${r.path}:${r.startLine}: '${r.receiver}.${r.target}' has no statically evident receiver type; matched by name (approximate)`,
    );
  }
  if (dispatched.length > NAMED_SITES) {
    limitations.push(
      `dynamic dispatch at ${
        dispatched.length - NAMED_SITES
      } more sites: receivers of no statically evident type, matched by name (approximate)`,
    );
  }
  if (result.cut) answer.data.cut = true;
  answer.data.roots = subject.roots.map(nodeSummary);
}

function siteHit(edge: GraphEdge, store: ScopeStore): ResultHit {
  const r = edge.relation;
  return {
    repo: r.repo,
    path: r.path,
    start_line: r.startLine,
    end_line: r.endLine,
    start_column: r.startCol,
    end_column: r.endCol,
    symbol: null,
    kind: r.kind,
    signature: null,
    language: r.language,
    source_kind: "local",
    score: 0,
    snippet: store.snippet(r.repo, r.path, r.startLine, r.endLine, 3),
  };
}

/** Sites a limitation names one by one before it counts the rest. */
const NAMED_SITES = 5;
/** Definitions a candidate lists (the rest are counted in `candidates_total`). */
const DEFINITIONS_LISTED = 20;
/** Further uses a candidate lists as `other_sites` (all are counted in `uses`). */
const SITES_LISTED = 10;

/** Ambiguous uses that could mean the same definitions, in walk order. */
interface AmbiguityGroup {
  /** The first use, then up to SITES_LISTED more. */
  uses: Ambiguity[];
  count: number;
}

/**
 * Groups ambiguous uses by the definitions they could mean (the same definitions in the same
 * order), in the order the walk met them.
 */
function ambiguityGroups(ambiguities: readonly Ambiguity[]): AmbiguityGroup[] {
  // Uses resolved alike (one receiver and name) share one candidate array: keyed once, by the
  // numbers given to the definitions (a record is keyed once however many arrays hold it).
  const keys = new Map<Ambiguity["candidates"], string>();
  const records = new Map<SymbolRecord, number>();
  const definitions = new Map<string, number>();
  const numberOf = (s: SymbolRecord): number => {
    let n = records.get(s);
    if (n === undefined) {
      const key = `${s.repo}\0${s.path}\0${s.startLine}\0${s.startCol}\0${s.qualified}`;
      n = definitions.get(key);
      if (n === undefined) definitions.set(key, n = definitions.size);
      records.set(s, n);
    }
    return n;
  };
  const groups = new Map<string, AmbiguityGroup>();
  for (const ambiguity of ambiguities) {
    let key = keys.get(ambiguity.candidates);
    if (key === undefined) {
      key = ambiguity.candidates.map((c) => numberOf(c.symbol)).join(",");
      keys.set(ambiguity.candidates, key);
    }
    const group = groups.get(key);
    if (!group) groups.set(key, { uses: [ambiguity], count: 1 });
    else if (++group.count <= SITES_LISTED + 1) group.uses.push(ambiguity);
  }
  return [...groups.values()];
}

/** One definition an ambiguous use may mean, as a candidate hit lists it. */
interface CandidateSummary {
  repo: string;
  path: string;
  start_line: number;
  symbol: string;
  kind: string;
  why: string;
}

function candidateSummary(c: Candidate): CandidateSummary {
  return {
    repo: c.symbol.repo,
    path: c.symbol.path,
    start_line: c.symbol.startLine,
    symbol: c.symbol.qualified,
    kind: c.symbol.kind,
    why: c.reason,
  };
}

function nodeSummary(node: GraphNode) {
  return {
    repo: node.repo,
    path: node.path,
    symbol: node.qualified,
    kind: node.kind,
    start_line: node.startLine,
    end_line: node.endLine,
  };
}

function edgeSummary(edge: GraphEdge) {
  return {
    from: edge.from.qualified,
    to: edge.to.qualified,
    relation: edge.relation.kind,
    evidence: edge.evidence,
    site: `${edge.relation.repo}:${edge.relation.path}:${edge.relation.startLine}`,
  };
}

function siteSummary(edge: GraphEdge) {
  const r = edge.relation;
  return {
    repo: r.repo,
    path: r.path,
    start_line: r.startLine,
    end_line: r.endLine,
    start_column: r.startCol,
  };
}

function written(relation: { receiver: string | null; target: string }): string {
  return relation.receiver ? `${relation.receiver}.${relation.target}` : relation.target;
}

/** Reflection, eval, injection, patching and generated code in the files an answer touches. */
function dynamicLimitations(store: ScopeStore, answer: Answer, subject: Subject): string[] {
  const files = new Map<string, { repo: string; path: string; language: string | null }>();
  for (const root of subject.roots) files.set(`${root.repo}\0${root.path}`, root);
  for (const hit of [...answer.results, ...answer.candidates]) {
    if (files.size >= 40) break;
    files.set(`${hit.repo}\0${hit.path}`, {
      repo: hit.repo,
      path: hit.path,
      language: hit.language,
    });
  }
  const out: string[] = [];
  for (const file of files.values()) {
    // A package's own reflection is its business, not a limit of this answer.
    if (store.dependency(file.repo)) continue;
    if (!store.allowed(file.repo, file.path)) continue;
    // Read once per generation of the target: the same files come back answer after answer.
    const found = store.derived(
      file.repo,
      `dynamic-sites\0${file.path}\0${file.language}`,
      () => {
        const text = store.fileText(file.repo, file.path);
        const family = languageFamily(file.language);
        return text === null ? null : dynamicSites({ ...file, family, text, max: 3 });
      },
      (sites) => sites?.length ?? 0,
    );
    for (const site of found ?? []) {
      out.push(
        `${site.what} at ${site.repo}:${site.path}:${site.line}${
          site.text ? ` (${site.text})` : ""
        }: uses through it are not resolved statically`,
      );
      if (out.length >= 10) return out;
    }
  }
  return out;
}

async function diffSubject(
  store: ScopeStore,
  repos: string[],
  limitations: string[],
): Promise<Subject> {
  const roots: SymbolRecord[] = [];
  const touched: { repo: string; path: string; symbols: string[] }[] = [];
  for (const name of repos) {
    const repository = store.repository(name);
    if (!repository) continue;
    const changes = await uncommittedChanges(repository.root);
    if (changes === null) {
      limitations.push(`${name}: not a git work tree with a HEAD; no diff to read`);
      continue;
    }
    for (const change of changes) {
      if (!store.allowed(name, change.path)) continue;
      const symbols = store.symbolsInFile(name, change.path);
      let hit = change.whole
        ? symbols
        : symbols.filter((s) =>
          change.ranges.some((r) => r.start <= s.endLine && r.end >= s.startLine)
        );
      // Innermost definitions only: a changed method, not its whole class.
      hit = hit.filter((s) => !hit.some((o) => o !== s && o.parentId === s.id));
      if (change.whole) hit = symbols;
      roots.push(...hit);
      touched.push({ repo: name, path: change.path, symbols: hit.map((s) => s.qualified) });
      if (change.deleted) {
        limitations.push(
          `${name}:${change.path} is deleted in the working tree; its indexed definitions are the roots`,
        );
      }
    }
  }
  limitations.push(
    "impact --diff reads definitions from the committed index: pass refresh: true to index the working tree first",
  );
  return {
    roots,
    candidates: [],
    suggestions: [],
    limitations: [],
    scopeRepos: repos,
    evidence: "same_file",
    changed: touched,
  };
}

/** How many hits a walk gives that the request's `paths` and `language` filters keep. */
function keptSites(result: TraversalResult, action: NavigationAction, scope: RequestScope): number {
  let count = 0;
  for (const entry of result.reached) {
    for (const edge of action === "references" ? [entry.edge, ...entry.sites] : [entry.edge]) {
      const r = edge.relation;
      if (scope.matchesPaths(r.path) && scope.matchesLanguage(r.language)) count++;
    }
  }
  return count;
}

export type { Evidence };
