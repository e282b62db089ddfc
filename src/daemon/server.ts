/**
 * The daemon's lifecycle: open the workspace and bind the socket, accept
 * connections (each a `Session` over a `Connection`, answered by the
 * `Router`), reload the workspace without dropping connections, and shut down
 * cleanly.
 */
import { ResultCache } from "../actions/result_cache.ts";
import { Workspace, type WorkspaceOptions } from "../workspace/workspace.ts";
import { Connection } from "./connection.ts";
import { Counters, TraceLog } from "./observe.ts";
import { AccessPolicy } from "./policy.ts";
import { QueryPool } from "./query_pool.ts";
import { Router } from "./router.ts";
import { Session } from "./session.ts";
import { listenOnSocket } from "./socket.ts";
import { WorkspaceSlot } from "./workspace_slot.ts";

export { PROTOCOL_VERSION, SERVER_NAME, SERVER_VERSION } from "./initialize.ts";

export interface DaemonOptions {
  socket: string;
  workspace: WorkspaceOptions;
  log?: TraceLog;
  /** How long in-flight requests may run on at shutdown before they are cancelled. */
  shutdownGraceMs?: number;
  /** Query Workers (0: answer every action on the main thread). */
  queryWorkers?: number;
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
  #policy: AccessPolicy;
  #listener: Deno.UnixListener | null = null;
  #connectionCount = 0;
  #closing: Promise<void> | null = null;
  #stopObserving: () => void = () => {};
  /** Bumped by each reload, so query Workers reopen the registry. */
  #epoch = 0;

  private constructor(options: DaemonOptions, workspace: Workspace, policy: AccessPolicy) {
    this.socket = options.socket;
    this.#options = options;
    this.#log = options.log ?? new TraceLog({ quiet: true });
    this.#workspaces = new WorkspaceSlot(workspace);
    this.#policy = policy;
    this.#observe(workspace);
    const workers = options.queryWorkers ?? 2;
    this.#queries = workers > 0 ? new QueryPool(workers) : null;
    this.#router = new Router({
      cache: this.#cache,
      counters: this.counters,
      queries: this.#queries,
      workspaceOptions: options.workspace,
      policy: () => this.#policy,
      epoch: () => this.#epoch,
      reload: () => this.reload(),
    });
  }

  /** Opens the workspace and binds the socket; throws when either is impossible. */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const { workspace, policy } = await openWorkspace(options.workspace);
    const daemon = new Daemon(options, workspace, policy);
    try {
      daemon.#listener = await listenOnSocket(options.socket);
    } catch (error) {
      daemon.#queries?.close();
      workspace.close();
      throw error;
    }
    daemon.#log.event("daemon.start", {
      socket: options.socket,
      pid: Deno.pid,
      workspace: workspace.config.root,
      config: workspace.config.source,
      repositories: workspace.repositories.map((repo) => repo.name),
      agents: policy.open ? "none (single local user)" : "configured",
    });
    return daemon;
  }

  get workspace(): Workspace {
    return this.#workspaces.current;
  }

  /** Accepts connections until shutdown. */
  async serve(): Promise<void> {
    const listener = this.#listener!;
    try {
      for await (const conn of listener) {
        if (this.#closing) {
          conn.close();
          continue;
        }
        this.#accept(conn);
      }
    } catch (error) {
      if (!this.#closing) throw error;
    }
  }

  /** Re-reads `sextant.yml` and swaps the registry; connections stay open. */
  async reload(): Promise<{ repositories: string[] }> {
    const { workspace: next, policy } = await openWorkspace(this.#options.workspace);
    this.#policy = policy;
    this.#epoch++;
    this.#cache.clear();
    this.#observe(next);
    for (const session of this.#sessions) {
      if (session.grant) session.grant = policy.regrant(session.grant.agent);
    }
    this.#workspaces.replace(next);
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
    this.#workspaces.close();
    try {
      Deno.removeSync(this.socket);
    } catch { /* already gone */ }
  }

  /** Counts and traces the refreshes of the workspace now in force. */
  #observe(workspace: Workspace): void {
    this.#stopObserving();
    this.#stopObserving = workspace.observeRefreshes(({ repo, report, error, ms }) => {
      this.counters.refresh(repo, ms, report === null);
      if (report) {
        this.#log.event("refresh", {
          repo,
          generation: report.generation,
          changed: report.changed,
          plan: report.plan,
          parsed: report.parsed,
          errors: report.errors,
          timings_ms: report.timings_ms,
        });
      } else {
        this.#log.event("refresh.failed", { repo, error: (error as Error)?.message ?? `${error}` });
      }
    });
  }

  #accept(conn: Deno.UnixConn): void {
    const session = new Session(new Connection(++this.#connectionCount, conn), {
      counters: this.counters,
      log: this.#log,
      workspaces: this.#workspaces,
      policy: () => this.#policy,
      route: (session, request, options) => this.#router.route(session, request, options),
    });
    this.#sessions.add(session);
    this.counters.connections++;
    this.counters.openConnections++;
    session.serve().finally(() => {
      session.connection.close();
      this.#sessions.delete(session);
      this.counters.openConnections--;
    });
  }
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
