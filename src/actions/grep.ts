import type { Language, Node, Parser, Tree } from "web-tree-sitter";
import { WireError } from "../protocol/errors.ts";
import type { MethodParams } from "../protocol/methods.ts";
import type { Envelope, GrepData, ResultHit } from "../protocol/types.ts";
import { type UnitTable, unpackUnitTable } from "../store/packing.ts";
import type { CandidateFile, TargetReader } from "../store/reader.ts";
import type { ReadProblem, Repository } from "../workspace/workspace.ts";
import type { RequestScope } from "../workspace/scope.ts";
import { type GrepPosition, isGrepPosition } from "../grep/cursor.ts";
import {
  GREP_LANGUAGES,
  type GrepLanguage,
  grepLanguageForPath,
  grepLanguageNamed,
} from "../grep/languages.ts";
import { type Bindings, findMatches } from "../grep/matcher.ts";
import { parserFor } from "../grep/parsers.ts";
import { pythonStatementRanges } from "../grep/python_statements.ts";
import { knownRegions, recordRegions, regionKey } from "../grep/regions.ts";
import {
  type ParsePlan,
  rangedInput,
  topLevelPlan,
  topLevelRanges,
  unitPlan,
} from "../grep/plan.ts";
import { type CompiledPattern, compilePattern, InvalidPatternError } from "../grep/pattern.ts";
import {
  candidateFiles,
  containsAll,
  containsInOrder,
  requiredPhrases,
  requiredTerms,
} from "../grep/prefilter.ts";
import { LineIndex } from "../engine/lines.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import { issueCursor, PageFitter, readCursor } from "./paging.ts";
import { LIVE_SCAN_LIMITS, liveFiles, liveListing } from "./live_scan.ts";
import { sha256Hex } from "../engine/hash.ts";

export type GrepParams = MethodParams<"grep">;

/** Bounds of one grep request: pattern size, default page, time. */
export const GREP_LIMITS = {
  patternBytes: 16 * 1024,
  defaultLimit: 50,
  defaultTimeoutMs: 10_000,
  /** How long the matcher runs before it lets other requests of the daemon in. */
  sliceMs: 50,
};

/**
 * Structural grep: files that hold the pattern's literal tokens
 * come from the chunk terms of the index; each is parsed and
 * matched by node shape. Bounded by `limit`, `token_budget` and `timeout_ms`:
 * a partial answer is `truncated` with a `next_cursor` that continues it.
 */
export async function grep(scope: RequestScope, params: GrepParams): Promise<Envelope<GrepData>> {
  const { workspace } = scope;
  const started = performance.now();
  const pattern = params.pattern;
  if (typeof pattern !== "string" || pattern.trim() === "") {
    throw new WireError("InvalidPattern", "Cannot parse pattern: it is empty");
  }
  const patternBytes = new TextEncoder().encode(pattern).length;
  if (patternBytes > GREP_LIMITS.patternBytes) {
    throw new WireError(
      "LimitExceeded",
      `Cannot use pattern: it is ${patternBytes} bytes; the limit is ${GREP_LIMITS.patternBytes}`,
    );
  }
  const repos = scope.repositories;
  const language = await resolveLanguage(pattern, params, () => languagesInScope(scope));
  const parser = await parserFor(language);
  const compiled = compileOrThrow(pattern, language, parser);
  const states = repositoryStates(workspace, repos, scope);
  const binding = { action: "grep", params: { ...params }, repositories: states };
  const cursor = params.cursor === undefined
    ? null
    : readCursor(params.cursor, binding, isGrepPosition);
  if (cursor && !repos.some((repo) => repo.name === cursor.repo)) {
    throw new WireError("InvalidParams", "Cannot read cursor: its repository is not in scope");
  }
  const search = new GrepRun({
    scope,
    language,
    parser,
    compiled,
    limit: params.limit ?? GREP_LIMITS.defaultLimit,
    tokenBudget: params.token_budget ?? null,
    deadline: started + (params.timeout_ms ?? GREP_LIMITS.defaultTimeoutMs),
  });
  const startAt = cursor ? repos.findIndex((repo) => repo.name === cursor.repo) : 0;
  for (const repo of repos.slice(startAt)) {
    const position = cursor && repo.name === cursor.repo ? cursor : null;
    const done = await search.searchRepository(repo, position);
    if (!done) break;
  }
  const scanned = search.fallbacks;
  return envelope({
    action: "grep",
    results: search.results,
    provenance: {
      backend: scanned.length > 0 ? "structural+live-scan" : "structural",
      // Matches in working-tree bytes of a repository without a usable index: bounded, not exact.
      confidence: scanned.length > 0 ? "approximate" : "exact",
      fresh: scanned.length === 0,
      fallback_used: scanned.length > 0,
      fallback_reason: scanned.length > 0 ? scanned.join("; ") : null,
    },
    repositories: states,
    limitations: search.limitations,
    truncated: search.next !== null,
    nextCursor: search.next ? issueCursor(binding, search.next) : null,
    data: {
      language: language.language,
      files_considered: search.filesConsidered,
      files_parsed: search.filesParsed,
      elapsed_ms: Math.round(performance.now() - started),
    },
  });
}

/**
 * `language` if given; else the one language the `paths` globs name; else the
 * one language, among those with files in scope, that the pattern parses in.
 */
async function resolveLanguage(
  pattern: string,
  params: GrepParams,
  inScope: () => Promise<GrepLanguage[]>,
): Promise<GrepLanguage> {
  const supported = GREP_LANGUAGES.map((entry) => entry.language).join(", ");
  if (params.language !== undefined) {
    const named = grepLanguageNamed(params.language);
    if (!named) {
      throw new WireError(
        "InvalidParams",
        `Cannot grep language '${params.language}': supported are ${supported}`,
      );
    }
    return named;
  }
  const fromPaths = new Set((params.paths ?? []).map((glob) => grepLanguageForPath(glob)));
  if (fromPaths.size === 1 && !fromPaths.has(null)) return [...fromPaths][0]!;
  const present = await inScope();
  if (present.length === 0) {
    throw new WireError(
      "InvalidParams",
      `Cannot infer the pattern's language: no files of ${supported} in scope; pass 'language'`,
    );
  }
  const parsing: GrepLanguage[] = [];
  for (const candidate of present) {
    try {
      compilePattern(pattern, { language: candidate, parser: await parserFor(candidate) });
      parsing.push(candidate);
    } catch (error) {
      if (!(error instanceof InvalidPatternError)) throw error;
    }
  }
  if (parsing.length === 1) return parsing[0];
  if (parsing.length === 0) {
    throw new WireError(
      "InvalidPattern",
      `Cannot parse pattern in any language with files in scope (${
        present.map((entry) => entry.language).join(", ")
      }); pass 'language' to see where it fails`,
    );
  }
  throw new WireError(
    "InvalidParams",
    `Pattern is ambiguous: it parses as ${
      parsing.map((entry) => entry.language).join(", ")
    }; pass 'language' (or 'paths' with one extension)`,
  );
}

/**
 * The grep languages of the files in scope that the caller may see, most files
 * first (ties by name): a hidden file neither adds a language nor makes a
 * `paths` glob that names only hidden files answer differently from one that
 * names nothing.
 */
async function languagesInScope(scope: RequestScope): Promise<GrepLanguage[]> {
  const counts = new Map<GrepLanguage, number>();
  for (const repo of scope.repositories) {
    const indexed = scope.workspace.withReader(repo, (reader) => [...reader.paths()].sort());
    // Without a usable target the working tree is what a live scan would read.
    const paths = indexed.problem
      ? ((await liveListing(repo)).paths ?? []).slice(0, LIVE_SCAN_LIMITS.files)
      : indexed.value;
    for (const path of paths) {
      const language = grepLanguageForPath(path);
      if (language && scope.matchesPaths(path) && scope.allowPath(repo.name, path)) {
        counts.set(language, (counts.get(language) ?? 0) + 1);
      }
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0].language < b[0].language ? -1 : 1)).map((
    [language],
  ) => language);
}

function compileOrThrow(pattern: string, language: GrepLanguage, parser: Parser): CompiledPattern {
  try {
    return compilePattern(pattern, { language, parser });
  } catch (error) {
    if (!(error instanceof InvalidPatternError)) throw error;
    throw new WireError(
      "InvalidPattern",
      `${error.message} (as ${language.language})`,
      error.problem ?? undefined,
    );
  }
}

interface RunOptions {
  scope: RequestScope;
  language: GrepLanguage;
  parser: Parser;
  compiled: CompiledPattern;
  limit: number;
  tokenBudget: number | null;
  deadline: number;
}

/** One request's walk over repositories and files, collecting hits until a bound is reached. */
class GrepRun {
  readonly #limitations: string[] = [];
  /** Why repositories were matched against their working tree (one reason each). */
  readonly fallbacks: string[] = [];
  /** Where the next page starts, once a bound stopped this one. */
  next: GrepPosition | null = null;
  filesConsidered = 0;
  filesParsed = 0;
  #sliceStarted = performance.now();
  readonly #options: RunOptions;
  readonly #terms: string[];
  readonly #phrases: string[];
  readonly #page: PageFitter;

  constructor(options: RunOptions) {
    this.#options = options;
    this.#terms = requiredTerms(options.compiled.literals);
    this.#phrases = requiredPhrases(options.compiled.literals);
    this.#page = new PageFitter({ limit: options.limit, tokenBudget: options.tokenBudget });
  }

  get results(): ResultHit[] {
    return this.#page.results;
  }

  get limitations(): string[] {
    return [...this.#limitations, ...this.#page.limitations];
  }

  /** Searches one repository from a position; false when a bound stopped the request. */
  async searchRepository(repo: Repository, position: GrepPosition | null): Promise<boolean> {
    const { workspace } = this.#options.scope;
    const listed = workspace.withReader(repo, (reader) => this.#candidateFiles(reader, repo));
    if (listed.problem) return await this.#scanLive(repo, listed.problem, position);
    for (const file of listed.value) {
      if (position && file.path < position.path) continue;
      // One reader call a file: its text and its packed units, read together.
      const read = () =>
        workspace.withReader(repo, (reader) => reader.fileTextAndUnits(file.path)).value ??
          { text: null, units: null };
      if (this.#sliceSpent()) await this.#pause();
      if (this.#visit(repo, file, read, position)) return false;
    }
    return true;
  }

  /**
   * The live-scan fallback of a repository whose target is missing, building or
   * damaged: its working-tree files of the pattern's language, read within the
   * live-scan bounds, prefiltered by the pattern's literals and matched the same
   * way; the rebuild starts in the background and this answer does not wait.
   */
  async #scanLive(
    repo: Repository,
    problem: ReadProblem,
    position: GrepPosition | null,
  ): Promise<boolean> {
    const { scope, language } = this.#options;
    scope.workspace.repair(repo, problem);
    this.fallbacks.push(`${repo.name}: target ${problem}; matched against the working tree`);
    const bounded = { cut: false };
    const listing = await liveListing(repo);
    if (listing.problem !== null) {
      this.#limitations.push(`${repo.name}: not scanned: ${listing.problem}`);
      return true;
    }
    const files = liveFiles(repo, listing, {
      pathFilter: (path) =>
        grepLanguageForPath(path) === language && scope.matchesPaths(path) &&
        scope.allowPath(repo.name, path),
      from: position?.path,
      bounded,
    });
    for (const { path, text } of files) {
      this.filesConsidered++;
      const file: CandidateFile = { id: -1, path, contentHash: sha256Hex(text) };
      if (this.#sliceSpent()) await this.#pause();
      if (this.#visit(repo, file, () => ({ text, units: null }), position)) return false;
    }
    if (bounded.cut) {
      this.#limitations.push(
        `${repo.name}: the live scan stopped at its bounds; files past them were not searched`,
      );
    }
    return true;
  }

  /**
   * Whether the request has run `GREP_LIMITS.sliceMs` without a break. Only then does it await
   * (`#pause`): files between two breaks are visited in one synchronous run, so their reads share
   * one check of the target and one snapshot (`TargetReader.hold`). Awaited file by file (even
   * an await that does not wait ends the run), every file paid both (sympy, `lambda $X: $X` over
   * 690 candidate files: ~10% of the answer).
   */
  #sliceSpent(): boolean {
    return performance.now() - this.#sliceStarted > GREP_LIMITS.sliceMs;
  }

  /** Lets other work run, and starts the next slice. */
  async #pause(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#sliceStarted = performance.now();
  }

  /** One candidate file; true when a bound stopped the request (with `next` set). */
  #visit(
    repo: Repository,
    file: CandidateFile,
    read: () => { text: string | null; units: Uint8Array | null },
    position: GrepPosition | null,
  ): boolean {
    const skip = position && file.path === position.path ? position.skip : 0;
    const stopAt: GrepPosition = { repo: repo.name, path: file.path, skip };
    this.#options.scope.throwIfCancelled("grep");
    if (performance.now() > this.#options.deadline) {
      this.#limitations.push(
        "the time budget ran out: the answer is partial; continue with next_cursor",
      );
      this.next = stopAt;
      return true;
    }
    const { text, units } = read();
    if (text === null || !this.#holdsLiterals(text)) return false;
    return this.#searchFile(repo, file, text, stopAt, units ? unpackUnitTable(units) : null);
  }

  /** Whether a text holds every literal of the pattern, and its tokens in order. */
  #holdsLiterals(text: string): boolean {
    const { literals, tokens } = this.#options.compiled;
    return containsAll(text, literals) && containsInOrder(text, tokens);
  }

  #candidateFiles(reader: TargetReader, repo: Repository): CandidateFile[] {
    const { language, scope } = this.#options;
    const files = candidateFiles(reader, this.#terms, this.#phrases).filter((row) =>
      grepLanguageForPath(row.path) === language && scope.matchesPaths(row.path) &&
      scope.allowPath(repo.name, row.path)
    );
    this.filesConsidered += files.length;
    return files;
  }

  /** Matches one file; true when a bound stopped the request (with `next` set). */
  #searchFile(
    repo: Repository,
    file: CandidateFile,
    text: string,
    stopAt: GrepPosition,
    stored: UnitTable | null,
  ): boolean {
    const { parser, compiled, language, deadline } = this.#options;
    const path = file.path;
    const key = regionKey(repo.location.databasePath, path, file.contentHash);
    let tree: Tree | null = null;
    let plan = planParse(compiled, { language, parser: parser.language! }, text, stored, key);
    if (plan) {
      if (plan.ranges.length === 0) return false;
      tree = parser.parse(rangedInput(text, plan.ranges), null, {
        includedRanges: plan.ranges,
      });
      // A nested plan is never expected to parse with errors; if it does, the top-level one.
      if (tree && plan.nested && tree.rootNode.hasError && stored) {
        tree.delete();
        plan = topLevelPlan(compiled, text, topLevelRanges(stored), false, parser.language!);
        tree = plan.ranges.length === 0
          ? null
          : parser.parse(rangedInput(text, plan.ranges), null, { includedRanges: plan.ranges });
        if (!tree) return false;
      }
      // Ranges from the lexer are checked by the parse: any error, and the file is parsed whole.
      if (tree && plan.guessed && tree.rootNode.hasError) {
        tree.delete();
        tree = null;
      }
    }
    if (!tree) {
      plan = null;
      tree = parser.parse(text);
      if (tree) recordRegions(key, tree, text);
    }
    if (!tree) return false;
    this.filesParsed++;
    try {
      const room = this.#options.limit - this.results.length;
      const fillers = plan?.fillers;
      const found = findMatches(tree, compiled, {
        language,
        limit: stopAt.skip + room,
        text,
        anchorRanges: plan?.anchorsInRanges ? plan.ranges : undefined,
        shouldStop: () => performance.now() > deadline,
      });
      const { stopped } = found;
      // A statement a plan added to an empty block is not the file's code.
      const matches = fillers && fillers.size > 0
        ? found.matches.filter((match) => !fillers.has(match.node.startIndex))
        : found.matches;
      let lines: LineIndex | null = null;
      let returned = stopAt.skip;
      for (const match of matches.slice(stopAt.skip)) {
        lines ??= new LineIndex(text);
        const hit = toHit(match.node, match.bindings, { repo, path, lines, language });
        if (!this.#page.offer(hit)) {
          this.next = { ...stopAt, skip: returned };
          return true;
        }
        returned++;
        if (this.#page.stoppedBy === "token_budget") {
          // The first hit alone was over the budget (cut to fit): the page ends after it.
          this.next = { ...stopAt, skip: returned };
          return true;
        }
      }
      if (stopped) {
        if (performance.now() > deadline) {
          this.#limitations.push(
            "the time budget ran out: the answer is partial; continue with next_cursor",
          );
        }
        this.next = { ...stopAt, skip: returned };
        return true;
      }
      return false;
    } finally {
      tree.delete();
    }
  }
}

/**
 * What to parse of a file that holds the pattern's literals (`grep/plan.ts`):
 * ranges (none: nothing can match), or null to parse the whole file. Units come
 * from the index, else from an earlier parse of the file; else the Python lexer
 * guesses the top-level statements.
 */
export function planParse(
  compiled: CompiledPattern,
  grammar: { language: GrepLanguage; parser: Language },
  text: string,
  stored: UnitTable | null,
  key: string | null,
): ParsePlan | null {
  const { language, parser } = grammar;
  // A statement of a language that needs a prefix before code (PHP's `<?php`) does not parse
  // alone as it does in its file: such files are parsed whole.
  if (compiled.rootKind === null || language.patternPrefix) return null;
  const units = stored ?? (key === null ? undefined : knownRegions(key));
  if (units) return unitPlan(compiled, text, units, parser);
  if (language.language !== "python") return null;
  const lexed = pythonStatementRanges(text);
  return lexed ? topLevelPlan(compiled, text, lexed, true) : null;
}

interface Range {
  start_line: number;
  start_col: number;
  end_line: number;
  end_col: number;
}

function rangeOf(lines: LineIndex, start: number, end: number): Range {
  const from = lines.position(start);
  const to = lines.position(end);
  return { start_line: from.line, start_col: from.col, end_line: to.line, end_col: to.col };
}

function toHit(
  node: Node,
  bindings: Bindings,
  file: { repo: Repository; path: string; lines: LineIndex; language: GrepLanguage },
): ResultHit {
  const range = rangeOf(file.lines, node.startIndex, node.endIndex);
  const captured: Record<string, unknown> = {};
  for (const [name, binding] of bindings) {
    const nodes = binding.kind === "single" ? [binding.node] : binding.nodes;
    if (nodes.length === 0) {
      captured[name] = { text: "", nodes: 0 };
      continue;
    }
    const start = nodes[0].startIndex;
    const end = nodes[nodes.length - 1].endIndex;
    captured[name] = {
      text: file.lines.text.slice(start, end),
      ...rangeOf(file.lines, start, end),
      ...(binding.kind === "multi" ? { nodes: nodes.filter((n) => n.isNamed).length } : {}),
    };
  }
  return {
    repo: file.repo.name,
    path: file.path,
    start_line: range.start_line,
    end_line: range.end_line,
    start_col: range.start_col,
    end_col: range.end_col,
    symbol: null,
    kind: "match",
    node_kind: node.type,
    signature: null,
    language: file.language.language,
    source_kind: "local",
    score: 1,
    snippet: file.lines.slice(range.start_line, range.end_line),
    bindings: captured,
  };
}
