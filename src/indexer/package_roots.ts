/**
 * Package roots: where a repository's manifests say its importable modules start, so qualified
 * names follow how the language's users name modules (`requests.sessions.Session` for
 * `src/requests/sessions.py` of a `src/` layout, not `src.requests.sessions.Session`).
 *
 * Manifests are read as text, never executed: `pyproject.toml` (setuptools `packages.find.where`
 * and `package-dir`, Poetry `packages … from`, Hatch wheel `packages`, PDM `package-dir`),
 * `setup.cfg` (`[options] package_dir`, `[options.packages.find] where`), and, for a Python
 * project (any of those manifests or `setup.py`) whose `src/` holds a package but is none
 * itself, `src/` (the static src layout). A root applies to the Python files under it.
 */
import { posix } from "node:path";
import { readConfinedText } from "./confined.ts";

/** A directory whose files are named relative to it (`src` → `src/a/b.py` is module `a.b`). */
export interface PackageRoot {
  /** Repository-relative directory without a trailing slash. */
  dir: string;
  /** The languages whose module names it roots. */
  language: "python";
}

/** What the reader needs of a repository: its file list and a way to read one file. */
export interface ManifestSource {
  paths: readonly string[];
  read(path: string): string | null;
}

/** Files larger than this are not manifests anyone writes by hand: not read. */
const MAX_MANIFEST_BYTES = 256 * 1024;

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
  const roots = new Set<string>();
  for (const path of source.paths) {
    const name = posix.basename(path);
    if (name !== "pyproject.toml" && name !== "setup.cfg" && name !== "setup.py") continue;
    const project = posix.dirname(path) === "." ? "" : posix.dirname(path);
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
      if (joined !== null && joined !== "") roots.add(joined);
    }
  }
  return [...roots].sort((a, b) => b.length - a.length || a.localeCompare(b)).map((dir) => ({
    dir,
    language: "python" as const,
  }));
}

/** The root of a repository path among `roots` (the deepest that holds it), or null. */
export function packageRootOf(roots: readonly PackageRoot[], path: string): string | null {
  for (const root of roots) {
    if (path.startsWith(`${root.dir}/`)) return root.dir;
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
