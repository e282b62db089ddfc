/**
 * The dependency index: for each repository, the external packages its source imports, each
 * indexed statically into a target of its own (the same store format), one per package version
 * and shared by every repository that uses it. A repository's dependency fingerprint — its
 * manifests and lockfiles, the names it imports, the versions those resolve to — decides
 * whether a refresh does any dependency work: an unchanged fingerprint costs a few stats, a
 * `pip install` or `npm install` changes it.
 *
 * Package files are read and parsed by parse Workers that may read only that package's
 * directory; nothing of a package is imported, built or run.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { sha256Hex } from "../engine/hash.ts";
import { loadLanguageTable } from "../indexer/languages.ts";
import { ParsePool, type WorkerLaunch } from "../indexer/pool.ts";
import { reconcileRepository } from "../indexer/refresh.ts";
import { openTargetReader, openTargetWriter, type TargetLocation } from "../store/target.ts";
import type { DependencyStatus } from "../protocol/types.ts";
import type { FileListing, TargetReader } from "../store/reader.ts";
import { importedNames, withPackageNames } from "./imports.ts";
import { findNpmPackages, NPM_MANIFESTS, npmInstalledVersion, npmPackageName } from "./npm.ts";
import {
  distributions,
  findPythonPackages,
  PYTHON_MANIFESTS,
  pythonInstalled,
  sitePackages,
} from "./python.ts";
import {
  cargoLocked,
  findCargoPackages,
  findGoPackages,
  goRequirements,
  NATIVE_MANIFESTS,
} from "./native.ts";
import {
  type DependencyPackage,
  type DependencyProblem,
  type DependencyRecord,
  type DependencyState,
  type Ecosystem,
  type ImportedNames,
  LIMITS,
} from "./types.ts";
import { readSmall } from "./walk.ts";

/** Bumped when what a fingerprint covers or how packages are chosen changes. */
const DEPENDENCY_INDEX_VERSION = 1;
const STATE_FILE = "dependencies.json";
/** Levels of packages re-exported by packages (npm declarations) indexed beyond the direct ones. */
const TRANSITIVE_DEPTH = 2;
const PACKAGE_FILE = "dependency.json";

/** A repository whose dependencies to refresh (plain data: it crosses to the refresh Worker). */
export interface DependencyOwner {
  name: string;
  root: string;
  location: TargetLocation;
}

export interface DependencyOptions {
  /** The environment (module caches: GOMODCACHE, GOPATH, CARGO_HOME, HOME). */
  env?: (name: string) => string | undefined;
  /** Parse Workers per package target (default 2). */
  workers?: number;
  /** How those Workers start and their priority (the refresh Worker's: relayed, lowered). */
  launch?: WorkerLaunch;
}

/** The state file of a repository's dependencies, beside its target. */
export function dependencyStatePath(location: TargetLocation): string {
  return join(location.directory, STATE_FILE);
}

const stateCache = new Map<string, { stamp: string; state: DependencyState | null }>();

/** A repository's dependency state as its last refresh left it, or null (none yet). */
export function loadDependencyState(location: TargetLocation): DependencyState | null {
  const path = dependencyStatePath(location);
  let stamp: string;
  try {
    const info = Deno.statSync(path);
    stamp = `${info.mtime?.getTime()}:${info.size}:${info.ino}`;
  } catch {
    return null;
  }
  const cached = stateCache.get(path);
  if (cached?.stamp === stamp) return cached.state;
  let state: DependencyState | null = null;
  try {
    state = JSON.parse(Deno.readTextFileSync(path)) as DependencyState;
  } catch { /* unreadable: as if none */ }
  stateCache.set(path, { stamp, state });
  if (state) stateStamps.set(state, stamp);
  return state;
}

/** The stamp (modification time, size, inode) of the file each loaded state was read from. */
const stateStamps = new WeakMap<DependencyState, string>();

/**
 * The stamp of the file a state `loadDependencyState` gave was read from: every write of a
 * state is a new file (a rename), so a state written again, after any package target was built,
 * has another.
 */
export function dependencyStateStamp(state: DependencyState): string | undefined {
  return stateStamps.get(state);
}

/**
 * Package targets one repository's refresh builds at once (each with its own parse pool): six
 * one-file npm packages, first refresh through a real daemon, dependency step 1,880-1,917 ms
 * one at a time, 1,283-1,369 two at a time, 1,330-1,353 three or four at a time (2 cores).
 */
const PACKAGE_BUILDS = 2;

/** Package targets being built in this process, so two repositories never build one twice. */
const building = new Map<string, Promise<DependencyRecord>>();

/**
 * Brings a repository's dependency targets up to date with its fingerprint; returns its state
 * (`changed`: whether any work was done), or null when the repository's target cannot be read.
 */
export async function refreshDependencies(
  owner: DependencyOwner,
  options: DependencyOptions = {},
): Promise<(DependencyState & { changed: boolean }) | null> {
  const started = performance.now();
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const opened = openTargetReader(owner.location);
  if (!opened.reader) return null;
  const reader = opened.reader;
  let imported: ImportedNames;
  let generation: number;
  const previous = loadDependencyState(owner.location);
  try {
    generation = reader.generation();
    imported = previous?.generation === generation
      ? fromRecord(previous.imported)
      : importedNamesOf(owner.root, reader);
  } finally {
    reader.close();
  }
  const fingerprint = dependencyFingerprint(owner.root, imported, env);
  const targetsPresent = previous?.packages.every((p) => existsSync(p.database)) ?? false;
  if (previous && previous.fingerprint === fingerprint && targetsPresent) {
    if (previous.generation !== generation) {
      // The same dependencies at a new generation: remember where the names were read.
      writeState(owner.location, { ...previous, generation, imported: toRecord(imported) });
    }
    return { ...previous, changed: false };
  }

  const problems: DependencyState["problems"] = {};
  const examples: DependencyState["examples"] = {};
  const problem = (reason: DependencyProblem, example: string) => {
    problems[reason] = (problems[reason] ?? 0) + 1;
    const list = examples[reason] ??= [];
    if (list.length < 5) list.push(example);
  };
  const packages: DependencyPackage[] = [
    ...findPythonPackages(owner.root, imported.pypi, problem),
    ...findNpmPackages(owner.root, imported.npm, problem),
    ...findGoPackages(owner.root, imported.go, env, problem),
    ...findCargoPackages(owner.root, imported.cargo, env, problem),
  ];
  const cacheDirectory = join(owner.location.directory, "..", "..");
  const indexStarted = performance.now();
  const records: DependencyRecord[] = [];
  const build = async (list: DependencyPackage[]) => {
    const room = Math.max(0, LIMITS.packages - records.length);
    for (const pkg of list.slice(room)) problem("package_cap", `${pkg.name}@${pkg.version}`);
    const wanted = list.slice(0, room);
    // `PACKAGE_BUILDS` at a time, kept in the packages' order: most of a small package's build
    // is waiting (its Worker starting, its target created), which another's can overlap.
    // The parse Workers are shared out between them: no more run than one build alone had.
    const concurrent = Math.min(PACKAGE_BUILDS, wanted.length);
    const workers = Math.max(1, Math.floor((options.workers ?? 2) / Math.max(1, concurrent)));
    const built: DependencyRecord[] = new Array(wanted.length);
    let next = 0;
    const builder = async () => {
      while (next < wanted.length) {
        const at = next++;
        built[at] = await packageTarget(wanted[at], cacheDirectory, workers, options.launch ?? {});
      }
    };
    await Promise.all(Array.from({ length: concurrent }, builder));
    for (const [at, record] of built.entries()) {
      const pkg = wanted[at];
      if (record.error) problem("failed", `${pkg.name}@${pkg.version}: ${record.error}`);
      records.push(record);
    }
    return built;
  };
  let frontier = await build(packages);
  // A package's declarations re-export other packages' (`export { it } from "@vitest/runner"`):
  // those are indexed too, found from the package's own place, two levels deep at most.
  const known = new Set(packages.filter((p) => p.ecosystem === "npm").map((p) => p.root));
  for (let depth = 0; depth < TRANSITIVE_DEPTH && frontier.length > 0; depth++) {
    const next = reexportedPackages(frontier);
    const found = findNpmPackages(owner.root, next, (reason, example) => {
      if (reason !== "missing") problem(reason, example);
    }, known);
    frontier = await build(found);
  }
  const state: DependencyState = {
    fingerprint,
    generation,
    imported: toRecord(imported),
    packages: records,
    problems,
    examples,
    refreshed_at: new Date().toISOString(),
    ms: Math.round(performance.now() - started),
    index_ms: Math.round(performance.now() - indexStarted),
  };
  writeState(owner.location, state);
  return { ...state, changed: true };
}

/**
 * The fingerprint of what a repository's dependencies are: its manifests and lockfiles, the
 * external names it imports, and the installed version each resolves to.
 */
export function dependencyFingerprint(
  root: string,
  imported: ImportedNames,
  env: (name: string) => string | undefined,
): string {
  const manifests: [string, string][] = [];
  for (const name of [...NPM_MANIFESTS, ...PYTHON_MANIFESTS, ...NATIVE_MANIFESTS]) {
    const text = readSmall(join(root, name), 16 * 1024 * 1024);
    if (text !== null) manifests.push([name, sha256Hex(text).slice(0, 16)]);
  }
  const resolved: Record<string, string> = {};
  for (const [name, file] of imported.npm) {
    resolved[`npm:${name}`] = npmInstalledVersion(root, name, file) ?? "missing";
  }
  if (imported.pypi.size > 0) {
    const sites = sitePackages(root);
    const dists = sites.map(distributions);
    for (const name of imported.pypi.keys()) {
      resolved[`pypi:${name}`] = pythonInstalled(sites, dists, name) ?? "missing";
    }
  }
  if (imported.go.size > 0) {
    const requires = goRequirements(readSmall(join(root, "go.mod")) ?? "");
    resolved["go:cache"] = env("GOMODCACHE") ?? env("GOPATH") ?? "";
    for (const [module, version] of requires) resolved[`go:${module}`] = version;
  }
  if (imported.cargo.size > 0) {
    const locked = cargoLocked(readSmall(join(root, "Cargo.lock"), 8 * 1024 * 1024) ?? "");
    resolved["cargo:home"] = env("CARGO_HOME") ?? "";
    for (const crate of imported.cargo.keys()) {
      resolved[`cargo:${crate}`] = (locked.get(crate) ?? ["missing"]).join(",");
    }
  }
  const names = Object.fromEntries(
    Object.entries(imported).map(([ecosystem, map]) => [ecosystem, [...map.keys()].sort()]),
  );
  return sha256Hex(JSON.stringify({
    version: DEPENDENCY_INDEX_VERSION,
    manifests,
    names,
    resolved: Object.entries(resolved).sort(),
  })).slice(0, 32);
}

/** Bare imports in indexed npm packages' declarations (name → a repository path importing it). */
function reexportedPackages(records: DependencyRecord[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const record of records) {
    if (record.ecosystem !== "npm" || record.error) continue;
    const opened = openTargetReader({
      root: record.root,
      directory: dirname(record.database),
      databasePath: record.database,
    });
    if (!opened.reader) continue;
    try {
      for (const relation of opened.reader.relationsOfKinds(["imports"])) {
        // Declarations only: an untyped package's runtime imports are its own business.
        if (!/\.d\.[cm]?ts$/.test(relation.path)) continue;
        const name = relation.module ? npmPackageName(relation.module) : null;
        if (name === null || record.modules.includes(name) || names.has(name)) continue;
        names.set(name, `${record.display}/${relation.path}`);
      }
    } finally {
      opened.reader.close();
    }
  }
  return names;
}

/** The target of one package version: reused when its files are the ones indexed, else built. */
function packageTarget(
  pkg: DependencyPackage,
  cacheDirectory: string,
  workers: number,
  launch: WorkerLaunch,
): Promise<DependencyRecord> {
  const key = `${pkg.ecosystem}\0${pkg.name}\0${pkg.version}`;
  const safe = `${pkg.ecosystem}-${pkg.name}@${pkg.version}`.replace(/[^\w@.+-]+/g, "_");
  const directory = join(cacheDirectory, "deps", `${safe}-${sha256Hex(key).slice(0, 10)}`);
  const location: TargetLocation = {
    root: pkg.root,
    directory,
    databasePath: join(directory, "code-context.sqlite3"),
  };
  const running = building.get(directory);
  if (running) return running;
  const task = buildPackage(pkg, location, workers, launch).finally(() =>
    building.delete(directory)
  );
  building.set(directory, task);
  return task;
}

async function buildPackage(
  pkg: DependencyPackage,
  location: TargetLocation,
  workers: number,
  launch: WorkerLaunch,
): Promise<DependencyRecord> {
  const filesKey = sha256Hex(
    JSON.stringify([pkg.root, pkg.files.map((file) => [file.path, file.size])]),
  ).slice(0, 24);
  const sidecar = join(location.directory, PACKAGE_FILE);
  const record: DependencyRecord = {
    id: `${pkg.ecosystem}:${pkg.name}@${pkg.version}`,
    ecosystem: pkg.ecosystem,
    name: pkg.name,
    version: pkg.version,
    modules: pkg.modules,
    root: pkg.root,
    display: pkg.display,
    inRepository: pkg.inRepository,
    database: location.databasePath,
    files: pkg.files.length,
    bytes: pkg.files.reduce((sum, file) => sum + file.size, 0),
    skipped: pkg.skipped,
    built: false,
  };
  const known = parseSidecar(readSmall(sidecar));
  if (known?.files_key === filesKey && existsSync(location.databasePath)) return record;
  let pool: ParsePool | null = null;
  try {
    const { writer } = openTargetWriter(location);
    try {
      // A Worker costs its start-up: small packages get one.
      const size = Math.max(1, Math.min(workers, Math.ceil(pkg.files.length / 50)));
      pool = new ParsePool({ root: pkg.readRoot, table: loadLanguageTable(), size, ...launch });
      const report = await reconcileRepository({
        root: pkg.root,
        writer,
        table: loadLanguageTable(),
        pool: () => pool!,
        files: pkg.files,
      });
      Deno.writeTextFileSync(
        sidecar,
        JSON.stringify(
          {
            id: record.id,
            root: pkg.root,
            files_key: filesKey,
            files: report.files,
            errors: report.errors,
            indexed_at: new Date().toISOString(),
            ms: report.timings_ms.total,
          },
          null,
          2,
        ) + "\n",
      );
      record.built = true;
    } finally {
      writer.close();
    }
  } catch (error) {
    record.error = (error as Error)?.message ?? `${error}`;
  } finally {
    pool?.close();
  }
  return record;
}

function parseSidecar(text: string | null): { files_key?: string } | null {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The repository's external import names, its own package.json names left out. */
function importedNamesOf(root: string, reader: TargetReader): ImportedNames {
  const files = reader.fileListing();
  return withPackageNames(importedNames(reader, files), ownPackageNames(root, reader, files));
}

/** The names the repository's own package.json files give its packages (not dependencies). */
function ownPackageNames(root: string, reader: TargetReader, files: FileListing): string[] {
  const names: string[] = [];
  const manifests = files.paths.filter((path) =>
    path === "package.json" || path.endsWith("/package.json")
  ).slice(0, 500);
  for (const path of manifests) {
    try {
      const json = JSON.parse(reader.fileText(path) ?? readSmall(join(root, path)) ?? "{}");
      if (typeof json.name === "string") names.push(json.name);
    } catch { /* not JSON */ }
  }
  return names;
}

function writeState(location: TargetLocation, state: DependencyState): void {
  const path = dependencyStatePath(location);
  Deno.mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${Deno.pid}.tmp`;
  Deno.writeTextFileSync(temporary, JSON.stringify(state, null, 1) + "\n");
  Deno.renameSync(temporary, path);
}

function toRecord(imported: ImportedNames): Record<string, Record<string, string>> {
  return Object.fromEntries(
    Object.entries(imported).map(([ecosystem, map]) => [ecosystem, Object.fromEntries(map)]),
  );
}

function fromRecord(record: Record<string, unknown>): ImportedNames {
  const map = (ecosystem: Ecosystem) =>
    new Map(Object.entries((record[ecosystem] ?? {}) as Record<string, string>));
  return { npm: map("npm"), pypi: map("pypi"), go: map("go"), cargo: map("cargo") };
}

/** What a repository refresh reports about its dependencies. */
export interface DependencySummary {
  changed: boolean;
  packages: number;
  built: number;
  files: number;
  problems: DependencyState["problems"];
  ms: number;
  error?: string;
}

/**
 * Refreshes a repository's dependencies after its own refresh, never failing it: an error is
 * reported in the summary (and the previous dependency targets stay).
 */
export async function refreshDependencySummary(
  owner: DependencyOwner,
  options: DependencyOptions = {},
): Promise<DependencySummary> {
  const started = performance.now();
  try {
    const state = await refreshDependencies(owner, options);
    return {
      changed: state?.changed ?? false,
      packages: state?.packages.length ?? 0,
      built: state?.changed ? state.packages.filter((p) => p.built).length : 0,
      files: state?.packages.reduce((sum, p) => sum + p.files, 0) ?? 0,
      problems: state?.problems ?? {},
      ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    return {
      changed: false,
      packages: 0,
      built: 0,
      files: 0,
      problems: {},
      ms: Math.round(performance.now() - started),
      error: (error as Error)?.message ?? `${error}`,
    };
  }
}

/** A repository's dependency index for `status`, or null before its first dependency refresh. */
export function dependencyStatus(location: TargetLocation): DependencyStatus | null {
  const state = loadDependencyState(location);
  if (!state) return null;
  const packages = state.packages.map((record) => ({
    id: record.id,
    ecosystem: record.ecosystem,
    name: record.name,
    version: record.version,
    path: record.display,
    files: record.files,
    bytes: record.bytes,
    target_bytes: fileBytes(record.database),
    skipped: record.skipped,
    ...(record.error ? { error: record.error } : {}),
  }));
  return {
    fingerprint: state.fingerprint,
    refreshed_at: state.refreshed_at,
    ms: state.ms,
    index_ms: state.index_ms,
    packages,
    files: packages.reduce((sum, p) => sum + p.files, 0),
    bytes: packages.reduce((sum, p) => sum + p.bytes, 0),
    target_bytes: packages.reduce((sum, p) => sum + p.target_bytes, 0),
    problems: state.problems as Record<string, number>,
    examples: state.examples as Record<string, string[]>,
  };
}

function fileBytes(databasePath: string): number {
  let total = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      total += Deno.statSync(databasePath + suffix).size;
    } catch { /* absent */ }
  }
  return total;
}
