/**
 * What may be indexed, decided in one place: the inventory of a refresh, the
 * live-scan fallback and the resolver's manifest reads all judge a path here.
 *
 * A file is judged by what it is, not by the name it is listed under:
 * - a symlink is never indexed (reason `symlink`, or `symlink_escape` when it leads out of the
 *   root), and neither is a path with a symlinked directory on the way: what it points to, if
 *   it is in the repository, is indexed once under its own path, where secret names and an
 *   agent's path rules judge it (`src/link.ts -> ../secret/hidden.ts` would otherwise serve the
 *   hidden text to an agent granted `src/**`);
 * - a regular file with more than one hard link is never indexed (reason `hard_link`): its other
 *   names cannot be found from its path, and one of them may be a secret (`.env`, a key) or a
 *   path an agent may not see;
 * - secret names (`SECRET_PATTERNS`) are matched on the file's base name.
 */
import picomatch from "picomatch";
import ignore from "ignore";
import { join, relative, resolve, sep } from "node:path";
import { gitListFiles } from "./git.ts";
import { readConfinedText } from "./confined.ts";
import type { RepositorySettings } from "./settings.ts";
import type { SkipReason } from "./parse_types.ts";

/** Directory names never indexed, wherever they appear: VCS, dependency, build and tool folders. */
export const DEFAULT_EXCLUDES = new Set([
  ".git",
  "node_modules",
  "target",
  "build",
  "dist",
  ".gradle",
  ".idea",
  ".vscode",
  "vendor",
  "__pycache__",
  ".venv",
  ".code-index",
]);

const SECRET_PATTERNS = [
  ".env",
  ".env.*",
  "*.pem",
  "*.key",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  "*.p12",
  "*.pfx",
  ".npmrc",
  ".pypirc",
  ".netrc",
  ".git-credentials",
  "credentials",
  "credentials.*",
  "*credentials.json",
  ".envrc",
  "secrets.yaml",
  "secrets.yml",
  "*.p8",
  "*.keystore",
  "*.jks",
  ".secret",
  ".secrets",
];
/**
 * Whether a base name is a secret's: one expression of every pattern's picomatch expression, not
 * picomatch's matcher list, which tries the patterns one call at a time (3.2 against 0.3 ms for
 * sympy's 1,732 names, each judged once per refresh).
 */
const SECRET_NAME = new RegExp(
  SECRET_PATTERNS.map((pattern) => picomatch.makeRe(pattern, { dot: true, nocase: true }).source)
    .join("|"),
  "i",
);
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

export interface InventoryEntry {
  path: string;
  size: number;
  mtimeMs: number;
}

export interface Inventory {
  files: InventoryEntry[];
  skipped: { path: string; reason: SkipReason }[];
  source: "git" | "walk";
}

/**
 * Lists the files of one repository that may be indexed, and why the others are not.
 * `expected`: paths the listing will probably hold (those the last refresh stored), judged while
 * git lists, which takes as long as judging them: on sympy a no-op refresh's inventory is git's
 * 11 ms and ~2,100 `lstat`s of 7 µs each, one after the other without this. A path is judged
 * once, and only the listed paths' verdicts count.
 */
export async function takeInventory(
  root: string,
  settings: RepositorySettings,
  expected: Iterable<string> = [],
): Promise<Inventory> {
  const listing = gitListFiles(root);
  const judge = pathJudge(root, settings);
  const early = new Map<string, Verdict>();
  for (const path of expected) early.set(path, judge(path));
  const listed = await listing;
  const paths = listed ?? walkHonouringGitignore(root);
  const files: InventoryEntry[] = [];
  const skipped: Inventory["skipped"] = [];
  for (const path of [...new Set(paths)].sort()) {
    const verdict = early.has(path) ? early.get(path)! : judge(path);
    if (verdict === null) continue;
    if ("reason" in verdict) skipped.push({ path, reason: verdict.reason });
    else files.push(verdict);
  }
  return { files, skipped, source: listed ? "git" : "walk" };
}

/** What the judge says of one listed path: index it, skip it for a reason, or null (a directory). */
export type Verdict = InventoryEntry | { reason: SkipReason } | null;

/**
 * The one judgement of a repository-relative path (the inventory's rules):
 * default excludes, secret names, `.code-index/settings.yml` include/exclude,
 * symlinks (the file and every directory on the way), hard links, non-files
 * and the size limit. Directories seen on the way are remembered, so judging
 * every file of a tree costs one `lstat` per directory plus one per file.
 */
export function pathJudge(
  root: string,
  settings: Pick<RepositorySettings, "include" | "exclude" | "maxFileSize">,
): (path: string) => Verdict {
  const include = settings.include.length > 0 ? picomatch(settings.include, { dot: true }) : null;
  const exclude = settings.exclude.length > 0 ? picomatch(settings.exclude, { dot: true }) : null;
  const realRoot = Deno.realPathSync(root);
  const under = realRoot.endsWith(sep) ? realRoot : realRoot + sep;
  // Directory (repository-relative) → null when it is a plain directory, else why not.
  const directories = new Map<string, SkipReason | null>();
  const directoryProblem = (dir: string): SkipReason | null => {
    if (dir === "") return null;
    let known = directories.get(dir);
    if (known !== undefined) return known;
    const parent = dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/")) : "";
    known = directoryProblem(parent);
    if (known === null) {
      try {
        const info = Deno.lstatSync(join(realRoot, dir));
        if (info.isSymlink) known = linkReason(realRoot, join(realRoot, dir));
        else if (!info.isDirectory) known = "not_a_file";
      } catch {
        known = "unreadable";
      }
    }
    directories.set(dir, known);
    return known;
  };
  // Per directory, what its name alone says (a malformed or default-excluded folder on the way);
  // per base name, whether it is a secret's.
  const directoryNames = new Map<string, SkipReason | null>();
  const secretNames = new Map<string, boolean>();
  return (path) => {
    const slash = path.lastIndexOf("/");
    const dir = slash < 0 ? "" : path.slice(0, slash);
    const name = path.slice(slash + 1);
    let named = directoryNames.get(dir);
    if (named === undefined) {
      const segments = dir === "" ? [] : dir.split("/");
      named = segments.some(malformedSegment)
        ? "unreadable"
        : segments.some((segment) => DEFAULT_EXCLUDES.has(segment))
        ? "default_exclude"
        : null;
      directoryNames.set(dir, named);
    }
    if (named === "unreadable" || malformedSegment(name)) return { reason: "unreadable" };
    if (named !== null) return { reason: named };
    let secret = secretNames.get(name);
    if (secret === undefined) secretNames.set(name, secret = isSecretName(name));
    if (secret) return { reason: "secret" };
    if ((include && !include(path)) || (exclude && exclude(path))) {
      return { reason: "settings_exclude" };
    }
    const through = directoryProblem(dir);
    if (through !== null) return { reason: through };
    // No segment is empty, "." or "..": the path lies below the root as written.
    const full = under + path;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(full);
    } catch {
      return { reason: "unreadable" };
    }
    if (info.isSymlink) return { reason: linkReason(realRoot, full) };
    if (!info.isFile) return info.isDirectory ? null : { reason: "not_a_file" };
    if ((info.nlink ?? 1) > 1) return { reason: "hard_link" };
    if (info.size > settings.maxFileSize) return { reason: "oversize" };
    return { path, size: info.size, mtimeMs: Math.trunc(info.mtime?.getTime() ?? 0) };
  };
}

/** A path segment that names no entry below the root: empty, `.` or `..`. */
function malformedSegment(segment: string): boolean {
  return segment === "" || segment === "." || segment === "..";
}

/** Why a symlink is not indexed: it leads out of the root, or it is a link at all. */
function linkReason(realRoot: string, full: string): SkipReason {
  try {
    const target = Deno.realPathSync(full);
    return target === realRoot || target.startsWith(realRoot + sep) ? "symlink" : "symlink_escape";
  } catch {
    return "symlink"; // Dangling: it reads nothing, and is no file of the repository either.
  }
}

/** A walk for directories without git: honours `.gitignore` files at every level. */
export function walkHonouringGitignore(root: string): string[] {
  const found: string[] = [];
  const base = resolve(root);
  const visit = (dir: string, rules: { dir: string; matcher: ReturnType<typeof ignore> }[]) => {
    let ownRules = rules;
    // Only a regular file inside the root: a `.gitignore` symlink (or one reached through a
    // directory swapped for a symlink meanwhile) could read anything the process can.
    const rel = relative(base, join(dir, ".gitignore")).split(sep).join("/");
    const text = readConfinedText(base, rel, { maxBytes: 1024 * 1024 });
    if (text !== null) ownRules = [...rules, { dir, matcher: ignore().add(text) }];
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name < b.name ? -1 : 1)) {
      if (entry.name === ".git") continue;
      const full = join(dir, entry.name);
      const ignored = ownRules.some(({ dir: ruleDir, matcher }) => {
        const rel = relative(ruleDir, full).split(sep).join("/");
        return matcher.ignores(entry.isDirectory ? `${rel}/` : rel);
      });
      if (ignored) continue;
      const rel = relative(base, full).split(sep).join("/");
      if (entry.isDirectory) {
        if (!DEFAULT_EXCLUDES.has(entry.name)) visit(full, ownRules);
      } else {
        found.push(rel);
      }
    }
  };
  visit(base, []);
  return found;
}
