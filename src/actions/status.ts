import type { DatabaseSync } from "node:sqlite";
import type { Envelope } from "../protocol/types.ts";
import { readMeta } from "../store/target.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";
import type { RefreshProgress, RefreshReport } from "../indexer/refresh.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import type { ActionContext } from "./context.ts";

export interface RepositoryStatus {
  name: string;
  root: string;
  target: string;
  state: "ready" | "missing" | "corrupt" | "schema_mismatch" | "pipeline_mismatch";
  refreshing: boolean;
  generation: number;
  head: string | null;
  files: number;
  chunks: number;
  symbols: number;
  relations: number;
  bytes: number;
  target_bytes: number;
  languages: Record<string, number>;
  capabilities: Record<string, number>;
  errors: {
    count: number;
    by_stage: Record<string, number>;
    sample: { path: string; stage: string; message: string }[];
  };
  skipped: Record<string, number>;
  limitations: string[];
  backends: Record<string, string>;
  last_refresh: unknown;
}

/** Per-repository state of the index (SPEC §7 `status`). */
export function status(
  workspace: Workspace,
  params: { repo?: string },
  _context: ActionContext = {},
): Envelope {
  const repos = workspace.select(params.repo);
  const statuses = repos.map((repo) => repositoryStatus(workspace, repo));
  const limitations = statuses.flatMap((s) => s.limitations.map((l) => `${s.name}: ${l}`));
  return envelope({
    action: "status",
    results: [],
    provenance: { backend: "status", confidence: "exact" },
    repositories: repositoryStates(workspace, repos),
    limitations,
    data: { repositories: statuses },
  });
}

function repositoryStatus(workspace: Workspace, repo: Repository): RepositoryStatus {
  const base: RepositoryStatus = {
    name: repo.name,
    root: repo.root,
    target: repo.location.databasePath,
    state: "missing",
    refreshing: workspace.refreshing(repo),
    generation: 0,
    head: null,
    files: 0,
    chunks: 0,
    symbols: 0,
    relations: 0,
    bytes: 0,
    target_bytes: targetBytes(repo.location.databasePath),
    languages: {},
    capabilities: {},
    errors: { count: 0, by_stage: {}, sample: [] },
    skipped: {},
    limitations: [],
    backends: {
      fts: "unavailable",
      vector: "not built",
      symbols: "unavailable",
      lsp: "not configured",
    },
    last_refresh: workspace.lastReport(repo),
  };
  const answer = workspace.withReader(repo, (db) => fill(db, base));
  if (answer.problem) return { ...base, state: answer.problem };
  return answer.value;
}

function fill(db: DatabaseSync, base: RepositoryStatus): RepositoryStatus {
  const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
  const grouped = (sql: string) =>
    Object.fromEntries(
      (db.prepare(sql).all() as { k: string | null; n: number }[]).map((r) => [r.k ?? "text", r.n]),
    );
  const errorSample = db.prepare(
    "SELECT path, stage, message FROM index_errors ORDER BY path LIMIT 20",
  ).all() as { path: string; stage: string; message: string }[];
  const parseJson = (key: string, fallback: unknown) => {
    try {
      return JSON.parse(readMeta(db, key) ?? "null") ?? fallback;
    } catch {
      return fallback;
    }
  };
  return {
    ...base,
    state: "ready",
    generation: Number(readMeta(db, "generation") ?? "0"),
    head: readMeta(db, "head") || null,
    files: count("SELECT count(*) AS n FROM source_files"),
    chunks: count("SELECT count(*) AS n FROM source_chunks"),
    symbols: count("SELECT count(*) AS n FROM code_symbols"),
    relations: count("SELECT count(*) AS n FROM code_relations"),
    bytes: count("SELECT coalesce(sum(size), 0) AS n FROM source_files"),
    languages: grouped("SELECT language AS k, count(*) AS n FROM source_files GROUP BY language"),
    capabilities: grouped(
      "SELECT capability AS k, count(*) AS n FROM source_files GROUP BY capability",
    ),
    errors: {
      count: count("SELECT count(*) AS n FROM index_errors"),
      by_stage: grouped("SELECT stage AS k, count(*) AS n FROM index_errors GROUP BY stage"),
      sample: errorSample,
    },
    skipped: parseJson("skipped", {}),
    limitations: parseJson("limitations", []),
    backends: { fts: "ready", vector: "not built", symbols: "ready", lsp: "not configured" },
    last_refresh: base.last_refresh ?? parseJson("last_refresh", null),
  };
}

function targetBytes(databasePath: string): number {
  let total = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      total += Deno.statSync(databasePath + suffix).size;
    } catch { /* absent */ }
  }
  return total;
}

/** Reconciles the addressed repositories now (`refresh`) or from nothing (`rebuild`). */
export async function refreshAction(
  workspace: Workspace,
  params: { repo?: string },
  options: { rebuild: boolean; onProgress?: (repo: string, progress: RefreshProgress) => void },
): Promise<Envelope> {
  const repos = workspace.select(params.repo);
  const reports: (RefreshReport & { name: string })[] = [];
  for (const repo of repos) {
    const progress = options.onProgress
      ? (p: RefreshProgress) => options.onProgress!(repo.name, p)
      : undefined;
    const report = options.rebuild
      ? await workspace.rebuild(repo, progress)
      : await workspace.refresh(repo, progress);
    reports.push({ name: repo.name, ...report });
  }
  return envelope({
    action: options.rebuild ? "rebuild" : "refresh",
    results: [],
    provenance: { backend: "indexer", confidence: "exact" },
    repositories: repositoryStates(workspace, repos),
    data: { reports },
  });
}
