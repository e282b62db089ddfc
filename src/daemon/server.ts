/**
 * The daemon: accepts connections on the Unix socket, reads frames, answers
 * JSON-RPC requests (each alone: one failure never reaches another request),
 * reloads the workspace without dropping connections, and shuts down cleanly.
 */
import { repositoryStates, traceId } from "../actions/envelope.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import { WireError } from "../protocol/errors.ts";
import { LIMITS, METHODS } from "../protocol/methods.ts";
import { Workspace, type WorkspaceOptions } from "../workspace/workspace.ts";
import { type ActionContext, runAction } from "../actions/dispatch.ts";
import type { RepositoryStatus } from "../actions/status.ts";
import type { Envelope } from "../protocol/types.ts";
import { ResultCache } from "../actions/result_cache.ts";
import { executeAction } from "./execute.ts";
import { QueryPool } from "./query_pool.ts";
import { encodeFrame, FRAME_LIMITS, FrameTooLarge, readFrames } from "./framing.ts";
import {
  codeName,
  errorResponse,
  notification,
  parseFrame,
  type RequestId,
  resultResponse,
  type RpcRequest,
  type RpcResponse,
} from "./jsonrpc.ts";
import { Counters, TraceLog } from "./observe.ts";
import { AccessPolicy, type Grant } from "./policy.ts";
import { listenOnSocket } from "./socket.ts";

export const SERVER_NAME = "sextant";
export const SERVER_VERSION = "0.1.0";
/** Bumped when a method or a message shape changes incompatibly (docs/protocol.md). */
export const PROTOCOL_VERSION = "1";

/** Actions answered on the main thread (they drive its refreshes); every other runs in a Worker. */
const ON_MAIN_THREAD = new Set(["refresh", "rebuild"]);

/** Every action name a client may call, whether built in this version or not. */
const ALL_ACTIONS = Object.keys(METHODS);

export interface DaemonOptions {
  socket: string;
  workspace: WorkspaceOptions;
  log?: TraceLog;
  /** How long in-flight requests may run on at shutdown before they are cancelled. */
  shutdownGraceMs?: number;
  /** Query Workers (0: answer every action on the main thread). */
  queryWorkers?: number;
}

interface InFlight {
  id: RequestId;
  controller: AbortController;
  /** Resolves the request early (cancellation, shutdown); the late result is dropped. */
  settle: (response: RpcResponse) => void;
}

/** One client connection. */
class Connection {
  readonly number: number;
  readonly conn: Deno.UnixConn;
  grant: Grant | null = null;
  readonly inFlight = new Set<InFlight>();
  #writing: Promise<void> = Promise.resolve();
  #pendingBytes = 0;
  closed = false;

  constructor(number: number, conn: Deno.UnixConn) {
    this.number = number;
    this.conn = conn;
  }

  /** Queues one frame; a client that stops reading past the limit is dropped. */
  send(value: unknown): void {
    if (this.closed) return;
    const bytes = encodeFrame(value);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes > FRAME_LIMITS.pendingWriteBytes) {
      this.close();
      return;
    }
    this.#writing = this.#writing.then(async () => {
      if (this.closed) return;
      try {
        let written = 0;
        while (written < bytes.length) written += await this.conn.write(bytes.subarray(written));
      } catch {
        this.close();
      } finally {
        this.#pendingBytes -= bytes.length;
      }
    });
  }

  /** Resolves when every queued frame has been written (or the connection failed). */
  flushed(): Promise<void> {
    return this.#writing;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.conn.close();
    } catch { /* closed */ }
  }
}

/** The long-lived process behind `sextant daemon`. */
export class Daemon {
  readonly socket: string;
  readonly #options: DaemonOptions;
  readonly #log: TraceLog;
  readonly counters = new Counters();
  readonly #cache = new ResultCache();
  readonly #connections = new Set<Connection>();
  #workspace: Workspace;
  #policy: AccessPolicy;
  #listener: Deno.UnixListener | null = null;
  #connectionCount = 0;
  #closing: Promise<void> | null = null;
  /** Requests running per workspace, so a replaced workspace closes once they end. */
  readonly #busy = new Map<Workspace, number>();
  readonly #retired = new Set<Workspace>();
  #stopObserving: () => void = () => {};
  #queries: QueryPool | null;
  /** Bumped by each reload, so query Workers reopen the registry. */
  #epoch = 0;

  private constructor(options: DaemonOptions, workspace: Workspace, policy: AccessPolicy) {
    this.socket = options.socket;
    this.#options = options;
    this.#log = options.log ?? new TraceLog({ quiet: true });
    this.#workspace = workspace;
    this.#policy = policy;
    this.#observe(workspace);
    const workers = options.queryWorkers ?? 2;
    this.#queries = workers > 0 ? new QueryPool(workers) : null;
  }

  /** Opens the workspace and binds the socket; throws when either is impossible. */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const workspace = await Workspace.open({ ...options.workspace, refreshInWorker: true });
    let policy: AccessPolicy;
    try {
      policy = AccessPolicy.fromConfig(workspace.config.raw, workspace.config.source ?? "");
    } catch (error) {
      workspace.close();
      throw error;
    }
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
    return this.#workspace;
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
    const next = await Workspace.open({ ...this.#options.workspace, refreshInWorker: true });
    let policy: AccessPolicy;
    try {
      policy = AccessPolicy.fromConfig(next.config.raw, next.config.source ?? "");
    } catch (error) {
      next.close();
      throw error;
    }
    const previous = this.#workspace;
    this.#workspace = next;
    this.#policy = policy;
    this.#epoch++;
    this.#cache.clear();
    this.#observe(next);
    for (const connection of this.#connections) {
      if (connection.grant) connection.grant = policy.regrant(connection.grant.agent);
    }
    this.#retire(previous);
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
    this.#log.event("daemon.stop", { reason, open_connections: this.#connections.size });
    try {
      this.#listener?.close();
    } catch { /* closed */ }
    const pending = () => [...this.#connections].flatMap((c) => [...c.inFlight]);
    const deadline = Date.now() + (this.#options.shutdownGraceMs ?? 5000);
    while (pending().length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const request of pending()) {
      request.controller.abort();
      request.settle(
        errorResponse(request.id, new WireError("RequestCancelled", "The daemon is shutting down")),
      );
    }
    // Answers settled just now are queued after a few promise turns: let them reach the queue.
    await new Promise((resolve) => setTimeout(resolve, 10));
    await Promise.race([
      Promise.all([...this.#connections].map((c) => c.flushed())),
      new Promise((resolve) => setTimeout(resolve, 1000)),
    ]);
    for (const connection of this.#connections) connection.close();
    this.#stopObserving();
    this.#queries?.close();
    this.#workspace.close();
    for (const workspace of this.#retired) workspace.close();
    try {
      Deno.removeSync(this.socket);
    } catch { /* already gone */ }
  }

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

  #retire(workspace: Workspace): void {
    if ((this.#busy.get(workspace) ?? 0) === 0) {
      workspace.settled().then(() => workspace.close());
      return;
    }
    this.#retired.add(workspace);
  }

  #accept(conn: Deno.UnixConn): void {
    const connection = new Connection(++this.#connectionCount, conn);
    this.#connections.add(connection);
    this.counters.connections++;
    this.counters.openConnections++;
    this.#read(connection).finally(() => {
      for (const request of connection.inFlight) request.controller.abort();
      connection.close();
      this.#connections.delete(connection);
      this.counters.openConnections--;
    });
  }

  async #read(connection: Connection): Promise<void> {
    try {
      for await (const frame of readFrames(connection.conn.readable)) {
        this.#frame(connection, frame).catch((error) => {
          this.#log.event("frame.failed", { connection: connection.number, error: `${error}` });
        });
      }
    } catch (error) {
      if (error instanceof FrameTooLarge) {
        this.counters.error("LimitExceeded");
        connection.send(errorResponse(null, new WireError("LimitExceeded", error.message)));
        this.#log.event("connection.dropped", {
          connection: connection.number,
          reason: error.message,
        });
        await Promise.race([
          connection.flushed(),
          new Promise((resolve) => setTimeout(resolve, 1000)),
        ]);
      }
      // Any other read error is a client that went away.
    }
  }

  async #frame(connection: Connection, bytes: Uint8Array): Promise<void> {
    const parsed = parseFrame(bytes);
    if (parsed.error) {
      this.counters.error(codeName((parsed.error as { error: { code: number } }).error.code));
      connection.send(parsed.error);
      return;
    }
    const answers = await Promise.all(parsed.items.map((item) => {
      if (item.error) {
        this.counters.error(codeName((item.error as { error: { code: number } }).error.code));
        return Promise.resolve(item.error);
      }
      return this.#request(connection, item.request);
    }));
    const responses = answers.filter((answer): answer is RpcResponse => answer !== null);
    if (parsed.batch) {
      if (responses.length > 0) connection.send(responses);
    } else if (responses.length > 0) connection.send(responses[0]);
  }

  /** Answers one request; null for a notification. Never throws. */
  async #request(connection: Connection, request: RpcRequest): Promise<RpcResponse | null> {
    const isNotification = !("id" in request);
    const id = request.id ?? null;
    if (request.method === "$/cancelRequest") {
      this.#cancel(connection, request.params);
      return null;
    }
    if (!isNotification && connection.inFlight.size >= FRAME_LIMITS.inFlight) {
      this.counters.request(request.method);
      this.counters.error("IndexBusy");
      return errorResponse(
        id,
        new WireError(
          "IndexBusy",
          `More than ${FRAME_LIMITS.inFlight} requests in flight on this connection`,
        ),
      );
    }
    const workspace = this.#workspace;
    const trace = traceId();
    const started = performance.now();
    this.counters.request(request.method);
    this.#busy.set(workspace, (this.#busy.get(workspace) ?? 0) + 1);
    const controller = new AbortController();
    let settle!: (response: RpcResponse) => void;
    const early = new Promise<RpcResponse>((resolve) => (settle = resolve));
    const entry: InFlight = { id, controller, settle };
    if (!isNotification) connection.inFlight.add(entry);
    let response: RpcResponse;
    let results: number | undefined;
    let cached = false;
    let backend: string | undefined;
    let fallback: string | undefined;
    try {
      const work = this.#method(connection, request, workspace, controller.signal, id)
        .then((outcome) => {
          results = outcome.results;
          cached = outcome.cached;
          backend = outcome.backend;
          fallback = outcome.fallback;
          return resultResponse(id, outcome.result);
        })
        .catch((error) => this.#failure(id, error, trace, request.method));
      response = await Promise.race([work, early]);
    } finally {
      connection.inFlight.delete(entry);
      const busy = (this.#busy.get(workspace) ?? 1) - 1;
      if (busy === 0) this.#busy.delete(workspace);
      else this.#busy.set(workspace, busy);
      if (busy === 0 && this.#retired.has(workspace)) {
        this.#retired.delete(workspace);
        workspace.settled().then(() => workspace.close());
      }
    }
    const error = "error" in response ? response.error : null;
    if (error) this.counters.error(codeName(error.code));
    this.#log.event("request", {
      connection: connection.number,
      agent: connection.grant?.agent ?? null,
      method: request.method,
      id,
      trace_id: trace,
      ms: Math.round((performance.now() - started) * 10) / 10,
      outcome: error ? codeName(error.code) : "ok",
      ...(results === undefined ? {} : { results }),
      ...(cached ? { cached } : {}),
      ...(backend ? { backend } : {}),
      ...(fallback ? { fallback } : {}),
    });
    return isNotification ? null : response;
  }

  #failure(id: RequestId, error: unknown, trace: string, method: string): RpcResponse {
    if (error instanceof WireError) return errorResponse(id, error);
    if (error instanceof SyntaxError && method === "workspace/reload") {
      return errorResponse(id, new WireError("InvalidParams", error.message));
    }
    this.#log.event("request.internal_error", {
      method,
      trace_id: trace,
      error: (error as Error)?.stack ?? `${error}`,
    });
    return errorResponse(
      id,
      new WireError("InternalError", `Internal error (trace ${trace})`, { trace_id: trace }),
    );
  }

  #cancel(connection: Connection, params: unknown): void {
    const target = (params as { id?: unknown } | undefined)?.id;
    if (typeof target !== "string" && typeof target !== "number") return;
    for (const request of connection.inFlight) {
      if (request.id !== target) continue;
      request.controller.abort();
      request.settle(
        errorResponse(request.id, new WireError("RequestCancelled", "Request cancelled")),
      );
    }
  }

  async #method(
    connection: Connection,
    request: RpcRequest,
    workspace: Workspace,
    signal: AbortSignal,
    id: RequestId,
  ): Promise<
    { result: unknown; results?: number; cached: boolean; backend?: string; fallback?: string }
  > {
    const params = request.params;
    switch (request.method) {
      case "initialize":
        return { result: this.#initialize(connection, params, workspace), cached: false };
      case "workspace/reload":
        this.#session(connection);
        return { result: await this.reload(), cached: false };
    }
    if (!Object.hasOwn(METHODS, request.method)) {
      throw new WireError("MethodNotFound", `Unknown method '${request.method}'`);
    }
    const grant = this.#session(connection);
    const onProgress = "id" in request ? this.#progressSender(connection, id) : undefined;
    const epoch = this.#epoch;
    const { envelope, cached } = await executeAction({
      workspace,
      grant,
      action: request.method,
      params,
      signal,
      onProgress,
      cache: this.#cache,
      counters: this.counters,
      run: (scoped, action, checked, context) => {
        const targetsReady = () =>
          scoped.select(checked.repo as string | undefined).every((repo) =>
            scoped.reader(repo).problem === null
          );
        // Refreshes belong to this thread's registry; a missing or damaged target falls
        // back here too (its live scan also starts the rebuild on this thread).
        if (!this.#queries || ON_MAIN_THREAD.has(action) || !targetsReady()) {
          return runAction(scoped, action, checked, context);
        }
        const answer = this.#queries.run({
          epoch,
          workspace: this.#options.workspace,
          agent: grant.agent,
          action,
          params: checked,
        });
        return action === "status"
          ? answer.then((e) => withRefreshState(e, scoped, context))
          : answer;
      },
    });
    return {
      result: envelope,
      results: envelope.results.length,
      cached,
      backend: envelope.provenance.backend,
      fallback: envelope.provenance.fallback_reason ?? undefined,
    };
  }

  /** The connection's grant; without an agents section an uninitialized client is the local user. */
  #session(connection: Connection): Grant {
    if (connection.grant) return connection.grant;
    if (this.#policy.open) {
      connection.grant = this.#policy.authenticate("local", undefined);
      return connection.grant;
    }
    throw new WireError(
      "Unauthorized",
      "Connection is not initialized: send 'initialize' with 'agent' and 'token' first",
    );
  }

  #initialize(connection: Connection, params: unknown, workspace: Workspace): unknown {
    if (params !== undefined && (typeof params !== "object" || Array.isArray(params))) {
      throw new WireError("InvalidParams", "Params of 'initialize' must be an object");
    }
    const { agent, token } = (params ?? {}) as { agent?: unknown; token?: unknown };
    if (agent !== undefined && typeof agent !== "string") {
      throw new WireError("InvalidParams", "'initialize' parameter 'agent' must be a string");
    }
    if (token !== undefined && typeof token !== "string") {
      throw new WireError("InvalidParams", "'initialize' parameter 'token' must be a string");
    }
    const grant = this.#policy.authenticate(agent, token);
    connection.grant = grant;
    const visible = grant.visibleRepositories(workspace);
    const scoped = workspace.scoped(visible);
    return {
      server: { name: SERVER_NAME, version: SERVER_VERSION, pid: Deno.pid },
      protocol_version: PROTOCOL_VERSION,
      agent: grant.agent,
      // The root lets a CLI tell whether this daemon serves its workspace; where the config and
      // the targets live is for callers who may see everything.
      workspace: grant.unrestricted
        ? {
          root: workspace.config.root,
          config: workspace.config.source,
          cache_dir: workspace.config.cacheDirectory,
        }
        : { root: workspace.config.root },
      repositories: repositoryStates(scoped, scoped.repositories),
      actions: grant.allowedActions(ALL_ACTIONS),
      mode: grant.mode,
      max_results: grant.maxResults,
      limits: {
        frame_bytes: FRAME_LIMITS.frameBytes,
        depth: FRAME_LIMITS.depth,
        batch: FRAME_LIMITS.batch,
        limit: LIMITS.limit,
        query_bytes: LIMITS.queryBytes,
        paths: LIMITS.paths,
      },
    };
  }

  /** `$/progress` notifications for a request's refreshes, the parse phase at most every 100 ms. */
  #progressSender(
    connection: Connection,
    id: RequestId,
  ): (repo: string, progress: RefreshProgress) => void {
    let last = 0;
    let lastPhase = "";
    return (repo, progress) => {
      const now = performance.now();
      const phaseChanged = progress.phase !== lastPhase;
      const final = progress.done === progress.total;
      if (!phaseChanged && !final && now - last < 100) return;
      last = now;
      lastPhase = progress.phase;
      connection.send(notification("$/progress", { id, repo, ...progress }));
    };
  }
}

/** A status counted in a Worker, with what only this thread knows: running and last refreshes. */
function withRefreshState(
  envelope: Envelope,
  workspace: Workspace,
  context: ActionContext,
): Envelope {
  const data = envelope.data as { repositories?: RepositoryStatus[] } | undefined;
  for (const status of data?.repositories ?? []) {
    const repo = workspace.repositories.find((candidate) => candidate.name === status.name);
    if (!repo) continue;
    status.refreshing = workspace.refreshing(repo);
    if (!context.pathRestricted?.(repo.name)) {
      status.last_refresh = workspace.lastReport(repo) ?? status.last_refresh;
    }
  }
  return envelope;
}
