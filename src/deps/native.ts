/**
 * Go and Rust dependencies, read from the caches their tools fill (never filled here: nothing is
 * downloaded or built). Go: the module an import path falls in (the longest `require` of
 * go.mod), under the module cache (`$GOMODCACHE`, else `$GOPATH/pkg/mod`, else `~/go/pkg/mod`).
 * Rust: the crate a `use` names, at the version Cargo.lock pins, under
 * `$CARGO_HOME/registry/src/*` (default `~/.cargo`). Only `.go` / `.rs` sources (tests left out),
 * the manifest and the README are read.
 */
import { join, relative } from "node:path";
import type { DependencyPackage, DependencyProblem } from "./types.ts";
import { isDirectory, isDocFile, readSmall, realPath, walkPackage, within } from "./walk.ts";

/** The Go module cache, when one exists. */
export function goModuleCache(env: (name: string) => string | undefined): string | null {
  const home = env("HOME") ?? "";
  const gopath = (env("GOPATH") ?? "").split(":")[0];
  for (
    const candidate of [
      env("GOMODCACHE"),
      gopath ? join(gopath, "pkg", "mod") : undefined,
      home ? join(home, "go", "pkg", "mod") : undefined,
    ]
  ) {
    if (!candidate) continue;
    const real = realPath(candidate);
    if (real && isDirectory(real)) return real;
  }
  return null;
}

/** The Rust registry source directories (`$CARGO_HOME/registry/src/<index>`), when any exist. */
export function cargoRegistries(env: (name: string) => string | undefined): string[] {
  const home = env("CARGO_HOME") ?? join(env("HOME") ?? "", ".cargo");
  const src = realPath(join(home, "registry", "src"));
  if (src === null) return [];
  try {
    return [...Deno.readDirSync(src)].filter((entry) => entry.isDirectory)
      .map((entry) => join(src, entry.name)).sort();
  } catch {
    return [];
  }
}

/** `require`d modules of a go.mod (replaced ones left out: they are local or elsewhere). */
export function goRequirements(text: string): Map<string, string> {
  const requires = new Map<string, string>();
  const replaced = new Set<string>();
  const lines = text.replace(/\/\/.*$/gm, "").split("\n");
  let block: "require" | "replace" | null = null;
  for (const raw of lines) {
    const line = raw.trim();
    if (line === ")") {
      block = null;
      continue;
    }
    const open = /^(require|replace)\s*\($/.exec(line);
    if (open) {
      block = open[1] as "require" | "replace";
      continue;
    }
    const single = /^(require|replace)\s+(.*)$/.exec(line);
    const kind = single ? single[1] : block;
    const body = single ? single[2] : line;
    if (!kind || !body) continue;
    const parts = body.split(/\s+/);
    if (kind === "require" && parts.length >= 2) requires.set(parts[0], parts[1]);
    if (kind === "replace") replaced.add(parts[0]);
  }
  for (const module of replaced) requires.delete(module);
  return requires;
}

/** Go's module cache spelling of a path: upper-case letters become `!` + lower case. */
export function escapeModulePath(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/** Go packages of the import paths a repository uses (path → a file that imports it). */
export function findGoPackages(
  root: string,
  imports: Map<string, string>,
  env: (name: string) => string | undefined,
  problems: (reason: DependencyProblem, example: string) => void,
): DependencyPackage[] {
  const requires = goRequirements(readSmall(join(root, "go.mod")) ?? "");
  const cache = goModuleCache(env);
  const packages = new Map<string, DependencyPackage>();
  for (const path of [...imports.keys()].sort()) {
    const module = [...requires.keys()].filter((m) => path === m || path.startsWith(`${m}/`))
      .sort((a, b) => b.length - a.length)[0];
    if (!module) continue; // the standard library, or the repository's own module
    const version = requires.get(module)!;
    const key = `${module}@${version}`;
    const existing = packages.get(key);
    if (existing) {
      if (!existing.modules.includes(module)) existing.modules.push(module);
      continue;
    }
    const directory = cache ? join(cache, `${escapeModulePath(module)}@${version}`) : null;
    const real = directory ? realPath(directory) : null;
    if (real === null || !isDirectory(real)) {
      problems("missing", key);
      continue;
    }
    if (!within(real, [cache!])) {
      problems("outside_allowed_roots", `${key} → ${real}`);
      continue;
    }
    const walked = walkPackage(real, {
      base: real,
      accept: (file, name) =>
        file === "go.mod"
          ? 0
          : name.endsWith(".go") && !name.endsWith("_test.go") && !/(^|\/)testdata\//.test(file)
          ? 1
          : isDocFile(file, name)
          ? 2
          : null,
    });
    if (walked.capped) problems("walk_cap", key);
    if (walked.skipped.file_cap) problems("file_cap", key);
    packages.set(key, {
      ecosystem: "go",
      name: module,
      version,
      modules: [module],
      root: real,
      readRoot: real,
      display: `$GOMODCACHE/${relative(cache!, real)}`,
      inRepository: false,
      files: walked.files,
      skipped: walked.skipped,
    });
  }
  return [...packages.values()];
}

/** `name → version` of the registry packages Cargo.lock pins. */
export function cargoLocked(text: string): Map<string, string[]> {
  const locked = new Map<string, string[]>();
  for (const block of text.split(/^\[\[package\]\]\s*$/m).slice(1)) {
    const name = /^name\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    const version = /^version\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    const source = /^source\s*=\s*"([^"]+)"/m.exec(block)?.[1];
    if (!name || !version || !source?.startsWith("registry+")) continue;
    const key = name.replace(/-/g, "_");
    locked.set(key, [...(locked.get(key) ?? []), `${name}-${version}`]);
  }
  return locked;
}

/** Rust crates of the names a repository's `use` paths start with (crate → a file). */
export function findCargoPackages(
  root: string,
  imports: Map<string, string>,
  env: (name: string) => string | undefined,
  problems: (reason: DependencyProblem, example: string) => void,
): DependencyPackage[] {
  const locked = cargoLocked(readSmall(join(root, "Cargo.lock"), 8 * 1024 * 1024) ?? "");
  const registries = cargoRegistries(env);
  const packages: DependencyPackage[] = [];
  for (const crate of [...imports.keys()].sort()) {
    const pinned = locked.get(crate);
    if (!pinned) continue; // std, the workspace's own crates, or not a registry crate
    let directory: string | null = null;
    for (const registry of registries) {
      for (const dir of pinned) {
        if (isDirectory(join(registry, dir))) directory = join(registry, dir);
      }
      if (directory) break;
    }
    const real = directory ? realPath(directory) : null;
    if (real === null) {
      problems("missing", `${crate} (${pinned.join(", ")})`);
      continue;
    }
    if (!within(real, registries)) {
      problems("outside_allowed_roots", `${crate} → ${real}`);
      continue;
    }
    const walked = walkPackage(real, {
      base: real,
      accept: (file, name) =>
        file === "Cargo.toml"
          ? 0
          : name.endsWith(".rs") && /^src\//.test(file)
          ? 1
          : isDocFile(file, name)
          ? 2
          : null,
    });
    if (walked.capped) problems("walk_cap", crate);
    if (walked.skipped.file_cap) problems("file_cap", crate);
    const dir = real.split("/").pop()!;
    const version = /-(\d[^-]*(?:-[^-]+)?)$/.exec(dir)?.[1] ?? "unknown";
    packages.push({
      ecosystem: "cargo",
      name: dir.slice(0, dir.length - version.length - 1) || crate,
      version,
      modules: [crate],
      root: real,
      readRoot: real,
      display: `$CARGO_HOME/registry/src/${relative(join(real, "..", ".."), real)}`,
      inRepository: false,
      files: walked.files,
      skipped: walked.skipped,
    });
  }
  return packages;
}

/** Manifests and lockfiles of Go and Rust. */
export const NATIVE_MANIFESTS = ["go.mod", "go.sum", "Cargo.toml", "Cargo.lock"];
