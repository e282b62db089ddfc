import { loadLanguageTable } from "../indexer/languages.ts";
import type { EmbeddingConfig } from "../indexer/embeddings.ts";
import type { ParsePool } from "../indexer/pool.ts";
import type { WorkspaceLimits } from "../indexer/settings.ts";
import {
  reconcileRepository,
  type RefreshProgress,
  type RefreshReport,
} from "../indexer/refresh.ts";
import { type DependencySummary, refreshDependencySummary } from "../deps/mod.ts";
import {
  isCorruption,
  openTargetWriter,
  removeDatabaseFiles,
  type TargetLocation,
} from "../store/target.ts";

/** What a refresh needs to know about its repository (plain data: it crosses to a Worker). */
export interface RefreshTarget {
  name: string;
  root: string;
  location: TargetLocation;
  /** The workspace's embedding provider, if one is configured. */
  embeddings?: EmbeddingConfig | null;
  /** The workspace's limits on the repository's own settings (`sextant.yml`). */
  limits?: WorkspaceLimits;
}

/**
 * Reconciles one repository into its target with the one writer; a damaged
 * target is rebuilt from the source (`rebuilt: true`: readers must reopen).
 */
export async function reconcileTarget(
  target: RefreshTarget,
  options: { pool: () => ParsePool; onProgress?: (progress: RefreshProgress) => void },
): Promise<{ report: RefreshReport & { dependencies?: DependencySummary }; rebuilt: boolean }> {
  const attempt = async (): Promise<RefreshReport> => {
    const { writer } = openTargetWriter(target.location);
    try {
      return await reconcileRepository({
        root: target.root,
        writer,
        table: loadLanguageTable(),
        pool: options.pool,
        onProgress: options.onProgress,
        embeddings: target.embeddings ?? null,
        limits: target.limits,
      });
    } finally {
      writer.close();
    }
  };
  let result: { report: RefreshReport; rebuilt: boolean };
  try {
    result = { report: await attempt(), rebuilt: false };
  } catch (error) {
    if (!isCorruption(error)) throw error;
    // Nothing in a target is the only copy: rebuild it from the source.
    removeDatabaseFiles(target.location.databasePath);
    result = { report: await attempt(), rebuilt: true };
  }
  // Then the packages its source imports (work only when its dependency fingerprint moved).
  const dependencies = await refreshDependencySummary(target);
  return { ...result, report: { ...result.report, dependencies } };
}
