/**
 * Python dependencies: the packages of the repository's own virtual environment (`.venv` or
 * `venv` at its root; its site-packages must stay inside the repository). An imported top-level
 * name is a package directory, a single module or a `-stubs` package there; its distribution
 * and version come from the `*.dist-info` that lists it. Only `.py` / `.pyi` files are read: a
 * package of compiled extensions only is counted, never loaded.
 */
import { join, relative } from "node:path";
import type { DependencyPackage, DependencyProblem } from "./types.ts";
import {
  isDirectory,
  isDocFile,
  isFile,
  readSmall,
  realPath,
  walkPackage,
  within,
} from "./walk.ts";

/** The virtual environments a repository may hold, in the order they are tried. */
const VENVS = [".venv", "venv"];

/** The site-packages directories of the repository's virtual environment (real paths). */
export function sitePackages(
  root: string,
  problems?: (reason: DependencyProblem, example: string) => void,
): string[] {
  const found: string[] = [];
  for (const venv of VENVS) {
    const base = join(root, venv);
    if (!isDirectory(base)) continue;
    const candidates: string[] = [join(base, "Lib", "site-packages")];
    try {
      for (const entry of Deno.readDirSync(join(base, "lib"))) {
        if (/^python\d/.test(entry.name)) {
          candidates.push(join(base, "lib", entry.name, "site-packages"));
        }
      }
    } catch { /* no lib/ */ }
    for (const candidate of candidates.sort()) {
      const real = realPath(candidate);
      if (real === null || !isDirectory(real)) continue;
      if (!within(real, [root])) {
        problems?.("outside_allowed_roots", `${relative(root, candidate)} → ${real}`);
        continue;
      }
      found.push(real);
    }
    if (found.length > 0) break;
  }
  return found;
}

/** Top-level import name → distribution name and version, from the `*.dist-info` folders. */
export function distributions(site: string): Map<string, { name: string; version: string }> {
  const map = new Map<string, { name: string; version: string }>();
  let entries: Deno.DirEntry[] = [];
  try {
    entries = [...Deno.readDirSync(site)];
  } catch {
    return map;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const match = /^(.+?)-([^-]+)\.(dist-info|egg-info)$/.exec(entry.name);
    if (!match || !entry.isDirectory) continue;
    const info = { name: match[1], version: match[2] };
    const names = new Set<string>();
    const topLevel = readSmall(join(site, entry.name, "top_level.txt"), 64 * 1024);
    for (const line of (topLevel ?? "").split("\n")) if (line.trim()) names.add(line.trim());
    if (names.size === 0) {
      const record = readSmall(join(site, entry.name, "RECORD"), 4 * 1024 * 1024);
      for (const line of (record ?? "").split("\n")) {
        const path = line.split(",")[0];
        const first = path.split("/")[0];
        if (!first || first.endsWith(".dist-info") || first.startsWith("..")) continue;
        names.add(first.replace(/\.(py|pyi)$/, "").replace(/\.cpython-.*$|\.abi3\.so$/, ""));
      }
    }
    if (names.size === 0) names.add(info.name.replace(/-/g, "_").toLowerCase());
    for (const name of names) if (!map.has(name)) map.set(name, info);
  }
  return map;
}

/** Packages of the top-level names a repository imports (name → a file that imports it). */
export function findPythonPackages(
  root: string,
  imports: Map<string, string>,
  problems: (reason: DependencyProblem, example: string) => void,
): DependencyPackage[] {
  const sites = sitePackages(root, problems);
  if (sites.length === 0) {
    for (const name of imports.keys()) problems("missing", name);
    return [];
  }
  const packages: DependencyPackage[] = [];
  const byRoot = new Map<string, DependencyPackage>();
  for (const site of sites) {
    const dists = distributions(site);
    for (const name of [...imports.keys()].sort()) {
      if (packages.some((p) => p.modules.includes(name))) continue;
      const found = locate(site, name);
      if (found === null) {
        if (site === sites[sites.length - 1]) problems("missing", name);
        continue;
      }
      const real = realPath(found.path);
      if (real === null || !within(real, [site, root])) {
        problems("outside_allowed_roots", `${name} → ${real ?? found.path}`);
        continue;
      }
      const chosen = found.kind === "module"
        ? {
          files: [fileOf(site, real)].filter((f) => f !== null),
          skipped: {},
          capped: false,
        }
        : walkPackage(real, {
          base: site,
          accept: (path, file) =>
            /\.pyi$/.test(file) ? 0 : /\.py$/.test(file) ? 1 : isDocFile(path, file) ? 2 : null,
        });
      if (chosen.capped) problems("walk_cap", name);
      if (chosen.skipped.file_cap) problems("file_cap", name);
      if (!chosen.files.some((file) => /\.pyi?$/.test(file.path))) {
        problems("compiled_only", name);
        continue;
      }
      const dist = dists.get(name) ?? dists.get(name.replace(/-stubs$/, ""));
      const existing = byRoot.get(real);
      if (existing) {
        existing.modules.push(name);
        continue;
      }
      const pkg: DependencyPackage = {
        ecosystem: "pypi",
        name: dist?.name ?? name,
        version: dist?.version ?? "unknown",
        modules: [name],
        root: site,
        readRoot: real,
        display: relative(root, site),
        inRepository: true,
        files: chosen.files,
        skipped: chosen.skipped,
      };
      byRoot.set(real, pkg);
      packages.push(pkg);
    }
  }
  return packages;
}

/** A top-level name in site-packages: its stubs package first, then the package, then a module. */
function locate(site: string, name: string): { path: string; kind: "package" | "module" } | null {
  for (const dir of [`${name}-stubs`, name]) {
    if (isDirectory(join(site, dir))) return { path: join(site, dir), kind: "package" };
  }
  for (const file of [`${name}.pyi`, `${name}.py`]) {
    if (isFile(join(site, file))) return { path: join(site, file), kind: "module" };
  }
  // Compiled only: `name.cpython-311-x86_64-linux-gnu.so` and nothing to read.
  try {
    for (const entry of Deno.readDirSync(site)) {
      if (entry.name.startsWith(`${name}.`) && /\.(so|pyd)$/.test(entry.name)) {
        return { path: join(site, entry.name), kind: "module" };
      }
    }
  } catch { /* unreadable */ }
  return null;
}

function fileOf(site: string, real: string) {
  if (!/\.pyi?$/.test(real)) return null;
  const info = Deno.lstatSync(real);
  return { path: relative(site, real), size: info.size, mtimeMs: info.mtime?.getTime() ?? 0 };
}

/** Manifests and lockfiles whose change means the environment may have changed. */
export const PYTHON_MANIFESTS = [
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "requirements.txt",
  "requirements-dev.txt",
  "poetry.lock",
  "uv.lock",
  "Pipfile.lock",
  "pdm.lock",
];

/** The installed version of a top-level name (for the fingerprint), or null. */
export function pythonInstalled(
  sites: string[],
  dists: Map<string, { name: string; version: string }>[],
  name: string,
): string | null {
  for (const [i, site] of sites.entries()) {
    const found = locate(site, name);
    if (found === null) continue;
    const dist = dists[i].get(name);
    return `${dist?.name ?? name}@${dist?.version ?? "unknown"}`;
  }
  return null;
}
