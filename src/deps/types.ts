/**
 * The dependency index's values: a package found for a repository, why others were not, and
 * the bounds every step keeps to. Third-party code is only read and parsed, never imported,
 * built or run.
 */

/** Where a package comes from. */
export type Ecosystem = "npm" | "pypi" | "go" | "cargo";

/** One file of a package as the index will hold it (relative to the package target's root). */
export interface PackageFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** A package a repository's source imports, found on disk and chosen for indexing. */
export interface DependencyPackage {
  ecosystem: Ecosystem;
  /** The package's name as its ecosystem spells it (npm name, distribution, module path, crate). */
  name: string;
  /** Its installed version ("unknown" when the package does not say). */
  version: string;
  /** The import names it answers for (`urllib3`, `hono`, `github.com/x/y`, `serde`). */
  modules: string[];
  /**
   * The real directory its files are relative to: the package directory (npm, Go, Rust), or
   * site-packages for Python, whose files keep their `pkg/…` paths so module paths map as written.
   */
  root: string;
  /** The one directory (or file) its parse Workers may read: the package's own files. */
  readRoot: string;
  /**
   * How a caller sees the target's paths: prefixed with this (the path of `root` relative to the
   * using repository, e.g. `.venv/lib/python3.11/site-packages`, or `$GOMODCACHE/…` outside it).
   */
  display: string;
  /** True when `root` lies inside the using repository (then `display` is a repository path). */
  inRepository: boolean;
  /** The files chosen: type declarations first (npm), sources, README and docs. */
  files: PackageFile[];
  /** Files seen and left out, by reason (`file_cap`, `symlink`, `compiled`, …). */
  skipped: Record<string, number>;
}

/** Why an import led to no indexed package, counted per repository. */
export type DependencyProblem =
  /** No installed package answers the import (not installed, or a builtin we do not model). */
  | "missing"
  /** The package's real path leaves the allowed roots (a symlink out of node_modules or the venv). */
  | "outside_allowed_roots"
  /** A Python package with compiled extensions only (nothing to read). */
  | "compiled_only"
  /** A package directory walk that stopped at `LIMITS.walkEntries`. */
  | "walk_cap"
  /** A package whose chosen files were cut at `LIMITS.packageFiles` / `packageBytes`. */
  | "file_cap"
  /** Packages beyond `LIMITS.packages` for one repository. */
  | "package_cap"
  /** A package whose target failed to build. */
  | "failed";

/** Bounds of the dependency index (per package unless said otherwise). */
export const LIMITS = {
  /** Directory entries a package walk visits before it stops. */
  walkEntries: 20_000,
  /** Files indexed from one package. */
  packageFiles: 4_000,
  /** Bytes indexed from one package. */
  packageBytes: 48 * 1024 * 1024,
  /** One file larger than this is left out (as the repository's own default). */
  fileBytes: 1024 * 1024,
  /** Packages indexed for one repository. */
  packages: 400,
  /** Directory depth a package walk descends. */
  depth: 24,
} as const;

/** What a repository's dependency refresh did; kept beside its target and shown by `status`. */
export interface DependencyState {
  /** Hash of manifests, lockfiles, imported names and resolved versions. */
  fingerprint: string;
  /** The repository target's generation the imported names were read at. */
  generation: number;
  /** Imported external names per ecosystem, each with a file that imports it. */
  imported: Record<string, Record<string, string>>;
  packages: DependencyRecord[];
  /** Imports and files that led to no indexed package, by reason. */
  problems: Partial<Record<DependencyProblem, number>>;
  /** A few examples per reason, for `status`. */
  examples: Partial<Record<DependencyProblem, string[]>>;
  refreshed_at: string;
  /** Time the last refresh that did work took, and its share building package targets. */
  ms: number;
  index_ms: number;
}

/** One indexed package as a repository's state lists it. */
export interface DependencyRecord {
  id: string;
  ecosystem: Ecosystem;
  name: string;
  version: string;
  modules: string[];
  root: string;
  display: string;
  inRepository: boolean;
  /** The package target's database. */
  database: string;
  files: number;
  bytes: number;
  skipped: Record<string, number>;
  /** Whether its target was (re)built by this refresh or reused. */
  built: boolean;
  error?: string;
}

/** The import names a repository's source uses, per ecosystem, with a file that uses each. */
export type ImportedNames = Record<Ecosystem, Map<string, string>>;
