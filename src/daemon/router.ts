/**
 * Method → answer. `initialize` and `workspace/reload` are the daemon's own;
 * every action goes through `executeAction` (policy, refresh, cache, action,
 * policy again), run in a query Worker unless it must run on the main thread.
 */
import { type ActionContext, runAction } from "../actions/dispatch.ts";
import type { ResultCache } from "../actions/result_cache.ts";
import type { RepositoryStatus } from "../actions/status.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import { WireError } from "../protocol/errors.ts";
import { METHODS } from "../protocol/methods.ts";
import type { Envelope } from "../protocol/types.ts";
import type { Workspace, WorkspaceOptions } from "../workspace/workspace.ts";
import { executeAction } from "./execute.ts";
import { helloFor, parseIdentity } from "./initialize.ts";
import { notification, type RequestId, type RpcRequest } from "./jsonrpc.ts";
import type { Counters } from "./observe.ts";
import type { AccessPolicy } from "./policy.ts";
import type { QueryPool } from "./query_pool.ts";
import type { Outcome, Session } from "./session.ts";

/** Actions answered on the main thread (they drive its refreshes); every other runs in a Worker. */
const ON_MAIN_THREAD = new Set(["refresh", "rebuild"]);

export interface RouterOptions {
  cache: ResultCache;
  counters: Counters;
  /** Query Workers; null answers every action on the main thread. */
  queries: QueryPool | null;
  /** How query Workers open the workspace themselves. */
  workspaceOptions: WorkspaceOptions;
  /** The policy now in force (a reload replaces it). */
  policy: () => AccessPolicy;
  /** Bumped by each reload, so query Workers reopen the registry. */
  epoch: () => number;
  /** `workspace/reload`. */
  reload: () => Promise<{ repositories: string[] }>;
}

export class Router {
  readonly #options: RouterOptions;

  constructor(options: RouterOptions) {
    this.#options = options;
  }

  /** Answers one request of a session on the workspace it started with. */
  async route(
    session: Session,
    request: RpcRequest,
    options: { workspace: Workspace; signal: AbortSignal },
  ): Promise<Outcome> {
    switch (request.method) {
      case "initialize":
        return {
          result: this.#initialize(session, request.params, options.workspace),
          cached: false,
        };
      case "workspace/reload":
        session.identity();
        return { result: await this.#options.reload(), cached: false };
    }
    if (!Object.hasOwn(METHODS, request.method)) {
      throw new WireError("MethodNotFound", `Unknown method '${request.method}'`);
    }
    const { envelope, cached } = await this.#action(session, request, options);
    return {
      result: envelope,
      results: envelope.results.length,
      cached,
      backend: envelope.provenance.backend,
      fallback: envelope.provenance.fallback_reason ?? undefined,
    };
  }

  #initialize(session: Session, params: unknown, workspace: Workspace): unknown {
    const { agent, token } = parseIdentity(params);
    session.grant = this.#options.policy().authenticate(agent, token);
    return helloFor(session.grant, { workspace, queryWorkers: this.#options.queries !== null });
  }

  #action(
    session: Session,
    request: RpcRequest,
    options: { workspace: Workspace; signal: AbortSignal },
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
      counters: this.#options.counters,
      run: (scoped, action, checked, context) => {
        const targetsReady = () =>
          scoped.select(checked.repo as string | undefined).every((repo) =>
            scoped.reader(repo).problem === null
          );
        // Refreshes belong to this thread's registry; a missing or damaged target falls
        // back here too (its live scan also starts the rebuild on this thread).
        if (!queries || ON_MAIN_THREAD.has(action) || !targetsReady()) {
          return runAction(scoped, action, checked, context);
        }
        const answer = queries.run({
          epoch,
          workspace: this.#options.workspaceOptions,
          agent: grant.agent,
          action,
          params: checked,
        });
        return action === "status"
          ? answer.then((e) => withRefreshState(e, scoped, context))
          : answer;
      },
    });
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
