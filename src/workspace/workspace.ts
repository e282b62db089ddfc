import type { DatabaseSync } from "node:sqlite";
import { basename, join, resolve, sep } from "node:path";
import { WireError } from "../protocol/errors.ts";
import { gitTopLevel } from "../indexer/git.ts";
import { loadLanguageTable } from "../indexer/languages.ts";
import { ParsePool } from "../indexer/pool.ts";
import {
  reconcileRepository,
  type RefreshProgress,
  type RefreshReport,
} from "../indexer/refresh.ts";
import {
  defaultCacheDirectory,
  isCorruption,
  openReaderDatabase,
  openWriterDatabase,
  removeDatabaseFiles,
  type TargetLocation,
  targetLocation,
  type TargetProblem,
} from "../store/target.ts";
import { parseWorkspaceConfig, type WorkspaceConfig } from "./config.ts";

/** A repository of the workspace with its target. */
export interface Repository {
  name: string;
  root: string;
  location: TargetLocation;
}

export interface WorkspaceOptions {
  /** The workspace directory (default: the current directory). */
  directory?: string;
  /** `sextant.yml` path (default: `<directory>/sextant.yml` when present). */
  configPath?: string;
  cacheDirectory?: string;
}

/**
 * The registry of repositories and their targets: opens read connections,
 * runs single-flight refreshes, and rebuilds damaged targets.
 */
export class Workspace {
  readonly config: WorkspaceConfig;
  readonly repositories: Repository[];
  readonly #readers = new Map<string, DatabaseSync>();
  readonly #refreshes = new Map<string, Promise<RefreshReport>>();
  readonly #lastReports = new Map<string, RefreshReport>();
  #pools = new Map<string, ParsePool>();

  private constructor(config: WorkspaceConfig, repositories: Repository[]) {
    this.config = config;
    this.repositories = repositories;
  }

  /** Opens the workspace at a directory; throws `WireError` when it does not exist. */
  static async open(options: WorkspaceOptions = {}): Promise<Workspace> {
    const directory = resolve(options.directory ?? Deno.cwd());
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(directory);
    } catch {
      throw new WireError(
        "RepositoryNotFound",
        `Cannot open workspace: '${directory}' does not exist`,
      );
    }
    if (!info.isDirectory) {
      throw new WireError(
        "RepositoryNotFound",
        `Cannot open workspace: '${directory}' is not a directory`,
      );
    }
    const configPath = options.configPath ?? join(directory, "sextant.yml");
    let config: WorkspaceConfig;
    let text: string | null = null;
    try {
      text = Deno.readTextFileSync(configPath);
    } catch (error) {
      if (options.configPath) {
        throw new WireError(
          "InvalidParams",
          `Cannot read config '${configPath}': ${(error as Error).message}`,
        );
      }
    }
    if (text !== null) {
      config = parseWorkspaceConfig(text, resolve(configPath, ".."), configPath);
    } else {
      const top = (await gitTopLevel(directory)) ?? directory;
      config = {
        root: top,
        discover: false,
        cacheDirectory: defaultCacheDirectory(),
        repositories: [{ name: basename(top) || "root", path: top }],
        projectSiblings: [],
        raw: {},
        source: null,
      };
    }
    if (options.cacheDirectory) config.cacheDirectory = resolve(options.cacheDirectory);
    if (config.repositories.length === 0) {
      config.repositories.push({ name: basename(config.root) || "root", path: config.root });
    }
    const repositories: Repository[] = [];
    for (const entry of config.repositories) {
      let real: string;
      try {
        real = Deno.realPathSync(entry.path);
      } catch {
        throw new WireError(
          "RepositoryNotFound",
          `Cannot open repository '${entry.name}': '${entry.path}' does not exist`,
        );
      }
      repositories.push({
        name: entry.name,
        root: real,
        location: targetLocation(real, config.cacheDirectory),
      });
    }
    return new Workspace(config, repositories);
  }

  /** The repositories a request addresses: one by name, or all. Unknown names are not found. */
  select(name?: string | null): Repository[] {
    if (!name) return this.repositories;
    const found = this.repositories.filter((repo) => repo.name === name);
    if (found.length === 0) {
      throw new WireError("RepositoryNotFound", `Repository '${name}' is not in the workspace`);
    }
    return found;
  }

  /** The project siblings of a repository (SPEC §9): every other member of its groups. */
  siblingsOf(name: string): string[] {
    const names = new Set<string>();
    for (const group of this.config.projectSiblings) {
      if (group.includes(name)) { for (const other of group) if (other !== name) names.add(other); }
    }
    return [...names];
  }

  /** A read-only connection to a repository's last committed generation, or why there is none. */
  reader(
    repo: Repository,
  ): { db: DatabaseSync; problem: null } | { db: null; problem: TargetProblem } {
    const cached = this.#readers.get(repo.name);
    if (cached) return { db: cached, problem: null };
    const opened = openReaderDatabase(repo.location);
    if (opened.db) this.#readers.set(repo.name, opened.db);
    return opened;
  }

  /** Drops a cached reader (after a rebuild, or when it turned out damaged). */
  dropReader(repo: Repository): void {
    const db = this.#readers.get(repo.name);
    this.#readers.delete(repo.name);
    try {
      db?.close();
    } catch { /* closed */ }
  }

  /** Runs `fn` on a reader; a corruption error drops the reader and reports the target corrupt. */
  withReader<T>(
    repo: Repository,
    fn: (db: DatabaseSync) => T,
  ): { value: T; problem: null } | { value: null; problem: TargetProblem } {
    const opened = this.reader(repo);
    if (!opened.db) return { value: null, problem: opened.problem };
    try {
      return { value: fn(opened.db), problem: null };
    } catch (error) {
      if (!isCorruption(error)) throw error;
      this.dropReader(repo);
      return { value: null, problem: "corrupt" };
    }
  }

  /** Reconciles one repository; concurrent callers join the refresh already running. */
  refresh(
    repo: Repository,
    onProgress?: (progress: RefreshProgress) => void,
  ): Promise<RefreshReport> {
    const running = this.#refreshes.get(repo.name);
    if (running) return running;
    const task = this.#runRefresh(repo, onProgress).finally(() =>
      this.#refreshes.delete(repo.name)
    );
    this.#refreshes.set(repo.name, task);
    return task;
  }

  /** Drops the target and builds it again. */
  async rebuild(
    repo: Repository,
    onProgress?: (progress: RefreshProgress) => void,
  ): Promise<RefreshReport> {
    await this.#refreshes.get(repo.name)?.catch(() => {});
    this.dropReader(repo);
    removeDatabaseFiles(repo.location.databasePath);
    return this.refresh(repo, onProgress);
  }

  /** The report of the last refresh this process ran for a repository. */
  lastReport(repo: Repository): RefreshReport | null {
    return this.#lastReports.get(repo.name) ?? null;
  }

  /** True when a refresh of the repository is running in this process. */
  refreshing(repo: Repository): boolean {
    return this.#refreshes.has(repo.name);
  }

  async #runRefresh(
    repo: Repository,
    onProgress?: (progress: RefreshProgress) => void,
  ): Promise<RefreshReport> {
    const attempt = async (): Promise<RefreshReport> => {
      const { db } = openWriterDatabase(repo.location);
      try {
        return await reconcileRepository({
          root: repo.root,
          db,
          table: loadLanguageTable(),
          pool: () => this.#pool(repo),
          onProgress,
        });
      } finally {
        db.close();
      }
    };
    let report: RefreshReport;
    try {
      report = await attempt();
    } catch (error) {
      if (!isCorruption(error)) throw error;
      // A damaged target is rebuilt from the source; nothing in it was the only copy.
      this.dropReader(repo);
      removeDatabaseFiles(repo.location.databasePath);
      report = await attempt();
    }
    this.#lastReports.set(repo.name, report);
    return report;
  }

  #pool(repo: Repository): ParsePool {
    let pool = this.#pools.get(repo.name);
    if (!pool) {
      pool = new ParsePool({ root: repo.root, table: loadLanguageTable() });
      this.#pools.set(repo.name, pool);
    }
    return pool;
  }

  /** Closes connections and terminates parse Workers. */
  close(): void {
    for (const repo of this.repositories) this.dropReader(repo);
    for (const pool of this.#pools.values()) pool.close();
    this.#pools = new Map();
  }
}

/** Normalises a repository-relative path from a request; rejects `..` and absolute paths. */
export function normaliseRequestPath(path: string): string {
  if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path)) {
    throw new WireError("PathRejected", `Path '${path}' must be relative to the repository root`);
  }
  const parts: string[] = [];
  for (const part of path.split(/[\\/]+/)) {
    if (part === "" || part === ".") continue;
    if (part === "..") throw new WireError("PathRejected", `Path '${path}' may not contain '..'`);
    parts.push(part);
  }
  return parts.join(sep === "/" ? "/" : "/");
}
