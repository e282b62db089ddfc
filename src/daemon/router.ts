/**
 * Method → answer. `initialize` and `workspace/reload` are the daemon's own
 * (`workspace/reload` only for the local user or an agent with `admin: true`;
 * to anyone else it does not exist); every action goes through
 * `executeAction` (policy, refresh, cache, action, policy again), run in a
 * query Worker (in the pool's order: fair between clients, shortest expected
 * first), unless it must run on the main thread.
 */
import { type ActionContext, answerAction } from "../actions/dispatch.ts";
import type { ResultCache } from "../actions/result_cache.ts";
import type { LspBackend } from "../actions/lsp_route.ts";
import type { RepositoryStatus } from "../actions/status.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import { WireError } from "../protocol/errors.ts";
import { METHODS } from "../protocol/methods.ts";
import type { Envelope } from "../protocol/types.ts";
import type { Workspace, WorkspaceOptions } from "../workspace/workspace.ts";
import { executeAction } from "./execute.ts";
import { helloFor, parseIdentity } from "./initialize.ts";
import { notification, type RequestId, type RpcRequest } from "./jsonrpc.ts";
import { type Counters, countersFor, type TraceLog } from "./observe.ts";
import type { AccessPolicy } from "./policy.ts";
import type { QueryPool } from "./query_pool.ts";
import type { Outcome, Session } from "./session.ts";

/** Actions answered on the main thread (they drive its refreshes); every other runs in a Worker. */
const ON_MAIN_THREAD = new Set(["refresh", "rebuild"]);

/** Methods of the daemon itself, besides the actions. */
const DAEMON_METHODS = new Set(["initialize", "workspace/reload", "$/cancelRequest"]);

/** How a request is run: on the workspace it started with, under its trace id. */
export interface RouteOptions {
  workspace: Workspace;
  signal: AbortSignal;
  trace: string;
}

export interface RouterOptions {
  cache: ResultCache;
  counters: Counters;
  /** Query Workers; null answers every action on the main thread. */
  queries: QueryPool | null;
  /** How query Workers open the workspace themselves. */
  workspaceOptions: WorkspaceOptions;
  /** The policy now in force (a reload replaces it). */
  policy: () => AccessPolicy;
  /** The language servers now in force, run on this thread (a reload replaces them). */
  lsp?: () => LspBackend | null;
  /** Bumped by each reload, so query Workers reopen the registry. */
  epoch: () => number;
  /** `workspace/reload`: the new workspace (the sessions are already re-checked). */
  reload: () => Promise<Workspace>;
  /** Every limit the daemon enforces, as `initialize` reports them. */
  limits: Record<string, number>;
  log: TraceLog;
}

export class Router {
  readonly #options: RouterOptions;

  constructor(options: RouterOptions) {
    this.#options = options;
  }

  /**
   * Whether a session may see a method exist: the actions, `initialize`,
   * `$/cancelRequest`, and `workspace/reload` for whoever may reload.
   */
  knows(session: Session, method: string): boolean {
    if (method === "workspace/reload") return mayReload(session);
    return Object.hasOwn(METHODS, method) || DAEMON_METHODS.has(method);
  }

  /** Answers one request of a session on the workspace it started with. */
  async route(session: Session, request: RpcRequest, options: RouteOptions): Promise<Outcome> {
    if (!this.knows(session, request.method) || request.method === "$/cancelRequest") {
      throw new WireError("MethodNotFound", `Unknown method '${request.method}'`);
    }
    switch (request.method) {
      case "initialize":
        return {
          result: this.#initialize(session, request.params, options.workspace),
          cached: false,
        };
      case "workspace/reload":
        return { result: await this.#reload(session, options.trace), cached: false };
    }
    const ran: { runner?: string } = {};
    const { envelope, cached } = await this.#action(session, request, options, ran);
    return {
      result: envelope,
      results: envelope.results.length,
      cached,
      backend: envelope.provenance.backend,
      fallback: envelope.provenance.fallback_reason ?? undefined,
      runner: cached ? "cache" : ran.runner,
    };
  }

  #initialize(session: Session, params: unknown, workspace: Workspace): unknown {
    const { agent, token } = parseIdentity(params);
    session.authenticate(this.#options.policy(), agent, token);
    return helloFor(session.grant!, { workspace, limits: this.#options.limits });
  }

  /**
   * Reloads the workspace; answers the repositories the caller sees after it.
   * Why a config failed to load (its path, its lines, agent names) is told
   * only to the local user; an admin agent gets the trace id to find it in the
   * daemon's log.
   */
  async #reload(session: Session, trace: string): Promise<{ repositories: string[] }> {
    const caller = session.identity();
    let workspace: Workspace;
    try {
      workspace = await this.#options.reload();
    } catch (error) {
      this.#options.log.event("daemon.reload_failed", {
        trace_id: trace,
        agent: caller.agent,
        error: (error as Error)?.message ?? `${error}`,
      });
      if (caller.unrestricted && (error instanceof SyntaxError || error instanceof WireError)) {
        throw new WireError("InvalidParams", error.message);
      }
      throw new WireError(
        "InvalidParams",
        `The workspace config could not be reloaded; the previous one stays in force (trace ${trace})`,
        { trace_id: trace },
      );
    }
    // Who the caller is under the new config (a rotated token of its own: nobody).
    let visible = new Set<string>();
    try {
      visible = session.identity().visibleRepositories(workspace);
    } catch { /* no longer authorized */ }
    return {
      repositories: workspace.repositories.map((repo) => repo.name).filter((name) =>
        visible.has(name)
      ),
    };
  }

  /** Runs an action; `ran.runner` says where (a query Worker, or the main thread and why). */
  #action(
    session: Session,
    request: RpcRequest,
    options: RouteOptions,
    ran: { runner?: string },
  ): Promise<{ envelope: Envelope; cached: boolean }> {
    const { workspace, signal } = options;
    const grant = session.identity();
    const id = request.id ?? null;
    const onProgress = "id" in request ? progressSender(session, id) : undefined;
    const epoch = this.#options.epoch();
    const queries = this.#options.queries;
    return executeAction({
      workspace,
      grant,
      action: request.method,
      params: request.params,
      signal,
      onProgress,
      cache: this.#options.cache,
      counters: countersFor(this.#options.counters, grant),
      traceId: options.trace,
      lsp: this.#options.lsp?.() ?? null,
      run: (scoped, action, checked, context, prepared) => {
        const targetsReady = () =>
          scoped.select(checked.repo as string | undefined).every((repo) =>
            scoped.reader(repo).problem === null
          );
        // Refreshes belong to this thread's registry; a missing or damaged target falls
        // back here too (its live scan also starts the rebuild on this thread).
        if (!queries || ON_MAIN_THREAD.has(action) || !targetsReady()) {
          ran.runner = !queries
            ? "main thread (no query Workers)"
            : ON_MAIN_THREAD.has(action)
            ? "main thread (it hands refreshes to the refresh Worker)"
            : "main thread (a target is missing or damaged)";
          // Validated once, by `executeAction`: answered from the request it prepared.
          return answerAction(prepared);
        }
        ran.runner = "query Worker";
        // The session is the owner whose turn the job takes.
        const answer = queries.run(
          {
            epoch,
            workspace: this.#options.workspaceOptions,
            agent: grant.agent,
            action,
            params: checked,
          },
          signal,
          session,
        );
        return action === "status"
          ? answer.then((e) => withRefreshState(e, scoped, context))
          : answer;
      },
    });
  }
}

/** Whether a session may reload the workspace: the local user, or an agent with `admin: true`. */
function mayReload(session: Session): boolean {
  try {
    return session.identity().admin;
  } catch {
    return false;
  }
}

/** `$/progress` notifications for a request's refreshes, the parse phase at most every 100 ms. */
function progressSender(
  session: Session,
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
    session.connection.send(notification("$/progress", { id, repo, ...progress }));
  };
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
