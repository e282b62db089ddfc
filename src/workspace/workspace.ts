import { sep } from "node:path";
import { WireError } from "../protocol/errors.ts";
import { loadLanguageTable } from "../indexer/languages.ts";
import { closeIdlePools, ParsePool } from "../indexer/pool.ts";
import type { RefreshProgress, RefreshReport } from "../indexer/refresh.ts";
import {
  hasBuildBeside,
  isCorruption,
  isMarkedDamaged,
  markDamaged,
  openTargetReader,
  type TargetLocation,
  targetLocation,
  type TargetProblem,
} from "../store/target.ts";
import type { TargetReader } from "../store/reader.ts";
import {
  loadWorkspaceConfig,
  type WorkspaceConfig,
  type WorkspaceConfigOptions,
} from "./config.ts";
import { type RebuildReason, reconcileTarget, type RefreshTarget } from "./reconcile_target.ts";
import { type EmbeddingConfig, embeddingConfig } from "../indexer/embeddings.ts";
import type { RefreshMessage, RefreshWorkerMessage } from "./refresh_worker.ts";
import { isRelayRequest, type RelayRequest, WorkerRelayHost } from "./worker_relay.ts";

/**
 * Why a target cannot answer: the store's problems, or `building` — created
 * but never committed (its first build is running, or was abandoned): it is
 * never served as ready; readers fall back and the next refresh finishes it.
 */
export type ReadProblem = TargetProblem | "building";

/** A repository of the workspace with its target. */
export interface Repository {
  name: string;
  root: string;
  location: TargetLocation;
}

export interface WorkspaceOptions extends WorkspaceConfigOptions {
  /** Run refreshes in a Worker, keeping the writer off this thread (the daemon does). */
  refreshInWorker?: boolean;
  /**
   * Never refresh or rebuild here (a query Worker): a target found damaged is marked so, and
   * the thread that owns refreshes sees the mark and repairs it.
   */
  readOnly?: boolean;
}

/** Why a refresh ran: asked for (an action's `refresh`, `refresh`, `rebuild`) or a repair. */
export type RefreshTrigger =
  | "request"
  | "repair: corrupt"
  | "repair: interrupted"
  | `repair: ${ReadProblem}`;

/** Listens to every refresh a workspace runs (for traces and counters). */
export type RefreshObserver = (event: {
  repo: string;
  report: RefreshReport | null;
  error: unknown;
  ms: number;
  /** Why it ran. */
  trigger: RefreshTrigger;
  /** Why a replacement target was built beside the old one, if one was. */
  rebuilt: RebuildReason | null;
}) => void;

/** A refresh's progress; the last event (`done`) also carries the plan counts and generation. */
export interface WorkspaceProgress extends RefreshProgress {
  plan?: RefreshReport["plan"];
  generation?: number;
  changed?: boolean;
}

interface RunningRefresh {
  task: Promise<RefreshReport>;
  listeners: Set<(progress: RefreshProgress) => void>;
}

/** State shared by a workspace and its scoped views. */
interface SharedState {
  /** Cached readers with the identity of the file they opened. */
  readers: Map<string, { reader: TargetReader; file: string }>;
  /**
   * Repositories whose cached reader this synchronous run found current (not marked damaged,
   * its file still the one linked); emptied when the run ends. A request asks for a reader
   * per file or node it reads (an outline of 150 nodes: hundreds of times), and each check is
   * two file-system calls: within one run the answer is taken as it was.
   */
  checked: Set<string>;
  refreshes: Map<string, RunningRefresh>;
  lastReports: Map<string, RefreshReport>;
  pools: Map<string, ParsePool>;
  observers: Set<RefreshObserver>;
  /** No refresh runs here (a query Worker's workspace). */
  readOnly: boolean;
  /** Refreshes run in a Worker (the daemon) when set; null: not started yet. */
  refreshWorker?: {
    worker: Worker;
    /** The parse Workers this thread started for it (`worker_relay.ts`). */
    relay: WorkerRelayHost;
    jobs: Map<number, (message: RefreshMessage) => void>;
    nextId: number;
    /** Resolves once the Worker's modules are loaded; rejects when it fails before that. */
    ready: Promise<void>;
  } | null;
}

/**
 * The registry of repositories and their targets: opens read connections,
 * runs single-flight refreshes, and rebuilds damaged targets.
 */
export class Workspace {
  readonly config: WorkspaceConfig;
  readonly repositories: Repository[];
  readonly #shared: SharedState;
  /** False for a scoped view: closing it leaves the shared state to its owner. */
  readonly #owner: boolean;

  private constructor(
    config: WorkspaceConfig,
    repositories: Repository[],
    shared?: SharedState,
  ) {
    this.config = config;
    this.repositories = repositories;
    this.#owner = shared === undefined;
    this.#shared = shared ?? {
      readers: new Map(),
      checked: new Set(),
      refreshes: new Map(),
      lastReports: new Map(),
      pools: new Map(),
      observers: new Set(),
      readOnly: false,
    };
  }

  /** Opens the workspace at a directory; throws `WireError` when it does not exist. */
  static async open(options: WorkspaceOptions = {}): Promise<Workspace> {
    const config = await loadWorkspaceConfig(options);
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
    const workspace = new Workspace(config, repositories);
    if (options.refreshInWorker) workspace.#shared.refreshWorker = null;
    workspace.#shared.readOnly = options.readOnly ?? false;
    return workspace;
  }

  /**
   * A view that sees only the named repositories: every other one is answered
   * exactly like a repository that does not exist. Shares readers and refreshes.
   */
  scoped(visible: ReadonlySet<string>): Workspace {
    const repositories = this.repositories.filter((repo) => visible.has(repo.name));
    const config: WorkspaceConfig = {
      ...this.config,
      repositories: this.config.repositories.filter((entry) => visible.has(entry.name)),
      projectSiblings: this.config.projectSiblings
        .map((group) => group.filter((name) => visible.has(name)))
        .filter((group) => group.length > 1),
    };
    return new Workspace(config, repositories, this.#shared);
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

  /** The project siblings of a repository: every other member of the sibling groups it is in. */
  siblingsOf(name: string): string[] {
    const names = new Set<string>();
    for (const group of this.config.projectSiblings) {
      if (group.includes(name)) { for (const other of group) if (other !== name) names.add(other); }
    }
    return [...names];
  }

  /** The reader of a repository's last committed generation, or why there is none. */
  reader(
    repo: Repository,
  ): { reader: TargetReader; problem: null } | { reader: null; problem: ReadProblem } {
    const current = this.#shared.checked.has(repo.name)
      ? this.#shared.readers.get(repo.name)
      : undefined;
    if (current) return { reader: current.reader, problem: null };
    // A target a reader (in any thread or process) found damaged is damaged for every reader
    // until its replacement is linked; where refreshes run, the replacement starts here.
    if (isMarkedDamaged(repo.location)) {
      this.dropReader(repo);
      this.repair(repo, "corrupt");
      return { reader: null, problem: "corrupt" };
    }
    const cached = this.#shared.readers.get(repo.name);
    if (cached) {
      // A rebuild (here or in another thread or process) links another file: reopen then.
      if (fileIdentity(repo.location.databasePath) === cached.file) {
        this.#checkedInThisRun(repo.name);
        return { reader: cached.reader, problem: null };
      }
      this.dropReader(repo);
    }
    const file = fileIdentity(repo.location.databasePath);
    const opened = openTargetReader(repo.location);
    if (!opened.reader) {
      // No target linked yet: a first build running, or one a crash abandoned.
      if (opened.problem === "missing" && hasBuildBeside(repo.location)) {
        return { reader: null, problem: "building" };
      }
      if (opened.problem === "corrupt") this.repair(repo, "corrupt");
      return opened;
    }
    if (!everCommitted(opened.reader)) {
      opened.reader.close();
      return { reader: null, problem: "building" };
    }
    // The last good target answers; a replacement a crash abandoned beside it is redone.
    if (hasBuildBeside(repo.location)) this.repair(repo, "interrupted");
    this.#shared.readers.set(repo.name, { reader: opened.reader, file });
    this.#checkedInThisRun(repo.name);
    return opened;
  }

  #checkedInThisRun(name: string): void {
    const checked = this.#shared.checked;
    if (checked.size === 0) queueMicrotask(() => checked.clear());
    checked.add(name);
  }

  /**
   * Starts the repair of a target that cannot answer (in the background; answers do not wait):
   * a refresh, which replaces a damaged, abandoned or outdated target by one built beside it.
   * The one place automatic refreshes start, and only in a workspace that lives on and owns
   * its refreshes (the daemon's, the MCP server's: `refreshInWorker`): never in a query Worker,
   * nor in a one-shot CLI process, whose exit would abandon the build (there the next refresh
   * repairs), nor when a refresh of the repository is running here already.
   */
  repair(repo: Repository, problem: ReadProblem | "interrupted"): void {
    if (this.#shared.readOnly || this.#shared.refreshWorker === undefined) return;
    if (this.#shared.refreshes.has(repo.name)) return;
    if (!this.repositories.some((known) => known.name === repo.name)) return;
    this.#refresh(repo, undefined, { rebuild: false, trigger: `repair: ${problem}` })
      .catch(() => {});
  }

  /** Drops a cached reader (after a rebuild, or when it turned out damaged). */
  dropReader(repo: Repository): void {
    const reader = this.#shared.readers.get(repo.name)?.reader;
    this.#shared.readers.delete(repo.name);
    this.#shared.checked.delete(repo.name);
    try {
      reader?.close();
    } catch { /* closed */ }
  }

  /** Runs `fn` on a reader; a corruption error drops the reader and reports the target corrupt. */
  withReader<T>(
    repo: Repository,
    fn: (reader: TargetReader) => T,
  ): { value: T; problem: null } | { value: null; problem: ReadProblem } {
    const opened = this.reader(repo);
    if (!opened.reader) return { value: null, problem: opened.problem };
    try {
      // A request's reads of one synchronous run see one commit (and check it once).
      opened.reader.hold();
      return { value: fn(opened.reader), problem: null };
    } catch (error) {
      if (!isCorruption(error)) throw error;
      // Every reader of this file says so from now on, and it is replaced.
      markDamaged(repo.location);
      this.dropReader(repo);
      this.repair(repo, "corrupt");
      return { value: null, problem: "corrupt" };
    }
  }

  /**
   * Reconciles one repository; concurrent callers join the refresh already
   * running, and each joiner's `onProgress` hears the rest of it.
   */
  refresh(
    repo: Repository,
    onProgress?: (progress: RefreshProgress) => void,
  ): Promise<RefreshReport> {
    return this.#refresh(repo, onProgress, { rebuild: false, trigger: "request" });
  }

  #refresh(
    repo: Repository,
    onProgress: ((progress: RefreshProgress) => void) | undefined,
    how: { rebuild: boolean; trigger: RefreshTrigger },
  ): Promise<RefreshReport> {
    if (this.#shared.readOnly) {
      return Promise.reject(
        new Error("refreshes run where the workspace's refreshes are owned, not here"),
      );
    }
    const running = this.#shared.refreshes.get(repo.name);
    if (running) {
      if (onProgress) {
        running.listeners.add(onProgress);
        running.task.finally(() => running.listeners.delete(onProgress)).catch(() => {});
      }
      return running.task;
    }
    const listeners = new Set<(progress: RefreshProgress) => void>();
    if (onProgress) listeners.add(onProgress);
    let last: RefreshProgress = { phase: "inventory", done: 0, total: 0 };
    const broadcast = (progress: RefreshProgress | WorkspaceProgress) => {
      for (const listener of listeners) {
        try {
          listener(progress);
        } catch { /* a listener's failure is its own */ }
      }
    };
    const started = performance.now();
    let rebuilt: RebuildReason | null = null;
    const task = this.#runRefresh(repo, how.rebuild, (progress) => {
      // The last event is sent once the report is known, with the plan counts.
      if (progress.phase === "done") return;
      last = progress;
      broadcast(progress);
    }).then(
      (done) => {
        const report = done.report;
        broadcast({
          phase: "done",
          done: last.done,
          total: last.total,
          plan: report.plan,
          generation: report.generation,
          changed: report.changed,
        });
        rebuilt = done.rebuilt;
        this.#observe({
          repo: repo.name,
          report,
          error: null,
          ms: performance.now() - started,
          trigger: how.trigger,
          rebuilt,
        });
        return report;
      },
      (error) => {
        this.#observe({
          repo: repo.name,
          report: null,
          error,
          ms: performance.now() - started,
          trigger: how.trigger,
          rebuilt,
        });
        throw error;
      },
    ).finally(() => this.#shared.refreshes.delete(repo.name));
    this.#shared.refreshes.set(repo.name, { task, listeners });
    return task;
  }

  /** Registers a listener for every refresh; returns a function that removes it. */
  observeRefreshes(observer: RefreshObserver): () => void {
    this.#shared.observers.add(observer);
    return () => this.#shared.observers.delete(observer);
  }

  /**
   * Builds the target again from nothing, beside the old one, which answers until the new one
   * is complete and linked in its place.
   */
  async rebuild(
    repo: Repository,
    onProgress?: (progress: RefreshProgress) => void,
  ): Promise<RefreshReport> {
    await this.#shared.refreshes.get(repo.name)?.task.catch(() => {});
    // A rebuild that started meanwhile is joined.
    return await this.#refresh(repo, onProgress, { rebuild: true, trigger: "request" });
  }

  /** The report of the last refresh this process ran for a repository. */
  lastReport(repo: Repository): RefreshReport | null {
    return this.#shared.lastReports.get(repo.name) ?? null;
  }

  /** True when a refresh of the repository is running in this process. */
  refreshing(repo: Repository): boolean {
    return this.#shared.refreshes.has(repo.name);
  }

  /** How many refreshes run in this process now. */
  get refreshesRunning(): number {
    return this.#shared.refreshes.size;
  }

  /** Resolves when every refresh running now has ended (successfully or not). */
  async settled(): Promise<void> {
    await Promise.all([...this.#shared.refreshes.values()].map((r) => r.task.catch(() => {})));
  }

  #observe(event: Parameters<RefreshObserver>[0]): void {
    for (const observer of this.#shared.observers) {
      try {
        observer(event);
      } catch { /* an observer's failure is its own */ }
    }
  }

  async #runRefresh(
    repo: Repository,
    rebuild: boolean,
    onProgress?: (progress: RefreshProgress) => void,
  ): Promise<{ report: RefreshReport; rebuilt: RebuildReason | null }> {
    const target: RefreshTarget = {
      name: repo.name,
      root: repo.root,
      location: repo.location,
      embeddings: this.#embeddings(),
      rebuild,
      ...(this.config.maxFileSize ? { limits: { maxFileSize: this.config.maxFileSize } } : {}),
    };
    const { report, rebuilt } = this.#shared.refreshWorker !== undefined
      ? await this.#refreshInWorker(target, onProgress)
      : await reconcileTarget(target, { pool: () => this.#pool(repo), onProgress });
    if (rebuilt) this.dropReader(repo);
    this.#shared.lastReports.set(repo.name, report);
    return { report, rebuilt };
  }

  /**
   * The `embeddings:` provider of `sextant.yml`, or null. A malformed section is not an error of
   * the refresh: search reports it and answers from hashing vectors.
   */
  #embeddings(): EmbeddingConfig | null {
    try {
      return embeddingConfig(this.config.raw);
    } catch {
      return null;
    }
  }

  /**
   * Starts the refresh Worker now rather than at the first refresh (the daemon does, before it
   * accepts connections); resolves once its modules are loaded. Nothing to do without
   * `refreshInWorker`.
   */
  startRefreshWorker(): Promise<void> {
    const shared = this.#shared;
    if (shared.refreshWorker === undefined) return Promise.resolve();
    shared.refreshWorker ??= this.#spawnRefreshWorker();
    return shared.refreshWorker.ready;
  }

  #spawnRefreshWorker(): NonNullable<SharedState["refreshWorker"]> {
    const shared = this.#shared;
    const worker = new Worker(new URL("./refresh_worker.ts", import.meta.url), {
      type: "module",
    });
    const jobs = new Map<number, (message: RefreshMessage) => void>();
    const relay = new WorkerRelayHost(worker);
    const loaded = Promise.withResolvers<void>();
    loaded.promise.catch(() => {}); // observed by `startRefreshWorker`
    let ready = false;
    worker.onmessage = (event: MessageEvent<RefreshWorkerMessage | RelayRequest>) => {
      if (isRelayRequest(event.data)) relay.receive(event.data);
      else if (event.data.type === "ready") {
        ready = true;
        loaded.resolve();
      } else jobs.get(event.data.id)?.(event.data);
    };
    worker.onerror = (event) => {
      // Never the default (which ends the process): the refreshes it held fail, it is replaced.
      event.preventDefault();
      const failure = {
        type: "error" as const,
        message: `refresh worker failed: ${event.message}`,
      };
      loaded.reject(new Error(failure.message));
      for (const [id, handler] of jobs) handler({ id, ...failure });
      worker.terminate();
      relay.close();
      if (shared.refreshWorker?.worker !== worker) return;
      // One that had loaded is replaced at once; one that failed to load, at the next refresh.
      shared.refreshWorker = ready ? this.#spawnRefreshWorker() : null;
    };
    return { worker, relay, jobs, nextId: 1, ready: loaded.promise };
  }

  /** Runs a refresh in the refresh Worker (started with the daemon, else on first use). */
  #refreshInWorker(
    target: RefreshTarget,
    onProgress?: (progress: RefreshProgress) => void,
  ): Promise<{ report: RefreshReport; rebuilt: RebuildReason | null }> {
    const shared = this.#shared;
    shared.refreshWorker ??= this.#spawnRefreshWorker();
    const runner = shared.refreshWorker;
    const id = runner.nextId++;
    return new Promise((resolve, reject) => {
      runner.jobs.set(id, (message) => {
        if (message.type === "progress") {
          onProgress?.(message.progress);
          return;
        }
        runner.jobs.delete(id);
        if (message.type === "done") resolve({ report: message.report, rebuilt: message.rebuilt });
        else reject(new Error(message.message));
      });
      runner.worker.postMessage({ id, target });
    });
  }

  #pool(repo: Repository): ParsePool {
    let pool = this.#shared.pools.get(repo.name);
    if (!pool) {
      // Another repository's pool goes first unless it is refreshing: one process holds the
      // parse Workers of the repositories refreshing now, not of every one it refreshed.
      closeIdlePools(this.#shared.pools, (name) => this.#shared.refreshes.has(name));
      pool = new ParsePool({ root: repo.root, table: loadLanguageTable() });
      this.#shared.pools.set(repo.name, pool);
    }
    return pool;
  }

  /** Closes connections and terminates parse Workers (a scoped view leaves them to its owner). */
  close(): void {
    if (!this.#owner) return;
    for (const repo of this.repositories) this.dropReader(repo);
    // Readers opened on other targets by name (dependency packages) close too.
    for (const { reader } of this.#shared.readers.values()) {
      try {
        reader.close();
      } catch { /* closed */ }
    }
    this.#shared.readers.clear();
    this.#shared.checked.clear();
    for (const pool of this.#shared.pools.values()) pool.close();
    this.#shared.pools.clear();
    this.#shared.refreshWorker?.worker.terminate();
    this.#shared.refreshWorker?.relay.close();
    if (this.#shared.refreshWorker) this.#shared.refreshWorker = null;
  }
}

/**
 * Whether a refresh ever committed into a target: every commit records the
 * inventory source (and a commit that changed anything `committed_at`); a
 * target created for a build that has not committed holds neither.
 */
function everCommitted(reader: TargetReader): boolean {
  try {
    return reader.meta("inventory_source") !== null || reader.meta("committed_at") !== null;
  } catch {
    return true; // A damaged file is found by the read that follows.
  }
}

/** Device and inode of a file, or "" when it is absent. */
function fileIdentity(path: string): string {
  try {
    const info = Deno.statSync(path);
    return `${info.dev}:${info.ino}`;
  } catch {
    return "";
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
