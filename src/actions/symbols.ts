import { WireError } from "../protocol/errors.ts";
import type { MethodParams } from "../protocol/methods.ts";
import type { Envelope, ResultHit } from "../protocol/types.ts";
import type { SymbolMatch, TargetReader } from "../store/reader.ts";
import type { Repository } from "../workspace/workspace.ts";
import type { RequestScope } from "../workspace/scope.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import { isOffset, issueCursor, pageOf, readCursor } from "./paging.ts";

export type SymbolsParams = MethodParams<"symbols">;

/**
 * Workspace symbol search: exact name first, then case-insensitive name, then
 * qualified-name suffix, then prefix. Answers from the symbol index (exact).
 */
export function symbols(scope: RequestScope, params: SymbolsParams): Envelope {
  const { workspace } = scope;
  const query = typeof params.query === "string" ? params.query.trim() : "";
  if (query === "") throw new WireError("InvalidParams", "symbols needs a non-empty 'query'");
  const limit = params.limit ?? 20;
  const repos = scope.repositories;
  const states = repositoryStates(workspace, repos, scope);
  const binding = { action: "symbols", params: { ...params }, repositories: states };
  const offset = params.cursor === undefined ? 0 : readCursor(params.cursor, binding, isOffset);
  const found: { repo: Repository; row: SymbolMatch }[] = [];
  const limitations: string[] = [];
  for (const repo of repos) {
    // Hidden and filtered definitions are dropped before anything is counted.
    const accepts = (row: SymbolMatch) => scope.accepts(repo.name, row.path, row.language);
    const answer = workspace.withReader(
      repo,
      (reader) =>
        bestMatches(reader, { query, kind: params.kind, want: offset + limit + 1, accepts }),
    );
    if (answer.problem) {
      limitations.push(`${repo.name}: no symbol index (target ${answer.problem})`);
      continue;
    }
    for (const row of answer.value) found.push({ repo, row });
  }
  found.sort((a, b) => compareMatches(a.row, b.row));
  const hits: ResultHit[] = found.map(({ repo, row }) => ({
    repo: repo.name,
    path: row.path,
    start_line: row.startLine,
    end_line: row.endLine,
    symbol: row.qualified,
    kind: row.kind,
    signature: row.signature,
    language: row.language,
    source_kind: "local",
    score: 1 / (1 + row.tier),
    snippet: row.signature ?? row.name,
    name: row.name,
    doc: row.doc,
    symbol_id: row.id,
    exported: row.exported,
  }));
  const page = pageOf(hits, { offset, limit, tokenBudget: params.token_budget });
  return envelope({
    action: "symbols",
    results: page.results,
    provenance: { backend: "symbol-index", confidence: "exact" },
    repositories: states,
    limitations: [...limitations, ...page.limitations],
    truncated: page.next !== null,
    nextCursor: page.next === null ? null : issueCursor(binding, page.next),
  });
}

/** The answer's order: tier, exported first, shorter qualified name, path, line. */
function compareMatches(a: SymbolMatch, b: SymbolMatch): number {
  return a.tier - b.tier || Number(b.exported) - Number(a.exported) ||
    a.qualified.length - b.qualified.length ||
    a.path.localeCompare(b.path) || a.startLine - b.startLine;
}

/**
 * The best `want` accepted matches of one target, plus every match tied with
 * the last of them on (tier, exported, qualified-name length): the index
 * streams in that order, so the merged, sorted answer is exact.
 */
function bestMatches(
  reader: TargetReader,
  options: {
    query: string;
    kind?: string;
    want: number;
    accepts: (row: SymbolMatch) => boolean;
  },
): SymbolMatch[] {
  const out: SymbolMatch[] = [];
  const rank = (row: SymbolMatch) => `${row.tier}:${row.exported}:${row.qualified.length}`;
  for (const row of reader.symbolSearch(options.query, options.kind)) {
    if (out.length >= options.want && rank(row) !== rank(out[out.length - 1])) break;
    if (options.accepts(row)) out.push(row);
  }
  return out;
}
