import { loadLanguageTable } from "../indexer/languages.ts";
import type { EmbeddingConfig } from "../indexer/embeddings.ts";
import type { ParsePool, WorkerLaunch } from "../indexer/pool.ts";
import type { WorkspaceLimits } from "../indexer/settings.ts";
import {
  reconcileRepository,
  type RefreshProgress,
  type RefreshReport,
} from "../indexer/refresh.ts";
import { type DependencySummary, refreshDependencySummary } from "../deps/mod.ts";
import {
  beginReplacement,
  isCorruption,
  isMarkedDamaged,
  lockTarget,
  openCurrentWriter,
  recordGeneration,
  removeAbandoned,
  type TargetLocation,
} from "../store/target.ts";
import type { TargetWriter } from "../store/writer.ts";

/** What a refresh needs to know about its repository (plain data: it crosses to a Worker). */
export interface RefreshTarget {
  name: string;
  root: string;
  location: TargetLocation;
  /** The workspace's embedding provider, if one is configured. */
  embeddings?: EmbeddingConfig | null;
  /** Build a replacement from nothing even when the target is readable (`rebuild`). */
  rebuild?: boolean;
  /** The workspace's limits on the repository's own settings (`sextant.yml`). */
  limits?: WorkspaceLimits;
}

/**
 * Why a refresh built a replacement instead of updating the target in place: asked to
 * (`requested`), a replacement a crash abandoned (`interrupted`), the target damaged
 * (`corrupt`, found by a reader or by the refresh) or of another version.
 */
export type RebuildReason =
  | "requested"
  | "interrupted"
  | "corrupt"
  | "schema_mismatch"
  | "pipeline_mismatch";

/**
 * Reconciles one repository into its target with the one writer, holding the target's write
 * lock throughout (a second refresh, in this process or another, waits for it). A damaged,
 * outdated or missing target — or one a rebuild was asked for — is replaced by a target built
 * beside it and linked only once complete; the old one answers meanwhile.
 * `rebuilt` says why a replacement was built (null: updated in place, or built the first time).
 */
export async function reconcileTarget(
  target: RefreshTarget,
  options: {
    pool: () => ParsePool;
    onProgress?: (progress: RefreshProgress) => void;
    /** Called once when another writer holds the target and this refresh waits for it. */
    onWait?: () => void;
    /** How the dependency packages' parse Workers start (the refresh Worker's: relayed). */
    packageLaunch?: WorkerLaunch;
  },
): Promise<
  {
    report: RefreshReport & { dependencies?: DependencySummary };
    rebuilt: RebuildReason | null;
  }
> {
  const { location } = target;
  const run = (writer: TargetWriter) =>
    reconcileRepository({
      root: target.root,
      writer,
      table: loadLanguageTable(),
      pool: options.pool,
      onProgress: options.onProgress,
      embeddings: target.embeddings ?? null,
      limits: target.limits,
    });
  const lock = await lockTarget(location, options.onWait);
  let result: { report: RefreshReport; rebuilt: RebuildReason | null };
  try {
    // With the lock held no build runs: one found was abandoned (a crash), and is redone.
    const abandoned = removeAbandoned(location) > 0;
    let reason: RebuildReason | "missing" | null = target.rebuild
      ? "requested"
      : abandoned
      ? "interrupted"
      : isMarkedDamaged(location)
      ? "corrupt"
      : null;
    let report: RefreshReport | null = null;
    if (reason === null) {
      const current = openCurrentWriter(location);
      if (current.writer) {
        try {
          report = await run(current.writer);
        } catch (error) {
          if (!isCorruption(error)) throw error;
          // Nothing in a target is the only copy: build it again from the source.
          reason = "corrupt";
        } finally {
          current.writer.close();
        }
      } else reason = current.problem;
    }
    if (report === null) {
      const replacement = beginReplacement(location);
      try {
        // A replacement always commits a new generation, even of an empty repository.
        replacement.writer.changed = true;
        report = await run(replacement.writer);
        replacement.swapIn();
      } catch (error) {
        replacement.abandon();
        throw error;
      }
    }
    recordGeneration(location, report.generation);
    result = { report, rebuilt: reason === null || reason === "missing" ? null : reason };
  } finally {
    lock.release();
  }
  // Then the packages its source imports (work only when its dependency fingerprint moved).
  const dependencies = await refreshDependencySummary(target, { launch: options.packageLaunch });
  return { ...result, report: { ...result.report, dependencies } };
}
