import type { DatabaseSync } from "node:sqlite";
import picomatch from "picomatch";
import { WireError } from "../protocol/errors.ts";
import type { Envelope, ResultHit } from "../protocol/types.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import type { ActionContext } from "./context.ts";

export interface SymbolsParams {
  query: string;
  kind?: string;
  repo?: string;
  paths?: string[];
  language?: string;
  limit?: number;
}

interface SymbolRowOut {
  name: string;
  qualified_name: string;
  kind: string;
  start_line: number;
  end_line: number;
  signature: string | null;
  doc: string | null;
  exported: number;
  path: string;
  language: string | null;
  id: string;
  tier: number;
}

/**
 * Workspace symbol search: exact name first, then case-insensitive name, then
 * qualified-name suffix, then prefix. Answers from the symbol index (exact).
 */
export function symbols(
  workspace: Workspace,
  params: SymbolsParams,
  _context: ActionContext = {},
): Envelope {
  const query = typeof params.query === "string" ? params.query.trim() : "";
  if (query === "") throw new WireError("InvalidParams", "symbols needs a non-empty 'query'");
  const limit = params.limit ?? 20;
  const repos = workspace.select(params.repo);
  const pathFilter = params.paths?.length ? picomatch(params.paths, { dot: true }) : null;
  const found: { repo: Repository; row: SymbolRowOut }[] = [];
  const limitations: string[] = [];
  for (const repo of repos) {
    const answer = workspace.withReader(repo, (db) => lookup(db, query, params.kind, limit * 5));
    if (answer.problem) {
      limitations.push(`${repo.name}: no symbol index (target ${answer.problem})`);
      continue;
    }
    for (const row of answer.value) {
      if (pathFilter && !pathFilter(row.path)) continue;
      if (params.language && row.language !== params.language) continue;
      found.push({ repo, row });
    }
  }
  found.sort((a, b) =>
    a.row.tier - b.row.tier || b.row.exported - a.row.exported ||
    a.row.qualified_name.length - b.row.qualified_name.length ||
    a.row.path.localeCompare(b.row.path) || a.row.start_line - b.row.start_line
  );
  const results: ResultHit[] = found.slice(0, limit).map(({ repo, row }) => ({
    repo: repo.name,
    path: row.path,
    start_line: row.start_line,
    end_line: row.end_line,
    symbol: row.qualified_name,
    kind: row.kind,
    signature: row.signature,
    language: row.language,
    source_kind: "local",
    score: 1 / (1 + row.tier),
    snippet: row.signature ?? row.name,
    name: row.name,
    doc: row.doc,
    symbol_id: row.id,
    exported: row.exported === 1,
  }));
  return envelope({
    action: "symbols",
    results,
    provenance: { backend: "symbol-index", confidence: "exact" },
    repositories: repositoryStates(workspace, repos),
    limitations,
    truncated: found.length > results.length,
  });
}

function lookup(
  db: DatabaseSync,
  query: string,
  kind: string | undefined,
  limit: number,
): SymbolRowOut[] {
  const kindClause = kind ? "AND s.kind = :kind" : "";
  const escaped = query.replace(/[\\%_]/g, (c) => `\\${c}`);
  const sql = `
    SELECT s.id, s.name, s.qualified_name, s.kind, s.start_line, s.end_line, s.signature, s.doc,
           s.exported, f.path, f.language,
           CASE WHEN s.name = :q OR s.qualified_name = :q THEN 0
                WHEN s.name = :q COLLATE NOCASE THEN 1
                WHEN s.qualified_name LIKE '%.' || :escaped ESCAPE '\\'
                  OR s.qualified_name LIKE '%::' || :escaped ESCAPE '\\' THEN 2
                ELSE 3 END AS tier
      FROM code_symbols s JOIN source_files f ON f.id = s.file_id
     WHERE (s.name = :q COLLATE NOCASE
            OR s.name LIKE :escaped || '%' ESCAPE '\\'
            OR s.qualified_name = :q
            OR s.qualified_name LIKE '%.' || :escaped ESCAPE '\\'
            OR s.qualified_name LIKE '%::' || :escaped ESCAPE '\\') ${kindClause}
     ORDER BY tier, length(s.qualified_name)
     LIMIT :limit`;
  const bind: Record<string, string | number> = { q: query, escaped, limit };
  if (kind) bind.kind = kind;
  return db.prepare(sql).all(bind) as unknown as SymbolRowOut[];
}
