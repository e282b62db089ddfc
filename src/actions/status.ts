import type { DatabaseSync } from "node:sqlite";
import type { Envelope } from "../protocol/types.ts";
import { readMeta } from "../store/target.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";
import type { RefreshProgress, RefreshReport } from "../indexer/refresh.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import type { ActionContext } from "./context.ts";
import { HASH_MODEL_ID } from "../engine/vector.ts";

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
  context: ActionContext = {},
): Envelope {
  const repos = workspace.select(params.repo);
  const statuses = repos.map((repo) => {
    const allowPath = context.allowPath;
    if (!allowPath || !context.pathRestricted?.(repo.name)) {
      return repositoryStatus(workspace, repo);
    }
    return restrictedStatus(workspace, repo, (path) => allowPath(repo.name, path));
  });
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
      vector: "unavailable",
      symbols: "unavailable",
      lsp: "not configured",
    },
    last_refresh: workspace.lastReport(repo),
  };
  const answer = workspace.withReader(repo, (db) => fill(db, base));
  if (answer.problem) return { ...base, state: answer.problem };
  return answer.value;
}

/**
 * The status of a repository of which only some paths are visible: counts over
 * those paths only, and nothing measured over the whole tree (sizes, skips,
 * refresh reports), so the hidden part leaks no count.
 */
function restrictedStatus(
  workspace: Workspace,
  repo: Repository,
  allowPath: (path: string) => boolean,
): RepositoryStatus {
  const full = repositoryStatus(workspace, repo);
  const base: RepositoryStatus = {
    ...full,
    target: "",
    files: 0,
    chunks: 0,
    symbols: 0,
    relations: 0,
    bytes: 0,
    target_bytes: 0,
    languages: {},
    capabilities: {},
    errors: { count: 0, by_stage: {}, sample: [] },
    skipped: {},
    limitations: [],
    last_refresh: null,
  };
  if (full.state !== "ready") return base;
  const answer = workspace.withReader(repo, (db) => {
    const perFile = (table: string) =>
      new Map(
        (db.prepare(`SELECT file_id AS id, count(*) AS n FROM ${table} GROUP BY file_id`)
          .all() as { id: number; n: number }[]).map((row) => [row.id, Number(row.n)]),
      );
    const chunks = perFile("source_chunks");
    const symbols = perFile("code_symbols");
    const relations = perFile("code_relations");
    const files = db.prepare(
      "SELECT id, path, language, capability, size FROM source_files",
    ).all() as {
      id: number;
      path: string;
      language: string | null;
      capability: string;
      size: number;
    }[];
    const status = {
      ...base,
      languages: {} as Record<string, number>,
      capabilities: {} as Record<string, number>,
    };
    for (const file of files) {
      if (!allowPath(file.path)) continue;
      status.files++;
      status.bytes += Number(file.size);
      status.chunks += chunks.get(file.id) ?? 0;
      status.symbols += symbols.get(file.id) ?? 0;
      status.relations += relations.get(file.id) ?? 0;
      const language = file.language ?? "text";
      status.languages[language] = (status.languages[language] ?? 0) + 1;
      status.capabilities[file.capability] = (status.capabilities[file.capability] ?? 0) + 1;
    }
    const errors = (db.prepare("SELECT path, stage, message FROM index_errors ORDER BY path")
      .all() as { path: string; stage: string; message: string }[])
      .filter((error) => allowPath(error.path));
    const byStage: Record<string, number> = {};
    for (const error of errors) byStage[error.stage] = (byStage[error.stage] ?? 0) + 1;
    status.errors = { count: errors.length, by_stage: byStage, sample: errors.slice(0, 20) };
    return status;
  });
  return answer.value ?? { ...base, state: answer.problem ?? "corrupt" };
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
    backends: {
      fts: "ready",
      vector: vectorBackend(parseJson("embeddings", null)),
      symbols: "ready",
      lsp: "not configured",
    },
    last_refresh: base.last_refresh ?? parseJson("last_refresh", null),
  };
}

/**
 * The vector backend: the hashing vectors always, and the provider's model when
 * one is configured (with its last error, when it failed).
 */
function vectorBackend(embeddings: { model: string; error: string | null } | null): string {
  const hashing = `ready (${HASH_MODEL_ID})`;
  if (!embeddings) return hashing;
  return embeddings.error
    ? `${hashing}; provider ${embeddings.model} failed: ${embeddings.error}`
    : `${hashing}; provider ${embeddings.model} ready`;
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
  options: { rebuild: boolean; context?: ActionContext },
): Promise<Envelope> {
  const context = options.context ?? {};
  const repos = workspace.select(params.repo);
  const reports: (RefreshReport & { name: string })[] = [];
  for (const repo of repos) {
    const progress = context.onProgress
      ? (p: RefreshProgress) => context.onProgress!(repo.name, p)
      : undefined;
    const report = options.rebuild
      ? await workspace.rebuild(repo, progress)
      : await workspace.refresh(repo, progress);
    reports.push({ name: repo.name, ...report });
  }
  // Whole-tree plan counts would tell a path-restricted caller about paths it may not see.
  const shown = reports.map((report) =>
    context.pathRestricted?.(report.name)
      ? { name: report.name, generation: report.generation, changed: report.changed }
      : report
  );
  return envelope({
    action: options.rebuild ? "rebuild" : "refresh",
    results: [],
    provenance: { backend: "indexer", confidence: "exact" },
    repositories: repositoryStates(workspace, repos),
    data: { reports: shown },
  });
}
