/**
 * `verify`: a citation guard. Each citation (repository, path, line range,
 * optional symbol, quoted text and claimed relation) is checked against the
 * committed index in order — the file is indexed and visible, the range lies
 * in the file, the symbol is defined over those lines, the quoted text is in
 * them, the claimed relation is in the relation graph — and gets the verdict
 * of the first check that fails (`ok` when none does), with where the symbol
 * or text is now when it moved. A file the caller may not see is
 * `file_unknown`, exactly like a file that does not exist.
 */
import { LineIndex } from "../engine/lines.ts";
import { definitionExtent } from "../engine/extent.ts";
import { WireError } from "../protocol/errors.ts";
import type { MethodParams } from "../protocol/methods.ts";
import type { Envelope, ResultHit, Verdict, VerifyData } from "../protocol/types.ts";
import type { RequestScope } from "../workspace/scope.ts";
import { normaliseRequestPath } from "../workspace/workspace.ts";
import { ScopeStore } from "../resolver/store.ts";
import { ModuleResolver } from "../resolver/modules.ts";
import { Resolver } from "../resolver/resolve.ts";
import { outbound } from "../resolver/traverse.ts";
import { confidenceOf, type SymbolRecord } from "../resolver/types.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import { isOffset, issueCursor, pageOf, readCursor } from "./paging.ts";

export type VerifyParams = MethodParams<"verify">;
type Citation = VerifyParams["citations"][number];

/** A claimed relation: `A calls B` and its kin. */
interface Claim {
  from: string;
  to: string;
  /** Stored relation kinds that make it true (null: any kind). */
  kinds: ReadonlySet<string> | null;
  verb: string;
}

const VERBS: Record<string, ReadonlySet<string> | null> = {
  calls: new Set(["calls"]),
  imports: new Set(["imports"]),
  inherits: new Set(["inherits"]),
  extends: new Set(["inherits"]),
  implements: new Set(["implements", "inherits"]),
  references: null,
  uses: null,
};
const CLAIM = new RegExp(`^\\s*(\\S+)\\s+(${Object.keys(VERBS).join("|")})\\s+(\\S+)\\s*$`, "i");
const SNIPPET_LINES = 40;
const FOUND_AT = 5;

/** The checks a citation went through: true passed, false failed, null not asked. */
interface Checks {
  file: boolean;
  range: boolean | null;
  symbol: boolean | null;
  text: boolean | null;
  relation: boolean | null;
}

/** Verdicts for every citation, in the order given, and the share that holds. */
export function verify(scope: RequestScope, params: VerifyParams): Envelope<VerifyData> {
  const { workspace } = scope;
  const citations = params.citations;
  if (citations.length === 0) throw new WireError("InvalidParams", "'verify' needs citations");
  const claims = citations.map((citation, index) => {
    if (citation.claim === undefined) return null;
    const match = CLAIM.exec(citation.claim);
    if (!match) {
      throw new WireError(
        "InvalidParams",
        `'verify' parameter 'citations[${index}].claim' must read 'A calls B' (or imports, ` +
          `inherits, extends, implements, references, uses): got '${citation.claim}'`,
      );
    }
    const verb = match[2].toLowerCase();
    return { from: match[1], to: match[3], kinds: VERBS[verb], verb } satisfies Claim;
  });
  const limit = params.limit ?? Math.min(citations.length, 1000);
  const store = new ScopeStore(scope);
  const resolver = new Resolver(store, new ModuleResolver(store));
  const binding = {
    action: "verify",
    params: { ...params },
    repositories: repositoryStates(workspace, scope.visible, scope),
  };
  const offset = params.cursor === undefined ? 0 : readCursor(params.cursor, binding, isOffset);
  const hits = citations.map((citation, index) => {
    scope.throwIfCancelled("verify");
    return check(scope, store, resolver, { citation, claim: claims[index], index });
  });
  const counts: Partial<Record<Verdict, number>> = {};
  for (const hit of hits) {
    const verdict = hit.verdict as Verdict;
    counts[verdict] = (counts[verdict] ?? 0) + 1;
  }
  const ok = counts.ok ?? 0;
  const page = pageOf(hits, { offset, limit, tokenBudget: params.token_budget });
  const approximate = page.results.some((hit) => hit.confidence === "approximate");
  return envelope({
    action: "verify",
    results: page.results,
    provenance: { backend: "index+relations", confidence: approximate ? "approximate" : "exact" },
    repositories: repositoryStates(workspace, scope.repositories, scope),
    limitations: page.limitations,
    truncated: page.next !== null,
    nextCursor: page.next === null ? null : issueCursor(binding, page.next),
    data: {
      score: Math.round(ok / citations.length * 1000) / 1000,
      total: citations.length,
      ok,
      verdicts: counts,
    },
  });
}

/** One citation's verdict. */
function check(
  scope: RequestScope,
  store: ScopeStore,
  resolver: Resolver,
  options: { citation: Citation; claim: Claim | null; index: number },
): ResultHit {
  const { citation, claim, index } = options;
  const path = normaliseRequestPath(citation.path);
  const checks: Checks = { file: false, range: null, symbol: null, text: null, relation: null };
  const repo = repositoryOf(scope, store, citation.repo, path);
  const start = citation.start_line ?? null;
  const end = citation.end_line ?? start;
  const base = {
    index,
    repo: repo ?? citation.repo ?? scope.repositories[0]?.name ?? "",
    path,
    start_line: start ?? 1,
    end_line: end ?? start ?? 1,
    symbol: citation.symbol ?? null,
    kind: "citation",
    // Whether the citation gave lines (start_line and end_line are 1 when it did not).
    lines_cited: start !== null,
    signature: null,
    language: null as string | null,
    source_kind: "local" as const,
    checks,
  };
  const verdict = (
    code: Verdict,
    reason: string,
    extra: Record<string, unknown> = {},
  ): ResultHit => ({
    ...base,
    score: code === "ok" ? 1 : 0,
    snippet: "",
    verdict: code,
    reason,
    ...extra,
  });
  const text = repo === null ? null : store.fileText(repo, path);
  if (repo === null || text === null) {
    return verdict(
      "file_unknown",
      `no indexed file '${path}'${citation.repo ? ` in '${citation.repo}'` : ""}`,
    );
  }
  checks.file = true;
  const symbols = store.symbolsInFile(repo, path);
  base.language = symbols[0]?.language ?? languageOf(store, repo, path);
  const lines = new LineIndex(text);
  const textLines = text.split("\n");
  const lineCount = text.endsWith("\n") ? lines.starts.length - 1 : lines.starts.length;
  const current = (from: number, to: number) => lines.slice(from, to, SNIPPET_LINES);
  const snippet = start === null ? "" : current(start, end!);
  const failed = (code: Verdict, reason: string, extra: Record<string, unknown> = {}) => ({
    ...verdict(code, reason, extra),
    snippet,
  });

  if (start !== null) {
    checks.range = start <= end! && end! <= lineCount;
    if (!checks.range) {
      return failed(
        "range_outside_file",
        end! < start
          ? `the range ${start}-${end} ends before it starts`
          : `'${path}' has ${lineCount} line(s); the citation ends at line ${end}`,
        { line_count: lineCount },
      );
    }
  }

  if (citation.symbol !== undefined) {
    const named = symbols.filter((s) => nameMatches(s, citation.symbol!));
    const holds = named.filter((s) =>
      start === null || within(textLines, s, start, end!) ||
      (start <= s.startLine && s.endLine <= end!)
    );
    checks.symbol = holds.length > 0;
    if (!checks.symbol) {
      const elsewhere = named.length > 0 ? named : definitionsNamed(store, scope, citation.symbol);
      return failed(
        "symbol_not_in_range",
        elsewhere.length === 0
          ? `no definition named '${citation.symbol}' in scope`
          : start === null
          ? `'${citation.symbol}' is not defined in '${path}'`
          : `'${citation.symbol}' is not defined over lines ${start}-${end} of '${path}'`,
        { found_at: elsewhere.slice(0, FOUND_AT).map(place) },
      );
    }
  }

  if (citation.text !== undefined && citation.text.trim() !== "") {
    const quote = normalise(citation.text);
    const region = start === null ? text : current(start, end!);
    checks.text = normalise(region).includes(quote);
    if (!checks.text) {
      const now = linesHolding(text, citation.text);
      return failed(
        "text_not_current",
        now.length > 0
          ? `the quoted text is not in lines ${start}-${end}; it is at line ${now.join(", ")}`
          : `the quoted text is not in '${path}'${start === null ? "" : ` lines ${start}-${end}`}`,
        {
          found_at: now.slice(0, FOUND_AT).map((line) => ({ repo, path, start_line: line })),
        },
      );
    }
  }

  if (claim) {
    const found = claimHolds(store, resolver, { repo, path, claim, start, end: end ?? null });
    checks.relation = found.holds;
    if (!found.holds) return failed("relation_not_in_graph", found.reason);
    return {
      ...verdict("ok", found.reason, {
        relation: found.relation,
        confidence: found.confidence,
      }),
      snippet,
    };
  }
  return { ...verdict("ok", "the citation holds"), snippet, confidence: "exact" };
}

/** The visible repository that holds a cited path (the one named, else the first that has it). */
function repositoryOf(
  scope: RequestScope,
  store: ScopeStore,
  named: string | undefined,
  path: string,
): string | null {
  const candidates = named !== undefined
    ? (scope.repository(named) ? [named] : [])
    : scope.repositories.map((repo) => repo.name);
  for (const repo of candidates) {
    if (store.allowed(repo, path) && store.paths(repo).has(path)) return repo;
  }
  return null;
}

function languageOf(store: ScopeStore, repo: string, path: string): string | null {
  return store.relationsInFile(repo, path)[0]?.language ?? null;
}

/** Whether a definition is the one a cited name means (a name, or a qualified-name suffix). */
function nameMatches(symbol: SymbolRecord, cited: string): boolean {
  const name = cited.trim();
  if (symbol.name === name || symbol.qualified === name) return true;
  for (const separator of [".", "::", "/", "#", ":"]) {
    if (symbol.qualified.endsWith(`${separator}${name}`)) return true;
  }
  // `Class.method` written for a qualified name using another separator.
  const parts = name.split(/\.|::|#/);
  return parts.length > 1 && parts[parts.length - 1] === symbol.name &&
    symbol.qualified.replace(/::|#/g, ".").endsWith(parts.join("."));
}

/**
 * Whether lines lie within a definition: from the decorators, attributes and
 * comments written just above it to its last line and the blank lines after.
 */
function within(lines: string[], symbol: SymbolRecord, start: number, end: number): boolean {
  const extent = definitionExtent(lines, symbol.startLine, symbol.endLine);
  return start >= extent.start && end <= extent.end;
}

function definitionsNamed(store: ScopeStore, scope: RequestScope, cited: string): SymbolRecord[] {
  const repos = scope.repositories.map((repo) => repo.name);
  const name = cited.trim();
  return /\.|::/.test(name) ? store.symbolsQualified(repos, name) : store.symbolsNamed(repos, name);
}

function place(symbol: SymbolRecord) {
  return {
    repo: symbol.repo,
    path: symbol.path,
    start_line: symbol.startLine,
    end_line: symbol.endLine,
    symbol: symbol.qualified,
  };
}

/** Text with every run of whitespace made one space, trimmed. */
function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The lines where a quote starts in a text now (compared with whitespace runs made one space). */
function linesHolding(text: string, quote: string): number[] {
  const wanted = normalise(quote);
  if (wanted === "") return [];
  const firstLine = normalise(quote.split("\n").find((line) => line.trim() !== "") ?? "");
  const lines = text.split("\n");
  const out: number[] = [];
  for (let i = 0; i < lines.length && out.length < FOUND_AT; i++) {
    if (!normalise(lines[i]).includes(firstLine)) continue;
    const span = normalise(lines.slice(i, i + quote.split("\n").length + 1).join("\n"));
    if (span.includes(wanted)) out.push(i + 1);
  }
  return out;
}

/**
 * Whether the relation graph holds a claimed relation: a definition named
 * `from` (in the cited file, else anywhere in scope) whose uses of that kind
 * resolve to a definition named `to`, or name it as written when the resolver
 * cannot bind them (then approximate).
 */
function claimHolds(
  store: ScopeStore,
  resolver: Resolver,
  options: { repo: string; path: string; claim: Claim; start: number | null; end: number | null },
): {
  holds: boolean;
  reason: string;
  confidence?: "exact" | "approximate";
  relation?: Record<string, unknown>;
} {
  const { repo, path, claim } = options;
  const statement = `${claim.from} ${claim.verb} ${claim.to}`;
  // A file as the subject (`src/app.py imports os`): its import relations.
  if (claim.verb === "imports" && (claim.from === path || claim.from === path.split("/").pop())) {
    for (const relation of store.importsOfFile(repo, path)) {
      if (
        writtenMatches(relation.target, claim.to) || writtenMatches(relation.module ?? "", claim.to)
      ) {
        return {
          holds: true,
          reason: `'${path}' imports '${claim.to}' at line ${relation.startLine}`,
          confidence: "exact",
          relation: { kind: "imports", site: `${repo}:${path}:${relation.startLine}` },
        };
      }
    }
    return { holds: false, reason: `'${path}' has no import of '${claim.to}'` };
  }
  let subjects = store.symbolsInFile(repo, path).filter((s) => nameMatches(s, claim.from));
  if (options.start !== null && subjects.length > 1) {
    const inRange = subjects.filter((s) =>
      s.startLine <= options.end! && s.endLine >= options.start!
    );
    if (inRange.length > 0) subjects = inRange;
  }
  if (subjects.length === 0) {
    const repos = store.scopeOf(repo);
    subjects = /\.|::/.test(claim.from)
      ? store.symbolsQualified(repos, claim.from)
      : store.symbolsNamed(repos, claim.from);
  }
  if (subjects.length === 0) {
    return { holds: false, reason: `'${statement}': no definition named '${claim.from}' in scope` };
  }
  let approximate: { reason: string; relation: Record<string, unknown> } | null = null;
  for (const subject of subjects.slice(0, 20)) {
    const kinds = claim.kinds ?? null;
    const found = outbound(resolver, subject, kinds);
    for (const edge of found.edges) {
      if (!nameMatches(edge.to, claim.to)) continue;
      const confidence = confidenceOf(edge.evidence);
      const site = `${edge.relation.repo}:${edge.relation.path}:${edge.relation.startLine}`;
      const relation = {
        kind: edge.relation.kind,
        from: subject.qualified,
        to: edge.to.qualified,
        evidence: edge.evidence,
        site,
      };
      if (confidence === "exact") {
        return { holds: true, reason: `${statement}: at ${site}`, confidence, relation };
      }
      approximate ??= { reason: `${statement}: at ${site} (matched by name)`, relation };
    }
    for (const ambiguity of found.ambiguities) {
      if (!ambiguity.candidates.some((c) => nameMatches(c.symbol, claim.to))) continue;
      const site =
        `${ambiguity.relation.repo}:${ambiguity.relation.path}:${ambiguity.relation.startLine}`;
      approximate ??= {
        reason:
          `${statement}: at ${site}, one of ${ambiguity.candidates.length} definitions it may mean`,
        relation: { kind: ambiguity.relation.kind, from: subject.qualified, to: claim.to, site },
      };
    }
    // Uses the resolver cannot bind (outside the scope, dynamic) still hold as written.
    for (const unresolved of found.unresolved) {
      const r = unresolved.relation;
      const written = r.receiver ? `${r.receiver}.${r.target}` : r.target;
      if (!writtenMatches(written, claim.to) && !writtenMatches(r.target, claim.to)) continue;
      approximate ??= {
        reason:
          `${statement}: written at ${r.repo}:${r.path}:${r.startLine} (${unresolved.reason})`,
        relation: {
          kind: r.kind,
          from: subject.qualified,
          to: written,
          site: `${r.repo}:${r.path}:${r.startLine}`,
        },
      };
    }
    if (claim.verb === "imports") {
      for (const relation of store.importsOfFile(subject.repo, subject.path)) {
        if (relation.fromSymbol !== subject.id) continue;
        if (
          writtenMatches(relation.target, claim.to) ||
          writtenMatches(relation.module ?? "", claim.to)
        ) {
          return {
            holds: true,
            reason: `${statement}: at ${subject.repo}:${subject.path}:${relation.startLine}`,
            confidence: "exact",
            relation: { kind: "imports", from: subject.qualified, to: claim.to },
          };
        }
      }
    }
  }
  if (approximate) return { holds: true, confidence: "approximate", ...approximate };
  const where = subjects.length === 1
    ? `${subjects[0].qualified} (${subjects[0].repo}:${subjects[0].path}:${subjects[0].startLine})`
    : `any of ${subjects.length} definitions named '${claim.from}'`;
  return { holds: false, reason: `'${statement}' is not in the relation graph of ${where}` };
}

/** Whether a name as written (`a.b.C`, `C`) is the cited one (`C`, `b.C`, `a.b.C`). */
function writtenMatches(written: string, cited: string): boolean {
  if (!written) return false;
  const a = written.replace(/::/g, ".");
  const b = cited.replace(/::/g, ".");
  return a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`) && a.includes(".");
}
