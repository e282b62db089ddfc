/**
 * JavaScript and TypeScript dependencies: the package an import names, found the way Node
 * finds it (`node_modules/<name>` in the importing file's directory or an ancestor up to the
 * repository root), whose real path must stay inside the repository (a pnpm store under
 * `node_modules/.pnpm` does; a link to elsewhere does not). Type declarations are indexed when a
 * package has them, its JavaScript sources otherwise, with its package.json and README.
 */
import { join, posix, relative } from "node:path";
import type { DependencyPackage, DependencyProblem } from "./types.ts";
import { isDirectory, isDocFile, readSmall, realPath, walkPackage, within } from "./walk.ts";

/** Node's own modules: imports of these name no package. */
const NODE_BUILTINS = new Set([
  "assert",
  "async_hooks",
  "buffer",
  "child_process",
  "cluster",
  "console",
  "constants",
  "crypto",
  "dgram",
  "diagnostics_channel",
  "dns",
  "domain",
  "events",
  "fs",
  "http",
  "http2",
  "https",
  "inspector",
  "module",
  "net",
  "os",
  "path",
  "perf_hooks",
  "process",
  "punycode",
  "querystring",
  "readline",
  "repl",
  "stream",
  "string_decoder",
  "sys",
  "timers",
  "tls",
  "trace_events",
  "tty",
  "url",
  "util",
  "v8",
  "vm",
  "wasi",
  "worker_threads",
  "zlib",
]);

/** The package name of a bare import specifier (`@scope/name/sub` → `@scope/name`), or null. */
export function npmPackageName(specifier: string): string | null {
  if (
    specifier === "" || specifier.startsWith(".") || specifier.startsWith("/") ||
    /^[a-z][a-z0-9+.-]*:/i.test(specifier) || specifier.startsWith("#") ||
    specifier.startsWith("~")
  ) return null;
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  if (!/^(@[\w.-]+\/)?[\w.-]+$/.test(name)) return null;
  if (NODE_BUILTINS.has(name.split("/")[0]) || NODE_BUILTINS.has(name)) return null;
  return name;
}

/**
 * Packages of the names a repository imports (name → a file that imports it, relative to the
 * root). A package without declarations brings its `@types/<name>` package first when one is
 * installed. `known` holds the real directories already chosen (they are not chosen again).
 */
export function findNpmPackages(
  root: string,
  imports: Map<string, string>,
  problems: (reason: DependencyProblem, example: string) => void,
  known: Set<string> = new Set(),
): DependencyPackage[] {
  const packages: DependencyPackage[] = [];
  const add = (name: string, directory: string): DependencyPackage | null => {
    const real = realPath(directory);
    if (real === null || !within(real, [root])) {
      problems("outside_allowed_roots", `${name} → ${real ?? directory}`);
      return null;
    }
    if (known.has(real)) return null;
    known.add(real);
    const manifest = parseJson(readSmall(join(real, "package.json")));
    const chosen = choose(real);
    if (chosen.capped) problems("walk_cap", name);
    if (chosen.skipped.file_cap) problems("file_cap", name);
    const pkg: DependencyPackage = {
      ecosystem: "npm",
      name: typeof manifest?.name === "string" ? manifest.name : name,
      version: typeof manifest?.version === "string" ? manifest.version : "unknown",
      modules: [name],
      root: real,
      readRoot: real,
      display: relative(root, real),
      inRepository: true,
      files: chosen.files,
      skipped: chosen.skipped,
    };
    return pkg;
  };
  for (const [name, file] of [...imports].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const directory = locate(root, name, file);
    if (directory === null) {
      problems("missing", name);
      continue;
    }
    const pkg = add(name, directory);
    if (pkg === null) continue;
    if (!pkg.files.some((f) => /\.d\.[cm]?ts$/.test(f.path)) && !name.startsWith("@types/")) {
      // Declarations first: DefinitelyTyped's package for it, when installed.
      const typesName = `@types/${name.startsWith("@") ? name.slice(1).replace("/", "__") : name}`;
      const types = locate(root, typesName, file);
      const typed = types === null ? null : add(name, types);
      if (typed) packages.push(typed);
    }
    packages.push(pkg);
  }
  return packages;
}

/** `node_modules/<name>` in the importing file's directory or an ancestor within the root. */
function locate(root: string, name: string, file: string): string | null {
  let dir = posix.dirname(file);
  while (true) {
    const candidate = join(root, dir === "." ? "" : dir, "node_modules", name);
    if (isDirectory(candidate)) return candidate;
    if (dir === "." || dir === "" || dir === "/") return null;
    dir = posix.dirname(dir);
  }
}

/**
 * The files of a package worth reading: its `.d.ts` declarations when it has any (the API as
 * written for TypeScript), else its JavaScript and TypeScript sources; its package.json (the
 * resolver reads its entries) and README/docs always.
 */
function choose(real: string) {
  const declaration = /\.d\.[cm]?ts$/;
  const source = /\.([cm]?[jt]s|[jt]sx)$/;
  let hasDeclarations = false;
  const walked = walkPackage(real, {
    base: real,
    accept: (path, name) => {
      if (path === "package.json") return 0;
      if (declaration.test(name)) {
        hasDeclarations = true;
        return 1;
      }
      if (source.test(name)) return 2;
      if (isDocFile(path, name)) return 3;
      return null;
    },
  });
  if (!hasDeclarations) return walked;
  // Declarations first: the sources beside them are left out (counted).
  const files = walked.files.filter((file) =>
    !(source.test(file.path) && !declaration.test(file.path))
  );
  const left = walked.files.length - files.length;
  return {
    ...walked,
    files,
    skipped: left > 0 ? { ...walked.skipped, sources_with_types: left } : walked.skipped,
  };
}

function parseJson(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : null;
  } catch {
    return null;
  }
}

/** Manifests and lockfiles whose change means the installed packages may have changed. */
export const NPM_MANIFESTS = [
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "bun.lock",
  "node_modules/.package-lock.json",
  "node_modules/.modules.yaml",
];

/** The installed version of a package an import names (for the fingerprint), or null. */
export function npmInstalledVersion(root: string, name: string, file: string): string | null {
  const directory = locate(root, name, file);
  if (directory === null) return null;
  const manifest = parseJson(readSmall(join(directory, "package.json"), 1024 * 1024));
  const version = typeof manifest?.version === "string" ? manifest.version : "unknown";
  return `${version}@${relative(root, realPath(directory) ?? directory)}`;
}
