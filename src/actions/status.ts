import type { Envelope, RefreshData, RepositoryStatus, StatusData } from "../protocol/types.ts";

/** The status of one repository (a wire value; it lives in `src/protocol/types.ts`). */
export type { RepositoryStatus } from "../protocol/types.ts";
import type { TargetReader } from "../store/reader.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";
import type { RefreshReport } from "../indexer/refresh.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import { tokenCost } from "./paging.ts";
import type { RequestScope } from "../workspace/scope.ts";
import { HASH_MODEL_ID } from "../engine/vector.ts";
import { type PathRule, visibleView } from "../workspace/visible.ts";
import { dependencyStatus } from "../deps/mod.ts";

/** Per-repository state of the index: generation, HEAD, counts, errors, backends. */
export function status(
  scope: RequestScope,
  params: { token_budget?: number } = {},
): Envelope<StatusData> {
  const { workspace } = scope;
  const repos = scope.repositories;
  const statuses = repos.map((repo) => {
    const rule = scope.pathRule(repo.name);
    return rule ? restrictedStatus(workspace, repo, rule) : repositoryStatus(workspace, repo);
  });
  const limitations = statuses.flatMap((s) => s.limitations.map((l) => `${s.name}: ${l}`));
  if (params.token_budget !== undefined && shortenSamples(statuses, params.token_budget)) {
    limitations.push(
      `error samples shortened to fit token_budget ${params.token_budget} (errors.count is whole)`,
    );
  }
  return envelope({
    action: "status",
    results: [],
    provenance: { backend: "status", confidence: "exact" },
    repositories: repositoryStates(workspace, repos, scope),
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
  const answer = workspace.withReader(repo, (reader) => fill(reader, base));
  const dependencies = dependencyStatus(repo.location);
  const extra = dependencies ? { dependencies } : {};
  if (answer.problem) return { ...base, ...extra, state: answer.problem };
  return { ...answer.value, ...extra };
}

/**
 * The status of a repository of which only some paths are visible: counts over
 * those paths only, the version of the visible part for its generation and no
 * HEAD (`src/workspace/visible.ts`), and nothing measured over the whole tree
 * (sizes, skips, refresh reports), so the hidden part leaks no count.
 */
function restrictedStatus(
  workspace: Workspace,
  repo: Repository,
  rule: PathRule,
): RepositoryStatus {
  const allowPath = rule.allow;
  // Dependencies are left out: where packages lie and what they hold is whole-tree knowledge.
  const { dependencies: _dependencies, ...full } = repositoryStatus(workspace, repo);
  const base: RepositoryStatus = {
    ...full,
    generation: 0,
    head: null,
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
  const answer = workspace.withReader(repo, (reader) => {
    const chunks = reader.perFileCounts("chunks");
    const symbols = reader.perFileCounts("symbols");
    const relations = reader.perFileCounts("relations");
    const files = reader.fileTable().files.values();
    const status = {
      ...base,
      generation: visibleView(reader, rule).version,
      languages: {} as Record<string, number>,
      capabilities: {} as Record<string, number>,
    };
    for (const file of files) {
      if (!allowPath(file.path)) continue;
      status.files++;
      status.bytes += file.size;
      status.chunks += chunks.get(file.id) ?? 0;
      status.symbols += symbols.get(file.id) ?? 0;
      status.relations += relations.get(file.id) ?? 0;
      const language = file.language ?? "text";
      status.languages[language] = (status.languages[language] ?? 0) + 1;
      status.capabilities[file.capability] = (status.capabilities[file.capability] ?? 0) + 1;
    }
    // Keys in name order, as the whole-target counts have them (not in row order).
    status.languages = sortedKeys(status.languages);
    status.capabilities = sortedKeys(status.capabilities);
    const errors = reader.indexErrors().filter((error) => allowPath(error.path));
    const byStage: Record<string, number> = {};
    for (const error of errors) byStage[error.stage] = (byStage[error.stage] ?? 0) + 1;
    status.errors = { count: errors.length, by_stage: byStage, sample: errors.slice(0, 20) };
    return status;
  });
  return answer.value ?? { ...base, state: answer.problem ?? "corrupt" };
}

function sortedKeys(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a < b ? -1 : 1));
}

function fill(reader: TargetReader, base: RepositoryStatus): RepositoryStatus {
  const counts = reader.counts();
  const errors = reader.errorCounts();
  return {
    ...base,
    state: "ready",
    generation: reader.generation(),
    head: reader.head(),
    files: counts.files,
    chunks: counts.chunks,
    symbols: counts.symbols,
    relations: counts.relations,
    bytes: counts.bytes,
    languages: counts.languages,
    capabilities: counts.capabilities,
    errors: { count: errors.count, by_stage: errors.byStage, sample: reader.indexErrors(20) },
    skipped: reader.metaJson("skipped", {}),
    limitations: reader.metaJson("limitations", []),
    backends: {
      fts: "ready",
      vector: vectorBackend(reader.metaJson("embeddings", null)),
      symbols: "ready",
      lsp: "not configured",
    },
    last_refresh: base.last_refresh ?? reader.metaJson("last_refresh", null),
  };
}

/**
 * Halves every repository's error sample until the statuses fit `budget`
 * tokens or no sample is left; true when any was shortened.
 */
function shortenSamples(statuses: RepositoryStatus[], budget: number): boolean {
  let shortened = false;
  while (tokenCost(statuses) > budget) {
    const longest = statuses.reduce((a, b) =>
      a.errors.sample.length >= b.errors.sample.length ? a : b
    );
    if (!longest || longest.errors.sample.length === 0) break;
    longest.errors.sample = longest.errors.sample.slice(
      0,
      Math.floor(longest.errors.sample.length / 2),
    );
    shortened = true;
  }
  return shortened;
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
  // The target file the path links to: its WAL is named after it.
  let real = databasePath;
  try {
    real = Deno.realPathSync(databasePath);
  } catch { /* absent */ }
  for (const suffix of ["", "-wal"]) {
    try {
      total += Deno.statSync(real + suffix).size;
    } catch { /* absent */ }
  }
  return total;
}

/** Reconciles the addressed repositories now (`refresh`) or from nothing (`rebuild`). */
export async function refreshAction(
  scope: RequestScope,
  options: { rebuild: boolean; tokenBudget?: number },
): Promise<Envelope<RefreshData>> {
  const { workspace } = scope;
  const repos = scope.repositories;
  const reports: (RefreshReport & { name: string })[] = [];
  // What a path-restricted caller is told: the version of its visible part and whether it moved.
  const restricted = new Map<string, { generation: number; changed: boolean }>();
  for (const repo of repos) {
    const progress = scope.progressOf(repo);
    const before = repositoryStates(workspace, [repo], scope)[0];
    const report = options.rebuild
      ? await workspace.rebuild(repo, progress)
      : await workspace.refresh(repo, progress);
    reports.push({ name: repo.name, ...report });
    if (scope.pathRule(repo.name)) {
      const after = repositoryStates(workspace, [repo], scope)[0];
      restricted.set(repo.name, {
        generation: after.generation,
        changed: after.generation !== before.generation,
      });
    }
  }
  // Whole-tree plan counts would tell a path-restricted caller about paths it may not see.
  const summary = (report: RefreshReport & { name: string }) => ({
    name: report.name,
    generation: report.generation,
    changed: report.changed,
  });
  let shown = reports.map((report) => {
    const seen = restricted.get(report.name);
    return seen ? { name: report.name, ...seen } : report;
  });
  const limitations: string[] = [];
  const budget = options.tokenBudget;
  if (budget !== undefined && tokenCost(shown) > budget) {
    shown = reports.map((report) => {
      const seen = restricted.get(report.name);
      return seen ? { name: report.name, ...seen } : summary(report);
    });
    limitations.push(
      `reports shortened to name, generation and changed to fit token_budget ${budget}`,
    );
  }
  return envelope({
    action: options.rebuild ? "rebuild" : "refresh",
    results: [],
    provenance: { backend: "indexer", confidence: "exact" },
    repositories: repositoryStates(workspace, repos, scope),
    limitations,
    data: { reports: shown },
  });
}
