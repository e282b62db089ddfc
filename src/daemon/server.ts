/**
 * The daemon's lifecycle: open the workspace and bind the socket, accept
 * connections (each a `Session` over a `Connection`, answered by the
 * `Router`), reload the workspace without dropping connections, and shut down
 * cleanly.
 *
 * Descriptors cannot run out under the daemon's own feet. Every Worker is
 * started, its modules loaded, before the socket is bound, and the connection
 * cap leaves a reserve for what the daemon opens later (targets, their WAL and
 * shared memory, parse Workers, child processes' pipes, a replaced Worker's
 * module loads): 512 connections, or the open-file limit minus that reserve
 * when lower. A new connection past the cap takes the place of the one idle
 * the longest, which is told why and closed; with none idle the new one is
 * told and closed. A connection told to go holds its descriptor for at most
 * `LEAVING_MS`, and the daemon stops accepting while `LEAVING_SLACK` of them
 * are still leaving. A connection idle for `idleMs` (no whole frame, nothing
 * running) is closed too. An accept that fails anyway (no descriptor left) is
 * logged and retried after a short pause, freeing the longest-idle
 * connection's descriptor first.
 */
import { ResultCache } from "../actions/result_cache.ts";
import { type LspBackend, openLspBackend } from "../actions/lsp_route.ts";
import { Workspace, type WorkspaceOptions } from "../workspace/workspace.ts";
import { WireError } from "../protocol/errors.ts";
import { Connection } from "./connection.ts";
import {
  isDescriptorExhaustion,
  MODULE_LOAD_DESCRIPTORS,
  openDescriptors,
  openFileLimit,
  WORKER_DESCRIPTORS,
} from "./descriptors.ts";
import { BufferBudget } from "./framing.ts";
import { daemonLimits } from "./initialize.ts";
import { errorResponse } from "./jsonrpc.ts";
import { Counters, TraceLog } from "./observe.ts";
import { AccessPolicy } from "./policy.ts";
import { QueryPool, SPARE_IDLE_MS, WARM_UP } from "./query_pool.ts";
import { Router } from "./router.ts";
import { Session } from "./session.ts";
import { listenOnSocket } from "./socket.ts";
import { WorkspaceSlot } from "./workspace_slot.ts";

export { PROTOCOL_VERSION, SERVER_NAME, SERVER_VERSION } from "./initialize.ts";

/** Connections served at once when the open-file limit allows it. */
export const MAX_CONNECTIONS = 512;
/** How long a connection may sit with no whole frame and nothing running. */
export const DEFAULT_IDLE_MS = 300_000;
/** The longest pause between two accepts that failed. */
const ACCEPT_BACKOFF_MAX_MS = 1000;
/** How long a connection must have been idle before descriptor exhaustion closes it. */
const EXHAUSTION_GRACE_MS = 1000;
/** How long a connection told to go may take to read why before its descriptor is released. */
const LEAVING_MS = 250;
/** Connections told to go whose descriptors may be held at once; past it accepting waits. */
const LEAVING_SLACK = 16;

export interface DaemonOptions {
  socket: string;
  workspace: WorkspaceOptions;
  log?: TraceLog;
  /** How long in-flight requests may run on at shutdown before they are cancelled. */
  shutdownGraceMs?: number;
  /** Query Workers (0: answer every action on the main thread). */
  queryWorkers?: number;
  /**
   * Connections at once; default `MAX_CONNECTIONS`, or the open-file limit minus the daemon's
   * reserve when lower (`connectionLimit`).
   */
  maxConnections?: number;
  /**
   * The query Workers' script (default `query_worker.ts`, which it must load and extend);
   * tests use one that fails on purpose.
   */
  queryWorkerModule?: URL;
  /** Milliseconds a connection may be idle before it is closed; default `DEFAULT_IDLE_MS`. */
  idleMs?: number;
}

/** The long-lived process behind `sextant daemon`. */
export class Daemon {
  readonly socket: string;
  readonly counters = new Counters();
  readonly #options: DaemonOptions;
  readonly #log: TraceLog;
  readonly #cache = new ResultCache();
  readonly #sessions = new Set<Session>();
  readonly #workspaces: WorkspaceSlot;
  readonly #queries: QueryPool | null;
  readonly #router: Router;
  readonly #budget = new BufferBudget();
  readonly #limits: Record<string, number>;
  #maxConnections: number;
  /** Descriptors the daemon held once started, before any connection (null: not known). */
  #ownDescriptors: number | null = null;
  /** Connections told to go (evicted, refused) whose descriptors are not yet released. */
  #leaving = 0;
  #leavingWaiters: (() => void)[] = [];
  readonly #queryWorkers: number;
  readonly #idleMs: number;
  readonly #idleSweep: ReturnType<typeof setInterval>;
  #policy: AccessPolicy;
  #listener: Deno.UnixListener | null = null;
  #connectionCount = 0;
  #closing: Promise<void> | null = null;
  #stopObserving: () => void = () => {};
  /** The language servers of the workspace in force (on this thread; replaced by a reload). */
  #lsp: LspBackend | null;
  /** When the last refresh that made a new generation ended (spares stay in use a while after). */
  #lastRefreshEnd = -Infinity;
  /** Bumped by each reload, so query Workers reopen the registry. */
  #epoch = 0;

  private constructor(
    options: DaemonOptions,
    workspace: Workspace,
    policy: AccessPolicy,
    lsp: LspBackend | null,
  ) {
    this.socket = options.socket;
    this.#options = options;
    this.#log = options.log ?? new TraceLog({ quiet: true });
    this.#workspaces = new WorkspaceSlot(workspace);
    this.#policy = policy;
    this.#lsp = lsp;
    this.#observe(workspace);
    const workers = options.queryWorkers ?? 2;
    this.#queryWorkers = workers;
    this.#queries = workers > 0
      // One Worker runs always; the others only while long jobs hold it, or while a refresh
      // runs (its Workers take a core) and just after (the new generation's caches load).
      ? new QueryPool(workers, {
        module: options.queryWorkerModule,
        resident: 1,
        pressure: () =>
          this.#workspaces.current.refreshesRunning > 0 ||
          performance.now() - this.#lastRefreshEnd < SPARE_IDLE_MS,
      })
      : null;
    // Set again once the daemon has started and its own descriptors can be counted.
    this.#maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#limits = daemonLimits({
      queryWorkers: workers > 0,
      connections: this.#maxConnections,
      idleMs: this.#idleMs,
    });
    this.#router = new Router({
      cache: this.#cache,
      counters: this.counters,
      queries: this.#queries,
      workspaceOptions: options.workspace,
      policy: () => this.#policy,
      lsp: () => this.#lsp,
      epoch: () => this.#epoch,
      reload: async () => (await this.reload(), this.workspace),
      limits: this.#limits,
      log: this.#log,
    });
    this.#idleSweep = setInterval(
      () => this.#closeIdle(),
      Math.min(5000, Math.max(100, this.#idleMs / 4)),
    );
  }

  /**
   * Opens the workspace, starts every Worker and waits until each has loaded
   * its modules, then binds the socket; throws when any of it is impossible.
   */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const { workspace, policy } = await openWorkspace(options.workspace);
    // The first request for a server falls back at once and starts it; later ones are routed.
    const lsp = await openLspBackend(workspace, { wait: "none" });
    const daemon = new Daemon(options, workspace, policy, lsp);
    try {
      // Nothing loads a module once connections may hold every descriptor.
      await Promise.all([daemon.#queries?.ready(), workspace.startRefreshWorker()]);
      daemon.#listener = await listenOnSocket(options.socket);
      daemon.#warmQueries();
    } catch (error) {
      clearInterval(daemon.#idleSweep);
      daemon.#queries?.close();
      await daemon.#lsp?.dispose();
      workspace.close();
      throw error;
    }
    daemon.#ownDescriptors = openDescriptors();
    daemon.#capConnections(workspace);
    daemon.#log.event("daemon.start", {
      socket: options.socket,
      pid: Deno.pid,
      workspace: workspace.config.root,
      config: workspace.config.source,
      repositories: workspace.repositories.map((repo) => repo.name),
      agents: policy.open ? "none (single local user)" : "configured",
      connections: daemon.#maxConnections,
      descriptors: daemon.#ownDescriptors ?? "unknown",
    });
    return daemon;
  }

  /** Sets the connection cap for a workspace (its repositories need descriptors of their own). */
  #capConnections(workspace: Workspace): void {
    if (this.#options.maxConnections !== undefined) return;
    const limit = openFileLimit();
    const { connections, reserve } = connectionLimit({
      limit,
      open: this.#ownDescriptors,
      repositories: workspace.repositories.length,
      queryWorkers: this.#queries ? this.#queryWorkers : 0,
    });
    this.#maxConnections = connections;
    this.#limits.connections = connections;
    if (limit !== null && limit - reserve < MIN_CONNECTIONS) {
      this.#log.event("daemon.descriptors_low", {
        limit,
        reserve,
        connections,
        hint: "raise the open-file limit (ulimit -n)",
      });
    }
  }

  get workspace(): Workspace {
    return this.#workspaces.current;
  }

  /** Accepts connections until shutdown; a failed accept is logged and retried after a pause. */
  async serve(): Promise<void> {
    const listener = this.#listener!;
    let backoff = 0;
    while (!this.#closing) {
      // Connections told to go still hold descriptors: let some go before taking another.
      while (
        !this.#closing && this.#leaving >= LEAVING_SLACK &&
        this.#sessions.size + this.#leaving >= this.#maxConnections
      ) {
        await new Promise<void>((resolve) => this.#leavingWaiters.push(resolve));
      }
      if (this.#closing) break;
      let conn: Deno.UnixConn;
      try {
        conn = await listener.accept();
        backoff = 0;
      } catch (error) {
        if (this.#closing || error instanceof Deno.errors.BadResource) break;
        backoff = Math.min(ACCEPT_BACKOFF_MAX_MS, backoff === 0 ? 10 : backoff * 2);
        this.#log.event("accept.failed", {
          error: (error as Error)?.message ?? `${error}`,
          open_connections: this.#sessions.size,
          retry_ms: backoff,
        });
        // Out of descriptors: the longest-idle connection gives its own back. Linux
        // fails accept() before it looks for a waiting client, so the failure may
        // follow the accept that took the last descriptor: a connection accepted
        // moments ago, its first frame not read yet, is not idle.
        if (isDescriptorExhaustion(error)) {
          this.#evictIdle("the daemon ran out of file descriptors", EXHAUSTION_GRACE_MS);
        }
        await new Promise((resolve) => setTimeout(resolve, backoff));
        continue;
      }
      if (this.#closing) {
        conn.close();
        break;
      }
      this.#accept(conn);
    }
  }

  /**
   * Re-reads `sextant.yml` and swaps the registry; connections stay open, and
   * the identity each presented is checked again against the new agents.
   */
  async reload(): Promise<{ repositories: string[] }> {
    const { workspace: next, policy } = await openWorkspace(this.#options.workspace);
    try {
      await next.startRefreshWorker();
    } catch (error) {
      next.close();
      throw error;
    }
    // Opened before anything is swapped: from here on the reload does not yield.
    const lsp = await openLspBackend(next, { wait: "none" });
    this.#capConnections(next);
    this.#policy = policy;
    this.#epoch++;
    this.#cache.clear();
    this.#observe(next);
    for (const session of this.#sessions) session.reauthenticate(policy);
    this.#workspaces.replace(next);
    this.#warmQueries();
    const servers = this.#lsp;
    this.#lsp = lsp;
    // The old servers get their shutdown request; the reload does not wait for them.
    servers?.dispose().catch(() => {});
    const repositories = next.repositories.map((repo) => repo.name);
    this.#log.event("daemon.reload", { repositories });
    return { repositories };
  }

  /** Stops accepting, lets in-flight requests finish (then cancels them), closes everything. */
  shutdown(reason = "shutdown"): Promise<void> {
    this.#closing ??= this.#shutdown(reason);
    return this.#closing;
  }

  async #shutdown(reason: string): Promise<void> {
    this.#log.event("daemon.stop", { reason, open_connections: this.#sessions.size });
    clearInterval(this.#idleSweep);
    try {
      this.#listener?.close();
    } catch { /* closed */ }
    const pending = () => [...this.#sessions].some((session) => session.inFlight > 0);
    const deadline = Date.now() + (this.#options.shutdownGraceMs ?? 5000);
    while (pending() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const session of this.#sessions) session.cancelAll("The daemon is shutting down");
    // Answers settled just now are queued after a few promise turns: let them reach the queue.
    await new Promise((resolve) => setTimeout(resolve, 10));
    await Promise.all([...this.#sessions].map((session) => session.connection.flushedWithin(1000)));
    for (const session of this.#sessions) session.connection.close();
    this.#stopObserving();
    this.#queries?.close();
    await this.#lsp?.dispose();
    this.#lsp = null;
    this.#workspaces.close();
    try {
      Deno.removeSync(this.socket);
    } catch { /* already gone */ }
  }

  /**
   * The query Workers load a generation's state before a request asks for it (`QueryPool.warm`):
   * after the daemon starts, after a reload, and after each refresh that made a new generation.
   */
  #warmQueries(): void {
    this.#queries?.warm({
      epoch: this.#epoch,
      workspace: this.#options.workspace,
      agent: null,
      ...WARM_UP,
    });
  }

  /** Counts and traces the refreshes of the workspace now in force. */
  #observe(workspace: Workspace): void {
    this.#stopObserving();
    this.#stopObserving = workspace.observeRefreshes((event) => {
      const { repo, report, error, ms, trigger, rebuilt } = event;
      if (report?.changed) {
        this.#lastRefreshEnd = performance.now();
        this.#warmQueries();
      }
      this.counters.refresh(repo, ms, report === null);
      if (report) {
        this.#log.event("refresh", {
          repo,
          // Why it ran (a request, or a repair), and why a replacement was built, if one was.
          trigger,
          rebuilt,
          generation: report.generation,
          changed: report.changed,
          plan: report.plan,
          parsed: report.parsed,
          errors: report.errors,
          // Chunk vectors computed anew, and reused from unchanged content.
          vectors: report.vectors,
          ...(report.embeddings ? { embeddings: report.embeddings } : {}),
          timings_ms: report.timings_ms,
        });
      } else {
        this.#log.event("refresh.failed", {
          repo,
          trigger,
          error: (error as Error)?.message ?? `${error}`,
        });
      }
    });
  }

  #accept(conn: Deno.UnixConn): void {
    const connection = new Connection(++this.#connectionCount, conn, { budget: this.#budget });
    if (this.#sessions.size >= this.#maxConnections) {
      const why = `the daemon serves at most ${this.#maxConnections} connections`;
      if (!this.#evictIdle(why)) {
        this.#log.event("connection.refused", { connection: connection.number, reason: why });
        this.counters.error("LimitExceeded");
        this.#tellAndClose(connection, `Connection refused: ${why}`);
        return;
      }
    }
    const session = new Session(connection, {
      counters: this.counters,
      log: this.#log,
      workspaces: this.#workspaces,
      policy: () => this.#policy,
      route: (session, request, options) => this.#router.route(session, request, options),
      knows: (session, method) => this.#router.knows(session, method),
    });
    this.#sessions.add(session);
    this.counters.connections++;
    this.counters.openConnections++;
    session.serve().finally(() => {
      session.connection.close();
      if (this.#sessions.delete(session)) this.counters.openConnections--;
    });
  }

  /**
   * Closes the session idle the longest (and at least `minIdleMs`), telling it
   * why; false when no session qualifies.
   */
  #evictIdle(why: string, minIdleMs = 0): boolean {
    let oldest: Session | null = null;
    let since = performance.now() - minIdleMs;
    for (const session of this.#sessions) {
      const idle = session.idleSince();
      if (idle !== null && idle <= since && !session.connection.closed) {
        oldest = session;
        since = idle;
      }
    }
    if (!oldest) return false;
    this.#drop(oldest, `Connection closed: ${why}, and this one was idle the longest`);
    return true;
  }

  /** Closes every session with no whole frame and nothing running for `idleMs`. */
  #closeIdle(): void {
    const cutoff = performance.now() - this.#idleMs;
    for (const session of this.#sessions) {
      const idle = session.idleSince();
      if (idle !== null && idle <= cutoff && !session.connection.closed) {
        this.#drop(session, `Connection closed: idle for ${this.#idleMs / 1000} s`);
      }
    }
  }

  #drop(session: Session, message: string): void {
    this.#sessions.delete(session);
    this.counters.openConnections--;
    this.counters.error("LimitExceeded");
    this.#log.event("connection.dropped", {
      connection: session.connection.number,
      reason: message,
    });
    this.#tellAndClose(session.connection, message);
  }

  /** Sends `LimitExceeded` (id null) saying why, and releases the descriptor soon after. */
  #tellAndClose(connection: Connection, message: string): void {
    this.#leaving++;
    connection.closeWith(errorResponse(null, new WireError("LimitExceeded", message)), LEAVING_MS)
      .finally(() => {
        this.#leaving--;
        for (const wake of this.#leavingWaiters.splice(0)) wake();
      });
  }
}

/** The fewest connections the daemon serves, however low the open-file limit. */
const MIN_CONNECTIONS = 8;

/**
 * Descriptors one repository may need besides its connections: a reader of its
 * target (database and WAL) on the main thread, in the refresh Worker and in
 * each query Worker, one shared-memory file, its parse Workers (as many as
 * `ParsePool` starts: the cores, at most 4), and the pipes of a child process
 * (git, a language server).
 */
function repositoryDescriptors(queryWorkers: number): number {
  const parseWorkers = Math.max(1, Math.min(navigator.hardwareConcurrency ?? 2, 4));
  return 2 * (2 + queryWorkers) + 1 + parseWorkers * WORKER_DESCRIPTORS + 6;
}

/**
 * Descriptors held back for moments, whatever the workspace: a replaced Worker
 * and its module loads, connections told to go and not yet closed, files an
 * action reads, child processes.
 */
const TRANSIENT_DESCRIPTORS = WORKER_DESCRIPTORS + MODULE_LOAD_DESCRIPTORS + LEAVING_SLACK + 32;

/**
 * Connections the daemon may hold: `MAX_CONNECTIONS`, or the soft open-file
 * limit minus the reserve when lower. The reserve is what the daemon holds
 * already (`open`: Workers started, socket bound), what each repository may
 * open later, and `TRANSIENT_DESCRIPTORS`. Nothing known (not Linux): `MAX_CONNECTIONS`.
 */
export function connectionLimit(options: {
  limit: number | null;
  open: number | null;
  repositories: number;
  /** Query Workers in the pool, the quick-lookup one included (0: none). */
  queryWorkers: number;
}): { connections: number; reserve: number } {
  const { limit, open } = options;
  if (limit === null || open === null) return { connections: MAX_CONNECTIONS, reserve: 0 };
  const reserve = open + options.repositories * repositoryDescriptors(options.queryWorkers) +
    TRANSIENT_DESCRIPTORS;
  const connections = Math.max(MIN_CONNECTIONS, Math.min(MAX_CONNECTIONS, limit - reserve));
  return { connections, reserve };
}

/** A workspace with its access policy; a config whose agents do not parse opens nothing. */
async function openWorkspace(
  options: WorkspaceOptions,
): Promise<{ workspace: Workspace; policy: AccessPolicy }> {
  const workspace = await Workspace.open({ ...options, refreshInWorker: true });
  try {
    const policy = AccessPolicy.fromConfig(workspace.config.raw, workspace.config.source ?? "");
    return { workspace, policy };
  } catch (error) {
    workspace.close();
    throw error;
  }
}
