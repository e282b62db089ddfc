/**
 * `context`: a context pack for a query or a list of symbols, fitted to a
 * token budget. First the bodies of the best definitions (a long class as its
 * outline: signature, doc and member signatures), then their one-hop
 * neighbourhood: signatures of what they call and of the types they use, the
 * call sites of their callers, the import lines they rely on. Every piece says
 * why it is there, which definition it serves and whether its relation is
 * exact or approximate.
 *
 * Definitions come from search (a query) or the symbol index (names); the
 * neighbourhood from the resolver, at query time, over the caller's scope.
 */
import { analyzeQuery, type QueryAnalysis } from "../engine/query.ts";
import { LineIndex } from "../engine/lines.ts";
import { countedScore, type LineCounts, lineTermCounts, packOrder } from "../engine/pack.ts";
import { definitionExtent } from "../engine/extent.ts";
import { codeTerms } from "../engine/tokenizer.ts";
import { selectTerms } from "../search/lexical.ts";
import { lexicalStatistics } from "../search/visible_lexical.ts";
import { WireError } from "../protocol/errors.ts";
import { LIMITS, type MethodParams } from "../protocol/methods.ts";
import type { ContextData, Envelope, ResultHit } from "../protocol/types.ts";
import type { RequestScope } from "../workspace/scope.ts";
import { ScopeStore } from "../resolver/store.ts";
import { ModuleResolver } from "../resolver/modules.ts";
import { Resolver } from "../resolver/resolve.ts";
import { findSubject } from "../resolver/subject.ts";
import { type GraphEdge, inbound } from "../resolver/traverse.ts";
import { confidenceOf, type SymbolRecord } from "../resolver/types.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import { issueCursor, PageFitter, readCursor, tokenCost } from "./paging.ts";
import { search } from "./search.ts";
import { isDocPath, isTestPath } from "../search/rank.ts";
import { firstSentence, signatureLine } from "./summaries.ts";

export type ContextParams = MethodParams<"context">;

/** The budget of a pack when none is given (tokens, bytes / 4). */
export const DEFAULT_CONTEXT_BUDGET = 4000;
const DEFAULT_LIMIT = 200;
/** Search hits read to choose the definitions of a query. */
const QUERY_HITS = 30;
/** Files whose definitions are ranked by the query's terms, and how fast their prior falls. */
const RANKED_FILES = 5;
const FILE_PRIOR = 1;
/** What a search hit adds to the definition holding it: this share of the best score / rank. */
const HIT_SHARE = 1;
/** Definitions a query names outright that lead the pack at most. */
const NAMED_SEEDS = 2;
/** A search hit outside any definition: lines kept before its match, and at most in all. */
const EXCERPT_BEFORE = 3;
const EXCERPT_LINES = 16;
/** Definitions a pack is built around at most. */
const MAX_SEEDS = 20;
/** Definitions whose neighbourhood is packed (later ones rarely leave room for it). */
const NEIGHBOURHOOD_SEEDS = 8;
/** Tests, docs and examples explain the code a query is about less than the code itself. */
const NOT_CODE_PENALTY = 0.5;
/** Share of the budget the first bodies may take before the neighbourhood comes in. */
const BODY_SHARE = 0.7;
/** A class whose body costs more than this share of the budget is packed as its outline. */
const CLASS_BODY_SHARE = 0.4;
/** Neighbours listed per definition, by kind. */
const PER_SEED = { callee: 8, type: 4, caller: 5, import: 6 };
/** Kinds a body may be cut from (definitions that hold code). */
const BODY_KINDS = new Set([
  "function",
  "method",
  "class",
  "constructor",
  "interface",
  "struct",
  "enum",
  "trait",
  "impl",
  "module",
  "type",
  "macro",
]);
const TYPE_KINDS = new Set(["class", "interface", "struct", "enum", "trait", "type"]);
/** Kinds ranked by the query's terms inside the best files. */
const RANKED_KINDS = new Set(["function", "method", "constructor"]);
const CALLS = new Set(["calls"]);
/** Relations read for callees and types, and how many at most per definition. */
const OUTGOING = new Set(["calls", "type_of", "inherits", "implements"]);
const MAX_OUTGOING = 60;
/** Past this many same-named call sites, callers are left to the 'callers' action. */
const MAX_CALL_SITES = 300;
const TYPE_USES = new Set(["type_of", "inherits", "implements"]);

/** A definition the pack is built around. */
interface Seed {
  symbol: SymbolRecord;
  why: string;
  confidence: "exact" | "approximate";
  /** Module-level lines a search hit pointed at, when no definition encloses them. */
  excerpt?: { start: number; end: number };
}

/** A piece before its cost is known: the hit, and which group it is packed in. */
interface Piece {
  hit: ResultHit;
  seed: number;
  body: boolean;
}

/** A context pack for `query` and/or `symbols`, fitted to `token_budget`. */
export async function context(
  scope: RequestScope,
  params: ContextParams,
): Promise<Envelope<ContextData>> {
  const { workspace } = scope;
  const query = params.query?.trim() ?? "";
  const names = (params.symbols ?? []).map((name) => name.trim()).filter((name) => name !== "");
  if (query === "" && names.length === 0) {
    throw new WireError("InvalidParams", "'context' needs a 'query' or 'symbols'");
  }
  const budget = params.token_budget ?? DEFAULT_CONTEXT_BUDGET;
  const limit = params.limit ?? DEFAULT_LIMIT;
  const store = new ScopeStore(scope);
  const resolver = new Resolver(store, new ModuleResolver(store));
  // The resolver may read every visible repository: the cursor is bound to all of them.
  const binding = {
    action: "context",
    params: { ...params },
    repositories: repositoryStates(workspace, scope.visible, scope),
  };
  // A position is [the budget the order was planned for, the first piece not yet given, the
  // pieces after it already given], so a page continues its plan.
  const position = params.cursor === undefined
    ? [budget, 0]
    : readCursor(params.cursor, binding, isPosition);
  const [planned, first, ...delivered] = position;
  const limitations: string[] = [];
  const repos = scope.repositories.map((repo) => repo.name);

  const seeds: Seed[] = [];
  const seen = new Set<string>();
  const addSeed = (seed: Seed) => {
    const key = seed.excerpt
      ? `${seed.symbol.repo}\0${seed.symbol.path}\0${seed.excerpt.start}`
      : `${seed.symbol.repo}\0${seed.symbol.id}`;
    if (seen.has(key) || seeds.length >= MAX_SEEDS) return;
    // The request's `paths` and `language` choose the definitions; their neighbours may lie
    // anywhere the caller can see.
    const { path, language } = seed.symbol;
    if (!scope.matchesPaths(path) || !scope.matchesLanguage(language)) return;
    seen.add(key);
    seeds.push(seed);
  };
  for (const name of names) {
    const subject = findSubject(resolver, { repos, symbol: name, wholeFile: false });
    for (const root of subject.roots) {
      addSeed({ symbol: root, why: `named in symbols ('${name}')`, confidence: "exact" });
    }
    for (const candidate of subject.candidates.slice(0, 3)) {
      addSeed({
        symbol: candidate.symbol,
        why: `one of ${subject.candidates.length} definitions named '${name}'`,
        confidence: "approximate",
      });
    }
    if (subject.roots.length === 0 && subject.candidates.length === 0) {
      const like = subject.suggestions.length > 0
        ? ` (did you mean ${subject.suggestions.slice(0, 3).join(", ")}?)`
        : "";
      limitations.push(`no definition named '${name}' in scope${like}`);
    } else if (subject.candidates.length > 3) {
      limitations.push(
        `'${name}' names ${subject.candidates.length} definitions: the first 3 are packed; ` +
          "give a qualified name",
      );
    }
  }
  let searchConfidence: string | null = null;
  if (query !== "") {
    const analysis = analyzeQuery(query);
    if (analysis.terms.length === 0 && analysis.paths.length === 0) {
      limitations.push("the query has no searchable terms");
    } else {
      const answer = await search(scope, { query, limit: QUERY_HITS });
      searchConfidence = answer.provenance.confidence;
      limitations.push(...answer.limitations.filter((line) => !line.startsWith("answer cut")));
      const label = answer.provenance.confidence;
      // Candidates: the functions of the best files scored by the query's terms in their
      // bodies, plus, for each search hit, the definition holding its matching line (a
      // share of the best score that falls with the hit's rank).
      const candidates = rankDefinitions(scope, store, analysis, answer.results);
      const best = Math.max(1e-9, ...[...candidates.values()].map((c) => c.score));
      answer.results.forEach((hit, rank) => {
        const why = `matches the query (search rank ${rank + 1}, ${label})`;
        const bonus = HIT_SHARE * best / (1 + rank);
        const enclosing = enclosingDefinition(store, hit);
        const key = enclosing
          ? `${hit.repo}\0${enclosing.id}`
          : `${hit.repo}\0${hit.path}\0${hit.start_line}`;
        const known = candidates.get(key);
        if (known) {
          known.score += bonus;
          if (!known.seed.why.startsWith("matches")) known.seed.why = `${why}; ${known.seed.why}`;
          return;
        }
        if (enclosing) {
          candidates.set(key, {
            seed: { symbol: enclosing, why, confidence: "approximate" },
            score: bonus,
          });
          return;
        }
        const line = typeof hit.match_line === "number" ? hit.match_line : hit.start_line;
        const start = Math.max(hit.start_line, line - EXCERPT_BEFORE);
        candidates.set(key, {
          seed: {
            symbol: moduleSymbol(hit),
            why,
            confidence: "approximate",
            excerpt: { start, end: Math.min(hit.end_line, start + EXCERPT_LINES - 1) },
          },
          score: bonus,
        });
      });
      for (const candidate of candidates.values()) {
        const { path, language } = candidate.seed.symbol;
        if (isTestPath(path) || isDocPath(path, language) || /(^|\/)examples?\//.test(path)) {
          candidate.score *= NOT_CODE_PENALTY;
        }
      }
      const ordered = [...candidates.values()].sort((x, y) => y.score - x.score);
      // Specific identifiers the query names, defined in few places, follow the best one.
      const named = namedDefinitions(store, scope, analysis.identifiers, repos);
      ordered.forEach(({ seed }, i) => {
        addSeed(seed);
        if (i === 0) { for (const one of named) addSeed(one); }
      });
    }
  }
  if (seeds.length === 0) {
    limitations.push(
      query !== "" ? "nothing in scope matches the query" : "none of the symbols is in scope",
    );
  }

  const texts = new Map<string, LineIndex | null>();
  const linesOf = (repo: string, path: string): LineIndex | null => {
    const key = `${repo}\0${path}`;
    if (!texts.has(key)) {
      const text = store.fileText(repo, path);
      texts.set(key, text === null ? null : new LineIndex(text));
    }
    return texts.get(key)!;
  };
  const seedKeys = new Set(seeds.map((seed) => `${seed.symbol.repo}\0${seed.symbol.id}`));
  const pieces: Piece[] = [];
  seeds.forEach((seed, index) => {
    scope.throwIfCancelled("context");
    const body = bodyPiece(store, seed, { linesOf, budget: planned }, index);
    if (body) pieces.push({ hit: body, seed: index, body: true });
    if (!seed.excerpt && index < NEIGHBOURHOOD_SEEDS) {
      const docOf = (symbol: SymbolRecord) => docSentence(scope, symbol);
      for (const hit of neighbourhood(resolver, seed, { linesOf, docOf, seedKeys, index })) {
        pieces.push({ hit, seed: index, body: false });
      }
    }
  });
  const ordered = packOrder(
    pieces.map((piece) => ({ cost: tokenCost(piece.hit), body: piece.body, seed: piece.seed })),
    planned,
    BODY_SHARE,
  ).map((index) => pieces[index]);
  // A piece that does not fit is left for the next page while smaller ones still fill this
  // one; the cursor remembers which pieces past its start were already given.
  const fitter = new PageFitter({ limit, tokenBudget: budget });
  const given = new Set(delivered);
  let skipped = 0;
  for (let i = first; i < ordered.length && fitter.open; i++) {
    if (given.has(i)) continue;
    if (fitter.results.length === 0 || fitter.fits(ordered[i].hit)) {
      fitter.offer(ordered[i].hit);
      given.add(i);
    } else {
      skipped++;
    }
  }
  let nextFirst = first;
  while (nextFirst < ordered.length && given.has(nextFirst)) nextFirst++;
  const next = nextFirst < ordered.length
    ? [planned, nextFirst, ...[...given].filter((i) => i > nextFirst).sort((a, b) => a - b)]
    : null;
  limitations.push(...fitter.limitations);
  if (skipped > 0 && fitter.limitations.length === 0) {
    limitations.push(
      `${skipped} piece(s) did not fit token_budget ${budget}: continue with next_cursor`,
    );
  }
  for (const [repo, problem] of store.problems) {
    limitations.push(`${repo}: no index to pack from (target ${problem})`);
  }
  const counts: Record<string, number> = {};
  for (const hit of fitter.results) {
    counts[hit.piece as string] = (counts[hit.piece as string] ?? 0) + 1;
  }
  const approximate = fitter.results.some((hit) => hit.confidence === "approximate");
  return envelope({
    action: "context",
    results: fitter.results,
    provenance: {
      backend: query !== "" ? "fts+vector+relations" : "symbol-index+relations",
      confidence: approximate ? "approximate" : "exact",
    },
    repositories: repositoryStates(
      workspace,
      scope.visible.filter((repo) =>
        repos.includes(repo.name) || fitter.results.some((hit) => hit.repo === repo.name)
      ),
      scope,
    ),
    limitations: [
      ...limitations,
      ...(searchConfidence === "weak"
        ? [
          "search found no clear match for the query: the definitions packed may not be the ones meant",
        ]
        : []),
    ],
    truncated: next !== null,
    nextCursor: next === null ? null : issueCursor(binding, next),
    data: {
      seeds: seeds.map((seed) => ({
        repo: seed.symbol.repo,
        path: seed.symbol.path,
        symbol: seed.excerpt
          ? `${seed.symbol.path}:${seed.excerpt.start}-${seed.excerpt.end}`
          : seed.symbol.qualified,
        why: seed.why,
      })),
      pieces: counts,
      token_budget: budget,
    },
  });
}

function isPosition(value: unknown): value is number[] {
  return Array.isArray(value) && value.length >= 2 && value.length <= 2 + LIMITS.limit &&
    value.every((n) => typeof n === "number" && Number.isInteger(n) && n >= 0) && value[0] > 0;
}

/**
 * The functions and methods of the files search ranks best, ordered by how
 * well their bodies answer the query's terms (the file's rank a prior).
 */
function rankDefinitions(
  scope: RequestScope,
  store: ScopeStore,
  analysis: QueryAnalysis,
  hits: readonly ResultHit[],
): Map<string, { seed: Seed; score: number }> {
  const files: { repo: string; path: string }[] = [];
  for (const hit of hits) {
    if (files.length >= RANKED_FILES) break;
    if (!files.some((f) => f.repo === hit.repo && f.path === hit.path)) files.push(hit);
  }
  const termsOf = new Map<string, ReturnType<typeof selectTerms>>();
  const scored = new Map<string, { seed: Seed; score: number }>();
  files.forEach((file, rank) => {
    let terms = termsOf.get(file.repo);
    if (!terms) {
      const repository = scope.repository(file.repo);
      terms = repository
        ? scope.workspace.withReader(
          repository,
          (reader) => {
            // Over what the caller may see: a hidden file's terms weigh nothing here.
            const statistics = lexicalStatistics(reader, scope.pathRule(file.repo));
            return selectTerms(statistics, analysis.terms, statistics.chunks);
          },
        ).value ?? []
        : [];
      termsOf.set(file.repo, terms);
    }
    const lines = store.fileLines(file.repo, file.path);
    if (lines === null || terms.length === 0) return;
    // The file is tokenized once per generation (its lines' term counts kept), then only the
    // lines that may hold a query term; each body's counts are read off the running sums.
    const wanted = terms.map(({ term }) => term);
    let first: LineCounts | null = null;
    const sums = store.derived(
      file.repo,
      `line-term-sums\0${file.path}`,
      () => {
        const made = lineTermCounts(lines, wanted);
        first = made.counts;
        return made.sums;
      },
      (kept) => Math.ceil(kept.length / 64),
    );
    const counted: LineCounts = first ?? lineTermCounts(lines, wanted, sums).counts;
    for (const symbol of store.symbolsInFile(file.repo, file.path)) {
      if (!RANKED_KINDS.has(symbol.kind)) continue;
      const body = counted(symbol.startLine - 1, symbol.endLine);
      const score = countedScore(terms, body, { name: codeTerms(symbol.name) }) /
        (1 + FILE_PRIOR * rank);
      if (score > 0) {
        scored.set(`${file.repo}\0${symbol.id}`, {
          seed: {
            symbol,
            why: `its body matches the query's terms (file ${rank + 1} of the search)`,
            confidence: "approximate",
          },
          score,
        });
      }
    }
  });
  return scored;
}

/** Definitions of specific identifiers the query names (snake_case, CamelCase), if few. */
function namedDefinitions(
  store: ScopeStore,
  scope: RequestScope,
  identifiers: readonly string[],
  repos: string[],
): Seed[] {
  const out: Seed[] = [];
  for (const name of identifiers) {
    if (out.length >= NAMED_SEEDS) break;
    if (name.length < 6 || !/_\w|[a-z][A-Z]|\.|::/.test(name.replace(/^_+/, ""))) continue;
    const found = /\.|::/.test(name)
      ? store.symbolsQualified(repos, name)
      : store.symbolsNamed(repos, name);
    const kept = found.filter((s) =>
      BODY_KINDS.has(s.kind) && scope.matchesPaths(s.path) && !isTestPath(s.path)
    );
    if (kept.length === 0 || kept.length > 2) continue;
    for (const symbol of kept) {
      out.push({ symbol, why: `the query names '${name}'`, confidence: "approximate" });
    }
  }
  return out;
}

/**
 * The innermost definition that holds a search hit's first matching line, or
 * null (module-level code).
 */
function enclosingDefinition(store: ScopeStore, hit: ResultHit): SymbolRecord | null {
  const line = typeof hit.match_line === "number" ? hit.match_line : hit.start_line;
  const lines = store.fileLines(hit.repo, hit.path) ?? [""];
  // A line of the doc comment or decorators just above a definition belongs to it.
  const symbols = store.symbolsInFile(hit.repo, hit.path).filter((s) =>
    BODY_KINDS.has(s.kind) && s.endLine >= line &&
    (s.startLine <= line || definitionExtent(lines, s.startLine, s.endLine).start <= line)
  );
  if (symbols.length === 0) return null;
  symbols.sort((a, b) => (a.endLine - a.startLine) - (b.endLine - b.startLine));
  return symbols[0];
}

/** A stand-in definition for module-level lines of a file. */
function moduleSymbol(hit: ResultHit): SymbolRecord {
  return {
    repo: hit.repo,
    path: hit.path,
    language: hit.language,
    id: `file:${hit.path}`,
    name: hit.path.split("/").pop() ?? hit.path,
    qualified: hit.path,
    kind: "module",
    startLine: hit.start_line,
    startCol: 1,
    endLine: hit.end_line,
    endCol: 1,
    signature: null,
    parentId: null,
    exported: false,
  };
}

/** A definition's body (or a long class's outline, or a search excerpt) as a piece. */
function bodyPiece(
  store: ScopeStore,
  seed: Seed,
  options: { linesOf: (repo: string, path: string) => LineIndex | null; budget: number },
  index: number,
): ResultHit | null {
  const { linesOf, budget } = options;
  const s = seed.symbol;
  const lines = linesOf(s.repo, s.path);
  if (!lines) return null;
  const base = {
    repo: s.repo,
    path: s.path,
    language: s.language,
    source_kind: "local" as const,
    score: Math.round(1000 / (index + 1)) / 1000,
    for: s.qualified,
    why: seed.why,
    confidence: seed.confidence,
  };
  if (seed.excerpt) {
    const { start, end } = seed.excerpt;
    return {
      ...base,
      start_line: start,
      end_line: end,
      symbol: null,
      kind: "module",
      signature: null,
      snippet: lines.slice(start, end, end - start + 1),
      piece: "excerpt",
      why: `${seed.why}: module-level code`,
    };
  }
  // The same committed text as `lines` (a file without text returned above).
  const text = store.fileLines(s.repo, s.path) ?? [];
  const start = definitionExtent(text, s.startLine, s.endLine).start;
  const body: ResultHit = {
    ...base,
    start_line: start,
    end_line: s.endLine,
    symbol: s.qualified,
    kind: s.kind,
    signature: null,
    snippet: lines.slice(start, s.endLine, s.endLine - start + 1),
    piece: "body",
  };
  if (!TYPE_KINDS.has(s.kind) || tokenCost(body) <= budget * CLASS_BODY_SHARE) return body;
  // A long class as its outline: header, doc sentence, member signatures.
  const members = store.childrenOf(s).filter((m) => m.kind !== "variable");
  const header = lines.slice(start, s.startLine, s.startLine - start + 1);
  const outline = [
    header,
    ...members.map((m) => `  ${m.startLine}: ${signatureLine(m)}`),
  ].join("\n");
  return {
    ...body,
    snippet: outline,
    piece: "outline",
    why: `${seed.why}; ${s.endLine - s.startLine + 1} lines, shown as its members' signatures`,
  };
}

/** The one-hop neighbourhood of a definition: callees, types, callers, imports. */
function neighbourhood(
  resolver: Resolver,
  seed: Seed,
  options: {
    linesOf: (repo: string, path: string) => LineIndex | null;
    docOf: (symbol: SymbolRecord) => string | null;
    seedKeys: Set<string>;
    index: number;
  },
): ResultHit[] {
  const store = resolver.store;
  const s = seed.symbol;
  const out: ResultHit[] = [];
  const score = Math.round(500 / (options.index + 1)) / 1000;
  const signatureHit = (
    target: SymbolRecord,
    edge: GraphEdge,
    piece: "callee" | "type",
  ): ResultHit => {
    const verb = piece === "callee" ? "called" : `used as a type (${edge.relation.kind})`;
    const doc = options.docOf(target);
    const signature = signatureLine(target);
    return {
      repo: target.repo,
      path: target.path,
      start_line: target.startLine,
      end_line: target.endLine,
      symbol: target.qualified,
      kind: target.kind,
      signature: null,
      language: target.language,
      source_kind: "local",
      score,
      snippet: doc ? `${signature}\n  ${doc}` : signature,
      piece,
      for: s.qualified,
      why: `${verb} by ${s.name} at line ${edge.relation.startLine}`,
      confidence: confidenceOf(edge.evidence),
      evidence: edge.evidence,
    };
  };
  const out1 = outgoing(resolver, s);
  const listed = new Set<string>();
  const isListed = (target: SymbolRecord) => {
    const key = `${target.repo}\0${target.id}`;
    if (listed.has(key) || options.seedKeys.has(key)) return true;
    listed.add(key);
    return false;
  };
  let callees = 0;
  let types = 0;
  for (const edge of out1.edges) {
    if (edge.relation.kind === "calls" && callees < PER_SEED.callee) {
      if (isListed(edge.to)) continue;
      out.push(signatureHit(edge.to, edge, "callee"));
      callees++;
    } else if (
      TYPE_USES.has(edge.relation.kind) && TYPE_KINDS.has(edge.to.kind) && types < PER_SEED.type
    ) {
      if (isListed(edge.to)) continue;
      out.push(signatureHit(edge.to, edge, "type"));
      types++;
    }
  }
  // Callers: the call sites, a line of context each side; a name called from too many places
  // to resolve here gets a note instead.
  const sites = callSitesNaming(store, s);
  const callers = sites > MAX_CALL_SITES ? [] : inbound(resolver, s, CALLS).edges;
  // A note about the callers left out, at the definition's first line.
  const callerNote = (snippet: string, why: string): ResultHit => ({
    repo: s.repo,
    path: s.path,
    start_line: s.startLine,
    end_line: s.startLine,
    symbol: s.qualified,
    kind: "note",
    signature: null,
    language: s.language,
    source_kind: "local",
    score,
    snippet,
    piece: "caller",
    for: s.qualified,
    why,
    confidence: "exact",
  });
  if (sites > MAX_CALL_SITES) {
    out.push(callerNote(
      `${sites} call sites are written '${s.name}': ask 'callers' for those of this one`,
      "too many same-named call sites to resolve in a pack",
    ));
  }
  for (const edge of callers.slice(0, PER_SEED.caller)) {
    const r = edge.relation;
    const lines = options.linesOf(r.repo, r.path);
    if (!lines) continue;
    const from = Math.max(1, r.startLine - 1);
    out.push({
      repo: r.repo,
      path: r.path,
      start_line: from,
      end_line: r.endLine + 1,
      symbol: edge.from.qualified,
      kind: "call",
      signature: null,
      language: r.language,
      source_kind: "local",
      score,
      snippet: lines.slice(from, r.endLine + 1, r.endLine - from + 2),
      piece: "caller",
      for: s.qualified,
      why: `${edge.from.name} calls ${s.name} here`,
      confidence: confidenceOf(edge.evidence),
      evidence: edge.evidence,
    });
  }
  if (callers.length > PER_SEED.caller) {
    out.push(callerNote(
      `${callers.length - PER_SEED.caller} more caller(s): ask 'callers' for all`,
      "callers beyond those packed",
    ));
  }
  // Imports of its file that the definition relies on: the names its uses are written with.
  const written = new Set<string>();
  for (const relation of store.relationsFrom(s)) {
    written.add(relation.receiver?.split(".")[0] ?? relation.target.split(".")[0]);
  }
  const lines = options.linesOf(s.repo, s.path);
  let imports = 0;
  const importLines = new Set<number>();
  for (const relation of store.importsOfFile(s.repo, s.path)) {
    const bound = relation.alias ?? relation.target.split(".")[0];
    if (!written.has(bound) || importLines.has(relation.startLine) || imports >= PER_SEED.import) {
      continue;
    }
    importLines.add(relation.startLine);
    imports++;
    out.push({
      repo: s.repo,
      path: s.path,
      start_line: relation.startLine,
      end_line: relation.endLine,
      symbol: null,
      kind: "import",
      signature: null,
      language: s.language,
      source_kind: "local",
      score,
      snippet: lines?.slice(relation.startLine, relation.endLine, 6) ?? "",
      piece: "import",
      for: s.qualified,
      why: `${s.name} uses '${bound}'`,
      confidence: "exact",
    });
  }
  return out;
}

/**
 * What a definition calls and the types it uses, resolved: its first
 * MAX_OUTGOING call, type and inheritance relations in source order.
 */
function outgoing(resolver: Resolver, symbol: SymbolRecord): { edges: GraphEdge[] } {
  const edges: GraphEdge[] = [];
  const relations = resolver.store.relationsFrom(symbol).filter((r) => OUTGOING.has(r.kind))
    .slice(0, MAX_OUTGOING);
  for (const relation of relations) {
    const resolution = resolver.resolve(relation);
    if (resolution.status !== "resolved") continue;
    const target = resolution.symbol;
    if (target.id === symbol.id && target.repo === symbol.repo) continue;
    edges.push({
      from: symbol,
      to: target,
      relation,
      evidence: resolution.evidence,
      ...(resolution.note ? { note: resolution.note } : {}),
    });
  }
  return { edges };
}

/** How many call sites in the definition's resolver scope are written with its name. */
function callSitesNaming(store: ScopeStore, symbol: SymbolRecord): number {
  let count = 0;
  for (const repo of store.scopeOf(symbol.repo)) {
    count += store.relationsTargeting(repo, [symbol.name]).filter((r) => r.kind === "calls").length;
  }
  return count;
}

/** The first doc sentence of a definition, read from its target (null when hidden or none). */
function docSentence(scope: RequestScope, symbol: SymbolRecord): string | null {
  const repository = scope.repository(symbol.repo);
  if (!repository || !scope.allowPath(symbol.repo, symbol.path)) return null;
  const doc =
    scope.workspace.withReader(repository, (reader) => reader.symbolById(symbol.id)[0]?.doc)
      .value;
  return firstSentence(doc ?? null);
}

/**
 * Who is asking and what they may see, as actions receive it: the policy's
 * `AccessContext` (the embedded CLI without an agent passes an empty one).
 * Actions never read it directly; dispatch turns it into a `RequestScope`.
 */
export type { AccessContext as ActionContext } from "../workspace/scope.ts";
