import picomatch from "picomatch";
import ignore from "ignore";
import { join, relative, resolve, sep } from "node:path";
import { gitListFiles } from "./git.ts";
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
];
export const isSecretName = picomatch(SECRET_PATTERNS, { dot: true, nocase: true });

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

/** Lists the files of one repository that may be indexed, and why the others are not. */
export async function takeInventory(
  root: string,
  settings: RepositorySettings,
): Promise<Inventory> {
  const listed = await gitListFiles(root);
  const paths = listed ?? walkHonouringGitignore(root);
  const include = settings.include.length > 0 ? picomatch(settings.include, { dot: true }) : null;
  const exclude = settings.exclude.length > 0 ? picomatch(settings.exclude, { dot: true }) : null;
  const realRoot = Deno.realPathSync(root);
  const files: InventoryEntry[] = [];
  const skipped: Inventory["skipped"] = [];
  for (const path of [...new Set(paths)].sort()) {
    const segments = path.split("/");
    if (segments.slice(0, -1).some((segment) => DEFAULT_EXCLUDES.has(segment))) {
      skipped.push({ path, reason: "default_exclude" });
      continue;
    }
    if (isSecretName(segments[segments.length - 1])) {
      skipped.push({ path, reason: "secret" });
      continue;
    }
    if ((include && !include(path)) || (exclude && exclude(path))) {
      skipped.push({ path, reason: "settings_exclude" });
      continue;
    }
    const full = join(root, path);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(full);
      if (info.isSymlink) {
        const target = Deno.realPathSync(full);
        if (target !== realRoot && !target.startsWith(realRoot + sep)) {
          skipped.push({ path, reason: "symlink_escape" });
          continue;
        }
        info = Deno.statSync(full);
      }
    } catch {
      skipped.push({ path, reason: "unreadable" });
      continue;
    }
    if (!info.isFile) {
      if (!info.isDirectory) skipped.push({ path, reason: "not_a_file" });
      continue;
    }
    if (info.size > settings.maxFileSize) {
      skipped.push({ path, reason: "oversize" });
      continue;
    }
    files.push({ path, size: info.size, mtimeMs: Math.trunc(info.mtime?.getTime() ?? 0) });
  }
  return { files, skipped, source: listed ? "git" : "walk" };
}

/** A walk for directories without git: honours `.gitignore` files at every level. */
export function walkHonouringGitignore(root: string): string[] {
  const found: string[] = [];
  const base = resolve(root);
  const visit = (dir: string, rules: { dir: string; matcher: ReturnType<typeof ignore> }[]) => {
    let ownRules = rules;
    try {
      const text = Deno.readTextFileSync(join(dir, ".gitignore"));
      ownRules = [...rules, { dir, matcher: ignore().add(text) }];
    } catch {
      // no .gitignore here
    }
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
