/**
 * The reconciliation plan (step 2 of a refresh), pure: inventory and stored rows in,
 * a deterministic list of actions out. Stat first: equal size, mtime and
 * fingerprint key mean unchanged; anything else is hashed by the parse stage
 * ("hash on doubt"), which may still find the bytes unchanged.
 *
 * A file whose last parse ran out of time or memory (a held failure) is not
 * parsed again while its bytes are the same: equal size, mtime and fingerprint
 * key keep it as it is (`held`); another mtime with the same size is hashed
 * against the failed bytes (`heldHash`), and only other bytes are parsed.
 */

export type PlanAction = "add" | "update" | "delete" | "rename" | "unchanged";

export interface PlanEntry {
  path: string;
  action: PlanAction;
  /** For a rename: the old path. */
  from?: string;
  /** Stored content hash to compare against once the bytes are read. */
  knownHash: string | null;
  /** The file's last parse ran out of time or memory on these very bytes: it is not parsed. */
  held?: true;
  /**
   * `knownHash` is the hash of bytes whose parse ran out of time or memory, not of stored rows:
   * equal bytes keep the failure (and the rows, if any) without a parse.
   */
  heldHash?: true;
}

/** A file whose parse ran out of time or memory, with the bytes and settings it failed on. */
export interface HeldFailure {
  size: number;
  mtimeMs: number;
  fingerprintKey: string;
  /** Null when the Worker had not read the bytes yet. */
  contentHash: string | null;
}

export interface StoredFile {
  size: number;
  mtimeMs: number;
  contentHash: string;
  /** Settings hash and parser identity the file was indexed with. */
  fingerprintKey: string;
}

export interface PlanInput {
  inventory: readonly { path: string; size: number; mtimeMs: number; fingerprintKey: string }[];
  stored: ReadonlyMap<string, StoredFile>;
  /** Renames reported by git between the indexed HEAD and the current one (new → old). */
  renames?: ReadonlyMap<string, string>;
  /** Files whose last parse ran out of time or memory (their `index_errors` rows). */
  held?: ReadonlyMap<string, HeldFailure>;
}

/** Builds the plan, sorted by path. */
export function reconcilePlan(input: PlanInput): PlanEntry[] {
  const present = new Set(input.inventory.map((entry) => entry.path));
  const renamedFrom = new Set<string>();
  const plan: PlanEntry[] = [];
  for (const entry of input.inventory) {
    const stored = input.stored.get(entry.path);
    const failure = input.held?.get(entry.path);
    if (failure && failure.fingerprintKey === entry.fingerprintKey) {
      if (failure.size === entry.size && failure.mtimeMs === entry.mtimeMs) {
        plan.push({
          path: entry.path,
          action: "unchanged",
          knownHash: stored?.contentHash ?? null,
          held: true,
        });
        continue;
      }
      if (failure.contentHash !== null && failure.size === entry.size) {
        plan.push({
          path: entry.path,
          action: stored ? "update" : "add",
          knownHash: failure.contentHash,
          heldHash: true,
        });
        continue;
      }
    }
    if (stored) {
      const same = stored.size === entry.size && stored.mtimeMs === entry.mtimeMs &&
        stored.fingerprintKey === entry.fingerprintKey;
      plan.push({
        path: entry.path,
        action: same ? "unchanged" : "update",
        knownHash: stored.fingerprintKey === entry.fingerprintKey ? stored.contentHash : null,
      });
      continue;
    }
    const from = input.renames?.get(entry.path);
    if (from && input.stored.has(from) && !present.has(from) && !renamedFrom.has(from)) {
      renamedFrom.add(from);
      plan.push({ path: entry.path, action: "rename", from, knownHash: null });
      continue;
    }
    plan.push({ path: entry.path, action: "add", knownHash: null });
  }
  for (const path of input.stored.keys()) {
    if (!present.has(path) && !renamedFrom.has(path)) {
      plan.push({ path, action: "delete", knownHash: null });
    }
  }
  // A held failure of a file that is gone (and never had rows) goes with it.
  for (const path of input.held?.keys() ?? []) {
    if (!present.has(path) && !input.stored.has(path)) {
      plan.push({ path, action: "delete", knownHash: null });
    }
  }
  return plan.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Pairs deletes with adds of identical content as renames (working-tree moves without a commit). */
export function pairRenamesByHash(
  plan: readonly PlanEntry[],
  addedHashes: ReadonlyMap<string, string>,
  stored: ReadonlyMap<string, StoredFile>,
): PlanEntry[] {
  const deletedByHash = new Map<string, string[]>();
  for (const entry of plan) {
    if (entry.action !== "delete") continue;
    const hash = stored.get(entry.path)?.contentHash;
    if (!hash) continue;
    deletedByHash.set(hash, [...(deletedByHash.get(hash) ?? []), entry.path]);
  }
  const consumed = new Set<string>();
  const result = plan.map((entry) => {
    if (entry.action !== "add") return entry;
    const hash = addedHashes.get(entry.path);
    const candidates = hash ? deletedByHash.get(hash) : undefined;
    const from = candidates?.find((path) => !consumed.has(path));
    if (!from) return entry;
    consumed.add(from);
    return { ...entry, action: "rename" as const, from };
  });
  return result.filter((entry) => !(entry.action === "delete" && consumed.has(entry.path)));
}

/** Counts of a plan by action. */
export function planCounts(plan: readonly PlanEntry[]): Record<PlanAction, number> {
  const counts: Record<PlanAction, number> = {
    add: 0,
    update: 0,
    delete: 0,
    rename: 0,
    unchanged: 0,
  };
  for (const entry of plan) counts[entry.action]++;
  return counts;
}
