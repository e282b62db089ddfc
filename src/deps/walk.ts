/**
 * Reading a package directory, bounded: a walk that never follows a symlink, skips nested
 * `node_modules`, caches and VCS folders, stops after `LIMITS.walkEntries` entries, and keeps the
 * files a chooser accepts within `LIMITS.packageFiles` and `LIMITS.packageBytes`.
 */
import { join, relative } from "node:path";
import { LIMITS, type PackageFile } from "./types.ts";

/** Directory names a package walk never enters. */
const SKIP_DIRECTORIES = new Set([
  "node_modules",
  ".git",
  ".hg",
  ".svn",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".venv",
  "venv",
  "target",
  ".cache",
]);

/** A walk's files (relative to `base`) and what it left out. */
export interface WalkResult {
  files: PackageFile[];
  skipped: Record<string, number>;
  /** True when the walk stopped at its entry bound. */
  capped: boolean;
}

/**
 * Walks `directory` (a real path) and returns the files `accept` keeps, as paths relative to
 * `base`, sorted by the chooser's rank then path. Symlinks are counted and never followed.
 */
export function walkPackage(
  directory: string,
  options: {
    base: string;
    /** The rank of a file (lower first), or null to leave it out. */
    accept: (path: string, name: string) => number | null;
    limits?: Partial<Record<keyof typeof LIMITS, number>>;
  },
): WalkResult {
  const limits = { ...LIMITS, ...options.limits };
  const skipped: Record<string, number> = {};
  const count = (reason: string) => (skipped[reason] = (skipped[reason] ?? 0) + 1);
  const found: (PackageFile & { rank: number })[] = [];
  let entries = 0;
  let capped = false;
  const stack: { dir: string; depth: number }[] = [{ dir: directory, depth: 0 }];
  while (stack.length > 0 && !capped) {
    const { dir, depth } = stack.pop()!;
    let listing: Deno.DirEntry[];
    try {
      listing = [...Deno.readDirSync(dir)];
    } catch {
      count("unreadable");
      continue;
    }
    listing.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    for (const entry of listing) {
      if (++entries > limits.walkEntries) {
        capped = true;
        break;
      }
      const full = join(dir, entry.name);
      if (entry.isSymlink) {
        count("symlink");
        continue;
      }
      if (entry.isDirectory) {
        if (SKIP_DIRECTORIES.has(entry.name)) continue;
        if (depth + 1 > limits.depth) {
          count("depth");
          continue;
        }
        stack.push({ dir: full, depth: depth + 1 });
        continue;
      }
      if (!entry.isFile) continue;
      const path = relative(options.base, full);
      const rank = options.accept(path, entry.name);
      if (rank === null) continue;
      let info: Deno.FileInfo;
      try {
        info = Deno.lstatSync(full);
      } catch {
        count("unreadable");
        continue;
      }
      if (info.size > limits.fileBytes) {
        count("oversize");
        continue;
      }
      found.push({ path, size: info.size, mtimeMs: info.mtime?.getTime() ?? 0, rank });
    }
  }
  found.sort((a, b) => a.rank - b.rank || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const files: PackageFile[] = [];
  let bytes = 0;
  for (const file of found) {
    if (files.length >= limits.packageFiles || bytes + file.size > limits.packageBytes) {
      count("file_cap");
      continue;
    }
    bytes += file.size;
    files.push({ path: file.path, size: file.size, mtimeMs: file.mtimeMs });
  }
  if (capped) count("walk_cap");
  return { files, skipped, capped };
}

/** Whether a real path lies in (or is) one of the allowed roots. */
export function within(real: string, roots: readonly string[]): boolean {
  return roots.some((root) =>
    real === root || real.startsWith(root.endsWith("/") ? root : `${root}/`)
  );
}

/** The real path of a path, or null when it does not exist. */
export function realPath(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}

/** Whether a path is a directory (following symlinks), without throwing. */
export function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** Whether a path is a file (following symlinks), without throwing. */
export function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** A small text file, or null (absent, unreadable or larger than `max`). */
export function readSmall(path: string, max = 2 * 1024 * 1024): string | null {
  try {
    const info = Deno.statSync(path);
    if (!info.isFile || info.size > max) return null;
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

/** Documentation files a package ships: README and friends at its top, Markdown under docs/. */
export function isDocFile(path: string, name: string): boolean {
  const lower = name.toLowerCase();
  if (/^(readme|changelog|changes|history)(\.(md|rst|txt|markdown))?$/.test(lower)) {
    return !path.includes("/") || path.split("/").length <= 2;
  }
  return /(^|\/)docs?\//.test(path) && /\.(md|rst|markdown)$/.test(lower);
}
