import type { DatabaseSync } from "node:sqlite";
import picomatch from "picomatch";
import {
  codeTerms,
  compactIdentifier,
  ftsMatchExpression,
  queryTerms,
} from "../engine/tokenizer.ts";
import { WireError } from "../protocol/errors.ts";
import type { Confidence, Envelope, ResultHit } from "../protocol/types.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";
import { envelope, repositoryStates, sliceLines } from "./envelope.ts";
import { liveScan, type SearchCandidate } from "./live_scan.ts";
import type { ActionContext } from "./context.ts";

export interface SearchParams {
  query: string;
  repo?: string;
  paths?: string[];
  language?: string;
  limit?: number;
  strategy?: "hybrid" | "lexical" | "vector";
  kind?: "local" | "dependency" | "doc" | "all";
}

/** Chunks of one file kept in a ranked list before the next file gets a turn. */
const PER_FILE = 2;

type Candidate = SearchCandidate;

/** Lexical search over FTS5 code terms with symbol-name and path signals. */
export function search(
  workspace: Workspace,
  params: SearchParams,
  _context: ActionContext = {},
): Envelope {
  if (typeof params.query !== "string" || params.query.trim() === "") {
    throw new WireError("InvalidParams", "search needs a non-empty 'query'");
  }
  const limit = params.limit ?? 10;
  const terms = queryTerms(params.query);
  const repos = workspace.select(params.repo);
  const limitations: string[] = [];
  if (params.strategy && params.strategy !== "lexical") {
    limitations.push(`strategy '${params.strategy}' is not available yet: answered lexically`);
  }
  const match = ftsMatchExpression(terms);
  if (match === null) {
    return envelope({
      action: "search",
      results: [],
      provenance: { backend: "fts", confidence: "weak" },
      repositories: repositoryStates(workspace, repos),
      limitations: [...limitations, "the query has no searchable terms"],
    });
  }
  const pathFilter = params.paths && params.paths.length > 0
    ? picomatch(params.paths, { dot: true })
    : null;
  const candidates: Candidate[] = [];
  const fallbacks: string[] = [];
  const texts = new Map<string, string>();
  for (const repo of repos) {
    const answer = workspace.withReader(
      repo,
      (db) =>
        rankRepository(db, repo, { terms, match, limit, pathFilter, language: params.language }),
    );
    if (answer.problem) {
      fallbacks.push(`${repo.name}: target ${answer.problem}`);
      const scan = liveScan(repo, { terms, limit, pathFilter });
      for (const hit of scan) {
        candidates.push(hit.candidate);
        texts.set(`${repo.name}\0${hit.candidate.path}`, hit.text);
      }
      // The target is rebuilt in the background; this answer does not wait for it.
      workspace.refresh(repo).catch(() => {});
      continue;
    }
    candidates.push(...answer.value);
  }
  const ranked = groupByFile(candidates.sort((a, b) => b.score - a.score)).slice(0, limit);
  const results: ResultHit[] = ranked.map((candidate) => {
    const key = `${candidate.repo.name}\0${candidate.path}`;
    let text = texts.get(key);
    if (text === undefined) {
      text = workspace.withReader(candidate.repo, (db) => fileText(db, candidate.path)).value ?? "";
      texts.set(key, text);
    }
    const snippet = sliceLines(text, candidate.startLine, candidate.endLine);
    return {
      repo: candidate.repo.name,
      path: candidate.path,
      start_line: candidate.startLine,
      end_line: candidate.endLine,
      symbol: candidate.symbolPath,
      kind: candidate.kind,
      signature: null,
      language: candidate.language,
      source_kind: "local",
      score: Math.round(candidate.score * 1000) / 1000,
      snippet,
      match_line: firstMatchingLine(snippet, terms, candidate.startLine),
    };
  });
  const fallbackUsed = fallbacks.length > 0;
  return envelope({
    action: "search",
    results,
    provenance: {
      backend: fallbackUsed ? "live-scan" : "fts",
      confidence: fallbackUsed ? "weak" : confidenceOf(ranked),
      fallback_used: fallbackUsed,
      fallback_reason: fallbackUsed ? fallbacks.join("; ") : null,
      fresh: !fallbackUsed,
    },
    repositories: repositoryStates(workspace, repos),
    limitations,
    truncated: candidates.length > results.length,
  });
}

function rankRepository(
  db: DatabaseSync,
  repo: Repository,
  options: {
    terms: string[];
    match: string;
    limit: number;
    pathFilter: ((path: string) => boolean) | null;
    language?: string;
  },
): Candidate[] {
  const pool = Math.min(2000, Math.max(200, options.limit * 20));
  const rows = db.prepare(
    `SELECT c.id AS id, c.start_line AS start_line, c.end_line AS end_line, c.kind AS kind,
            c.symbol_path AS symbol_path, f.path AS path, f.language AS language,
            bm25(source_chunks_fts, 1.0, 2.0) AS rank
       FROM source_chunks_fts
       JOIN source_chunks c ON c.id = source_chunks_fts.rowid
       JOIN source_files f ON f.id = c.file_id
      WHERE source_chunks_fts MATCH ?
      ORDER BY rank LIMIT ?`,
  ).all(options.match, pool) as {
    id: number;
    start_line: number;
    end_line: number;
    kind: string;
    symbol_path: string | null;
    path: string;
    language: string | null;
    rank: number;
  }[];
  const termSet = new Set(options.terms);
  const termsOf = db.prepare("SELECT terms FROM source_chunks_fts WHERE rowid = ?");
  const out: Candidate[] = [];
  for (const row of rows) {
    if (options.pathFilter && !options.pathFilter(row.path)) continue;
    if (options.language && row.language !== options.language) continue;
    // bm25 is negative: more negative is better.
    let score = -row.rank;
    const symbolName = row.symbol_path ? compactIdentifier(lastSegment(row.symbol_path)) : "";
    if (symbolName && termSet.has(symbolName)) score *= 1.5;
    const pathTerms = new Set(codeTerms(row.path));
    const pathHits = options.terms.filter((term) => pathTerms.has(term)).length;
    score *= 1 + 0.25 * pathHits;
    if (row.kind === "definition") score *= 1.1;
    out.push({
      repo,
      chunkId: row.id,
      path: row.path,
      language: row.language,
      startLine: row.start_line,
      endLine: row.end_line,
      kind: row.kind,
      symbolPath: row.symbol_path,
      score,
      matchedShare: 0,
    });
  }
  // The share of query terms present, for the confidence label, on the leading candidates only.
  for (const candidate of out.sort((a, b) => b.score - a.score).slice(0, options.limit * 2)) {
    const row = termsOf.get(candidate.chunkId) as { terms: string | null } | undefined;
    const present = new Set((row?.terms ?? "").split(" "));
    candidate.matchedShare = options.terms.filter((term) => present.has(term)).length /
      options.terms.length;
  }
  return out;
}

function groupByFile(sorted: Candidate[]): Candidate[] {
  const perFile = new Map<string, number>();
  const kept: Candidate[] = [];
  const overflow: Candidate[] = [];
  for (const candidate of sorted) {
    const key = `${candidate.repo.name}\0${candidate.path}`;
    const count = perFile.get(key) ?? 0;
    if (count >= PER_FILE) {
      overflow.push(candidate);
      continue;
    }
    perFile.set(key, count + 1);
    kept.push(candidate);
  }
  return [...kept, ...overflow];
}

/**
 * Provisional labels until calibrated on eval data: `reliable` when the top
 * hit holds at least 80% of the query terms, `candidate` at 50%, else `weak`.
 */
function confidenceOf(ranked: Candidate[]): Confidence {
  const top = ranked[0];
  if (!top) return "weak";
  if (top.matchedShare >= 0.8) return "reliable";
  if (top.matchedShare >= 0.5) return "candidate";
  return "weak";
}

function lastSegment(symbolPath: string): string {
  const parts = symbolPath.split(/\.|::|\//);
  return parts[parts.length - 1];
}

function fileText(db: DatabaseSync, path: string): string {
  const row = db.prepare("SELECT text FROM source_files WHERE path = ?").get(path) as
    | { text: string }
    | undefined;
  return row?.text ?? "";
}

/** The 1-based line of the first line in a snippet that holds a query term. */
export function firstMatchingLine(snippet: string, terms: string[], startLine: number): number {
  const termSet = new Set(terms);
  const lines = snippet.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (codeTerms(lines[i]).some((term) => termSet.has(term))) return startLine + i;
  }
  return startLine;
}
