/**
 * Package roots: where a repository's manifests say its importable modules start, so qualified
 * names follow how the language's users name modules: `requests.sessions.Session` for
 * `src/requests/sessions.py` of a `src/` layout (not `src.requests.sessions.Session`),
 * `serde_json::de::Deserializer` for `src/de.rs` of the crate `serde_json` (not `crate::de::…`),
 * `@acme/ledger/tax.vatRate` for `src/tax.ts` of the package `@acme/ledger` (not `src/tax.vatRate`).
 *
 * Manifests are read as text, never executed:
 * - Python: `pyproject.toml` (setuptools `packages.find.where` and `package-dir`, Poetry
 *   `packages … from`, Hatch wheel `packages`, PDM `package-dir`), `setup.cfg` (`[options]
 *   package_dir`, `[options.packages.find] where`), and, for a Python project (any of those
 *   manifests or `setup.py`) whose `src/` holds a package but is none itself, `src/` (the static
 *   src layout). Modules are named from the root (`pkg.mod`).
 * - Rust: `Cargo.toml` `[package] name` (or `[lib] name`), `-` read as `_` as rustc does; the root
 *   is the directory of `[lib] path` (default `src`). Modules are `name::a::b`; `src/bin/` stays
 *   `crate::…` (a binary is not imported by name).
 * - JavaScript and TypeScript: `package.json` `name`; the root is the directory of the source
 *   file its entry point (`exports["."]`, `source`, `types`, `module`, `main`) is built from — the
 *   entry itself when it is source, else the same path under `src/` or with its build directory
 *   (`dist/`, `lib/`, `build/`, …) left out; for a package that ships only types, its `.d.ts`. The
 *   entry file's module is the package name, a file a subpath export names is that subpath
 *   (`exports["./tiny"]` → `hono/tiny`); another file's is the name plus its path from the root,
 *   `/index` dropped (`@acme/ledger/tax`), as a subpath pattern would export it.
 *   A package with no entry that leads to an indexed file (an application, a workspace root) is
 *   imported by nobody: its files keep their paths.
 * Go needs none: its qualified names come from the package clause, as Go code writes them.
 */
import { posix } from "node:path";
import { readConfinedText } from "./confined.ts";
import type { ModuleRoot } from "./parse_types.ts";

/** The module families whose names a package root can start. */
export type ModuleFamily = "python" | "rust" | "javascript";

/** A directory whose files are named relative to it (`src` → `src/a/b.py` is module `a.b`). */
export interface PackageRoot {
  /** Repository-relative directory the module path is read from ("" for the repository root). */
  dir: string;
  /** The languages whose module names it roots. */
  family: ModuleFamily;
  /** What the language's users call the package (`serde_json`, `@acme/ledger`); "" for Python. */
  name: string;
  /** Source files a package exports, by the module they are imported as (`@acme/ledger/tax`). */
  exports: Record<string, string>;
}

/** Where the module name of the file at `path`, of `language`, starts among `roots`. */
export function moduleRootFor(
  roots: readonly PackageRoot[],
  path: string,
  language: string | null,
): ModuleRoot | null {
  const root = packageRootOf(roots, path, moduleFamily(language));
  return root && { dir: root.dir, name: root.name, exported: root.exports[path] ?? null };
}

/** What the reader needs of a repository: its file list and a way to read one file. */
export interface ManifestSource {
  paths: readonly string[];
  read(path: string): string | null;
}

/** Files larger than this are not manifests anyone writes by hand: not read. */
const MAX_MANIFEST_BYTES = 256 * 1024;

/** The family of a language whose module names a package root can start, or null. */
export function moduleFamily(language: string | null): ModuleFamily | null {
  if (language === "python") return "python";
  if (language === "rust") return "rust";
  if (language === "typescript" || language === "tsx" || language === "javascript") {
    return "javascript";
  }
  return null;
}

/**
 * The manifests of a checkout at `root` among its inventoried `paths`: each read from disk only
 * when asked, and only when it is a regular file of at most `MAX_MANIFEST_BYTES`.
 */
export function repositoryManifests(root: string, paths: readonly string[]): ManifestSource {
  return {
    paths,
    read(path) {
      return readConfinedText(root, path, { maxBytes: MAX_MANIFEST_BYTES });
    },
  };
}

/** The package roots a repository's manifests declare, deepest directories first. */
export function readPackageRoots(source: ManifestSource): PackageRoot[] {
  const paths = new Set(source.paths);
  const roots = new Map<string, PackageRoot>();
  const add = (root: PackageRoot) => {
    const key = `${root.family}\0${root.dir}`;
    if (!roots.has(key)) roots.set(key, root);
  };
  for (const path of source.paths) {
    const name = posix.basename(path);
    const project = posix.dirname(path) === "." ? "" : posix.dirname(path);
    if (name === "pyproject.toml" || name === "setup.cfg" || name === "setup.py") {
      const text = name === "setup.py" ? "" : source.read(path);
      if (text !== null && text.length > MAX_MANIFEST_BYTES) continue;
      const declared = name === "pyproject.toml"
        ? pyprojectRoots(text ?? "")
        : name === "setup.cfg"
        ? setupCfgRoots(text ?? "")
        : [];
      const dirs = declared.length > 0 ? declared : staticSrcLayout(project, paths);
      for (const dir of dirs) {
        const joined = normalize(project === "" ? dir : `${project}/${dir}`);
        if (joined !== null && joined !== "") {
          add({ dir: joined, family: "python", name: "", exports: {} });
        }
      }
    } else if (name === "Cargo.toml") {
      const text = source.read(path);
      const crate = text === null ? null : cargoCrate(text);
      if (!crate) continue;
      const joined = normalize(project === "" ? crate.dir : `${project}/${crate.dir}`);
      if (joined !== null && joined !== "") {
        add({ dir: joined, family: "rust", name: crate.name, exports: {} });
      }
    } else if (name === "package.json") {
      const text = source.read(path);
      const root = text === null ? null : packageJsonRoot(text, project, paths);
      if (root) add(root);
    }
  }
  return [...roots.values()].sort((a, b) =>
    b.dir.length - a.dir.length || a.dir.localeCompare(b.dir) || a.family.localeCompare(b.family)
  );
}

/** The root of `family` that holds a repository path (the deepest), or null. */
export function packageRootOf(
  roots: readonly PackageRoot[],
  path: string,
  family: ModuleFamily | null = "python",
): PackageRoot | null {
  if (family === null) return null;
  for (const root of roots) {
    if (root.family === family && (root.dir === "" || path.startsWith(`${root.dir}/`))) return root;
  }
  return null;
}

/** `src` for a project whose `src/` holds a package (`src/<name>/__init__.py`) and is none. */
function staticSrcLayout(project: string, paths: ReadonlySet<string>): string[] {
  const src = project === "" ? "src" : `${project}/src`;
  if (paths.has(`${src}/__init__.py`)) return [];
  for (const path of paths) {
    if (path.startsWith(`${src}/`) && /^[^/]+\/__init__\.py$/.test(path.slice(src.length + 1))) {
      return ["src"];
    }
  }
  return [];
}

/** `a/./b/` → `a/b`; null for a path that leaves the project (`..`) or is absolute. */
function normalize(dir: string): string | null {
  if (dir.startsWith("/")) return null;
  const parts = dir.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) return null;
  return parts.join("/");
}

/** The source directories a `pyproject.toml` declares. */
export function pyprojectRoots(text: string): string[] {
  const tables = readToml(text);
  const dirs: string[] = [];
  const find = tables.get("tool.setuptools.packages.find");
  dirs.push(...strings(find?.get("where")));
  const setuptools = tables.get("tool.setuptools");
  dirs.push(...inlineTableValues(setuptools?.get("package-dir"), ""));
  const poetry = tables.get("tool.poetry");
  for (const entry of inlineTables(poetry?.get("packages"))) {
    const from = entry.get("from");
    if (from !== undefined) dirs.push(from);
  }
  const hatch = tables.get("tool.hatch.build.targets.wheel");
  for (const packageDir of strings(hatch?.get("packages"))) {
    const parent = posix.dirname(packageDir);
    if (parent !== ".") dirs.push(parent);
  }
  const pdm = tables.get("tool.pdm.build");
  dirs.push(...strings(pdm?.get("package-dir")));
  return [...new Set(dirs)].filter((dir) => dir !== "" && dir !== ".");
}

/** The source directories a `setup.cfg` declares. */
export function setupCfgRoots(text: string): string[] {
  const dirs: string[] = [];
  let section = "";
  let key = "";
  for (const raw of text.split("\n")) {
    const line = raw.replace(/[#;].*$/, "");
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) {
      section = header[1].trim();
      key = "";
      continue;
    }
    const assignment = /^(\S[^=]*?)\s*=\s*(.*)$/.exec(line);
    const value = assignment ? assignment[2].trim() : /^\s+(\S.*)$/.exec(line)?.[1].trim();
    if (assignment) key = assignment[1].trim();
    if (value === undefined || value === "") continue;
    if (section === "options.packages.find" && key === "where") dirs.push(value);
    if (section === "options" && key === "package_dir") {
      // `=src` (the root package's directory) or `pkg=src/pkg`.
      const mapping = /^([\w.]*)\s*=\s*(\S+)$/.exec(value);
      if (mapping && mapping[1] === "") dirs.push(mapping[2]);
    }
  }
  return dirs;
}

/** A crate's name as code writes it and its source directory, from `Cargo.toml`; null for none. */
export function cargoCrate(text: string): { name: string; dir: string } | null {
  const tables = readToml(text);
  const unquote = (value: string | undefined) =>
    value === undefined ? undefined : strings(value)[0];
  const lib = tables.get("lib");
  const name = unquote(lib?.get("name")) ?? unquote(tables.get("package")?.get("name"));
  if (!name || !/^[A-Za-z_][\w-]*$/.test(name)) return null;
  const libPath = unquote(lib?.get("path"));
  const dir = libPath ? posix.dirname(libPath) : "src";
  return { name: name.replaceAll("-", "_"), dir: dir === "." ? "" : dir };
}

/** Extensions a package's source files have, most specific first. */
const SOURCE_EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
/** Extensions of what a build writes for a source file. */
const BUILT_EXTENSION = /(\.d)?\.(?:[mc]?js|[mc]?ts|tsx|jsx)$/;

/**
 * The JavaScript/TypeScript root a `package.json` at `project` declares: its name, the directory
 * of the source its entry point is built from, and the module each exported source file is
 * imported as (the entry: the name; `exports["./tiny"]`: `name/tiny`); null for a package without
 * a name or without an entry that leads to an indexed file, and for unreadable JSON.
 */
export function packageJsonRoot(
  text: string,
  project: string,
  paths: ReadonlySet<string>,
): PackageRoot | null {
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    return null;
  }
  if (!manifest || typeof manifest !== "object" || Array.isArray(manifest)) return null;
  const fields = manifest as Record<string, unknown>;
  const name = fields.name;
  if (typeof name !== "string" || !/^(@[\w.-]+\/)?[\w.-]+$/.test(name)) return null;
  const within = (path: string) => project === "" ? path : `${project}/${path}`;
  const subpaths = exportSubpaths(fields.exports);
  const main = [
    ...(subpaths.get(".") ?? []),
    ...["source", "types", "typings", "module", "main"].flatMap((key) =>
      typeof fields[key] === "string" ? [fields[key] as string] : []
    ),
  ];
  const exports: Record<string, string> = {};
  const entry = entrySource(main, within, paths);
  if (entry !== null) exports[entry] = name;
  for (const [subpath, targets] of subpaths) {
    if (subpath === "." || subpath.includes("*") || subpath.endsWith(".json")) continue;
    const source = entrySource(targets, within, paths);
    if (source !== null && !(source in exports)) exports[source] = `${name}/${subpath.slice(2)}`;
  }
  // A package nobody imports by name (an application, a workspace root) keeps its paths.
  const sources = Object.keys(exports);
  if (sources.length === 0) return null;
  const anchor = entry ?? sources.sort((a, b) => a.length - b.length)[0];
  const dir = posix.dirname(anchor) === "." ? "" : posix.dirname(anchor);
  return { dir, family: "javascript", name, exports };
}

/** The source an entry point's targets are built from; else, shipping only types, its `.d.ts`. */
function entrySource(
  targets: readonly string[],
  within: (path: string) => string,
  paths: ReadonlySet<string>,
): string | null {
  for (const target of targets) {
    const source = sourceOfEntry(target, within, paths);
    if (source !== null) return source;
  }
  for (const target of targets) {
    const clean = normalize(target.replace(/^\.\//, ""));
    if (clean && /\.d\.[mc]?ts$/.test(clean) && paths.has(within(clean))) return within(clean);
  }
  return null;
}

/**
 * The targets of each subpath `exports` declares (`"."`, `"./tiny"`), conditions read in the
 * order a type checker reads them; `exports` as a string or a conditions object is `"."`.
 */
function exportSubpaths(exports: unknown): Map<string, string[]> {
  const bySubpath = typeof exports === "object" && exports !== null && !Array.isArray(exports) &&
      Object.keys(exports).some((key) => key.startsWith("."))
    ? Object.entries(exports as Record<string, unknown>)
    : exports === undefined
    ? []
    : [[".", exports] as [string, unknown]];
  const subpaths = new Map<string, string[]>();
  for (const [subpath, value] of bySubpath) {
    if (subpath !== "." && !subpath.startsWith("./")) continue;
    const targets: string[] = [];
    conditionTargets(value, targets, 0);
    subpaths.set(subpath, targets);
  }
  return subpaths;
}

/** Conditions in the order a type checker reads them; the rest after, as written. */
const CONDITIONS = ["source", "types", "import", "module", "default", "require", "node"];

/** The target strings of an export's value (a string, an array, or nested conditions). */
function conditionTargets(value: unknown, targets: string[], depth: number): void {
  if (depth > 4) return;
  if (typeof value === "string") targets.push(value);
  else if (Array.isArray(value)) {
    for (const item of value) conditionTargets(item, targets, depth + 1);
  } else if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const rest = Object.keys(record).filter((key) => !CONDITIONS.includes(key));
    for (const key of [...CONDITIONS, ...rest]) {
      if (key in record) conditionTargets(record[key], targets, depth + 1);
    }
  }
}

/**
 * The repository path of the source file an entry point (`./dist/index.js`) is built from: the
 * entry itself when it is source, else the same path (extension aside) with leading build
 * directories left out, directly or under `src/`; null when none is indexed.
 */
function sourceOfEntry(
  target: string,
  within: (path: string) => string,
  paths: ReadonlySet<string>,
): string | null {
  const clean = normalize(target.replace(/^\.\//, ""));
  if (clean === null || clean === "" || clean.includes("*")) return null;
  if (paths.has(within(clean)) && !clean.endsWith(".d.ts")) {
    if (SOURCE_EXTENSIONS.some((extension) => clean.endsWith(extension))) return within(clean);
  }
  const segments = clean.replace(BUILT_EXTENSION, "").split("/");
  for (let skip = 0; skip < segments.length; skip++) {
    const rest = segments.slice(skip).join("/");
    for (const base of [rest, `src/${rest}`]) {
      for (const extension of SOURCE_EXTENSIONS) {
        const candidate = within(`${base}${extension}`);
        if (paths.has(candidate)) return candidate;
      }
    }
  }
  return null;
}

type TomlTable = Map<string, string>;

/**
 * The `key = value` lines of a TOML file by table name, each value as its raw text (arrays and
 * inline tables joined onto one line). Enough for the keys read here; no TOML is evaluated.
 */
function readToml(text: string): Map<string, TomlTable> {
  const tables = new Map<string, TomlTable>([["", new Map()]]);
  let current = tables.get("")!;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = stripComment(lines[i]).trim();
    if (line === "") continue;
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?$/.exec(line);
    if (header) {
      const name = header[1].split(".").map((part) => part.trim().replace(/^"|"$/g, "")).join(".");
      current = tables.get(name) ?? new Map();
      tables.set(name, current);
      continue;
    }
    const assignment = /^("[^"]*"|[\w.-]+)\s*=\s*(.*)$/.exec(line);
    if (!assignment) continue;
    let value = assignment[2];
    // Arrays and inline tables may span lines: read until the brackets balance.
    while (depth(value) > 0 && i + 1 < lines.length) value += ` ${stripComment(lines[++i]).trim()}`;
    current.set(assignment[1].replace(/^"|"$/g, ""), value.trim());
  }
  return tables;
}

function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "#") return line.slice(0, i);
  }
  return line;
}

function depth(value: string): number {
  let open = 0;
  for (const char of value.replace(/"[^"]*"|'[^']*'/g, "")) {
    if (char === "[" || char === "{") open++;
    else if (char === "]" || char === "}") open--;
  }
  return open;
}

/** The strings of a TOML string or array of strings. */
function strings(value: string | undefined): string[] {
  if (value === undefined) return [];
  return [...value.matchAll(/"([^"]*)"|'([^']*)'/g)].map((match) => match[1] ?? match[2]);
}

/** The values of an inline table whose key is `key` (`{"" = "src"}` → `src`). */
function inlineTableValues(value: string | undefined, key: string): string[] {
  return inlineTables(value === undefined ? undefined : `[${value}]`).flatMap((table) => {
    const found = table.get(key);
    return found === undefined ? [] : [found];
  });
}

/** The inline tables of an array (`[{ include = "x", from = "src" }]`), their values unquoted. */
function inlineTables(value: string | undefined): Map<string, string>[] {
  if (value === undefined) return [];
  return [...value.matchAll(/\{([^}]*)\}/g)].map((match) =>
    new Map(
      [...match[1].matchAll(/("[^"]*"|'[^']*'|[\w.-]+)\s*=\s*("[^"]*"|'[^']*')/g)].map((pair) => [
        pair[1].replace(/^["']|["']$/g, ""),
        pair[2].slice(1, -1),
      ]),
    )
  );
}
