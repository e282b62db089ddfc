import { basename, join, relative, resolve } from "node:path";
import { DEFAULT_EXCLUDES } from "../indexer/inventory.ts";
import type { RepositoryConfig } from "./config.ts";

/** How deep below the workspace root discovery looks for nested repositories. */
export const DISCOVERY_LIMITS = { depth: 6, directories: 20_000 };

/**
 * Every git repository at or below `root` (a directory holding `.git`, a
 * directory or a worktree/submodule file), named by its path relative to the
 * root (the root itself by its basename). Default-excluded and hidden
 * directories are not entered; symlinks are not followed.
 */
export function discoverRepositories(root: string): RepositoryConfig[] {
  const found: RepositoryConfig[] = [];
  const queue: { path: string; depth: number }[] = [{ path: resolve(root), depth: 0 }];
  let visited = 0;
  while (queue.length > 0 && visited < DISCOVERY_LIMITS.directories) {
    const { path, depth } = queue.shift()!;
    visited++;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(path)];
    } catch {
      continue;
    }
    if (entries.some((entry) => entry.name === ".git" && !entry.isSymlink)) {
      const rel = relative(root, path);
      found.push({ name: rel === "" ? basename(path) || "root" : rel, path });
    }
    if (depth >= DISCOVERY_LIMITS.depth) continue;
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (!entry.isDirectory || entry.isSymlink) continue;
      if (entry.name.startsWith(".") || DEFAULT_EXCLUDES.has(entry.name)) continue;
      queue.push({ path: join(path, entry.name), depth: depth + 1 });
    }
  }
  return found;
}

/** Explicit entries first; a discovered repository is added unless its path or name is taken. */
export function mergeDiscovered(
  explicit: RepositoryConfig[],
  discovered: RepositoryConfig[],
): RepositoryConfig[] {
  const real = (path: string) => {
    try {
      return Deno.realPathSync(path);
    } catch {
      return resolve(path);
    }
  };
  const paths = new Set(explicit.map((entry) => real(entry.path)));
  const names = new Set(explicit.map((entry) => entry.name));
  const merged = [...explicit];
  for (const entry of discovered) {
    if (paths.has(real(entry.path)) || names.has(entry.name)) continue;
    paths.add(real(entry.path));
    names.add(entry.name);
    merged.push(entry);
  }
  return merged;
}
