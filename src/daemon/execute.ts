/**
 * One action for one caller, the same in the daemon and the embedded CLI:
 * policy first, then refresh, cache, the action, and the policy again on the
 * answer.
 */
import {
  type ActionContext,
  type ActionRequest,
  answerAction,
  prepareAction,
  refreshFirst,
} from "../actions/dispatch.ts";
import { ResultCache } from "../actions/result_cache.ts";
import {
  LSP_ACTIONS,
  type LspBackend,
  routedParams,
  routeToServer,
  withServerStatus,
} from "../actions/lsp_route.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import { type ErrorCodeName, WireError } from "../protocol/errors.ts";
import { METHODS } from "../protocol/methods.ts";
import type { Envelope } from "../protocol/types.ts";
import { normaliseRequestPath, type Workspace } from "../workspace/workspace.ts";
import type { Counters } from "./observe.ts";
import type { Grant } from "./policy.ts";

export interface ExecuteOptions {
  workspace: Workspace;
  grant: Grant;
  action: string;
  params: unknown;
  signal?: AbortSignal;
  onProgress?: (repo: string, progress: RefreshProgress) => void;
  /** The answer cache, shared by every caller of one daemon. */
  cache?: ResultCache;
  counters?: Counters;
  /** The caller's trace id for this request; the answer's `trace_id` is set to it. */
  traceId?: string;
  /**
   * The language servers of this process (`lsp:` of `sextant.yml`), on the thread that runs
   * this call: navigation and `symbols` go to a ready server after the structural answer, which
   * is the fallback; `status` reports each server.
   */
  lsp?: LspBackend | null;
  /**
   * Runs the action itself (the daemon: in a query Worker); default: answered
   * here from the prepared request. `params` are the validated params without
   * `refresh` (already done), as plain data for a Worker; `request` is the
   * request `executeAction` prepared, for `answerAction` on this thread.
   */
  run?: (
    workspace: Workspace,
    action: string,
    params: Record<string, unknown>,
    context: ActionContext,
    request: ActionRequest,
  ) => Promise<Envelope>;
}

/** Runs one action under a grant; throws `WireError` (or anything else: an internal error). */
export async function executeAction(
  options: ExecuteOptions,
): Promise<{ envelope: Envelope; cached: boolean }> {
  const { grant, action } = options;
  if (!Object.hasOwn(METHODS, action)) {
    throw new WireError("MethodNotFound", `Unknown action '${action}'`);
  }
  if (!grant.allowsAction(action)) {
    throw new WireError("Unauthorized", `Action '${action}' is not allowed for this agent`);
  }
  const raw = options.params ?? {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new WireError("InvalidParams", `Params of '${action}' must be an object`);
  }
  const checked = { ...(raw as Record<string, unknown>) };
  if (typeof checked.path === "string") checked.path = normaliseRequestPath(checked.path);
  const prepared = grant.admit(options.workspace, { action, params: checked });
  const hidden = hiddenPath(grant, prepared.workspace, prepared.params);
  if (hidden) {
    // Asked about a path it may not see: answer exactly as for a path that does not exist.
    prepared.params.path = HIDDEN_PREFIX + hidden;
    try {
      const { envelope, cached } = await executePrepared(options, prepared);
      return { envelope: unmask(envelope), cached };
    } catch (error) {
      if (error instanceof WireError) {
        throw new WireError(
          error.name as ErrorCodeName,
          error.message.replaceAll(HIDDEN_PREFIX, ""),
          error.data === undefined ? undefined : unmask(error.data),
        );
      }
      throw error;
    }
  }
  return await executePrepared(options, prepared);
}

/** The limitation of an answer whose `refresh: true` was not run (the agent may not refresh). */
export const REFRESH_REFUSED =
  "refresh: true was not run: this agent is not granted 'refresh'; answered from the last committed generation";

/** A directory name no repository holds (it is never created). */
const HIDDEN_PREFIX = ".sextant-no-such-path/";

/** The request's `path` when the grant hides it in every repository it addresses. */
function hiddenPath(
  grant: Grant,
  workspace: Workspace,
  params: Record<string, unknown>,
): string | null {
  if (typeof params.path !== "string" || grant.unrestricted) return null;
  const path = params.path;
  const repos = workspace.repositories.filter((repo) => !params.repo || repo.name === params.repo);
  return repos.some((repo) => grant.allowPath(repo.name, path)) ? null : path;
}

function unmask<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll(HIDDEN_PREFIX, "")) as T;
}

async function executePrepared(
  options: ExecuteOptions,
  prepared: ReturnType<Grant["admit"]>,
): Promise<{ envelope: Envelope; cached: boolean }> {
  const { grant, action, signal } = options;
  const { workspace } = prepared;
  const visible = prepared.context.repositories ??
    new Set(workspace.repositories.map((r) => r.name));
  const access = { ...prepared.context, signal, onProgress: grant.progressFor(options.onProgress) };
  // Params are validated and the scope built once, before a refresh does any work.
  const request = prepareAction(workspace, action, prepared.params, access);
  // A refresh is administrative: `refresh: true` from an agent not granted `refresh` runs none,
  // and the answer comes from the last committed generation with a limitation that says so.
  const refreshRefused = request.refresh && !grant.allowsAction("refresh");
  if (!refreshRefused) await refreshFirst(request);
  request.scope.throwIfCancelled();
  // `refresh` has been done: the runner and the cache key see the params without it.
  const { refresh: _refresh, ...asked }: Record<string, unknown> = request.params;
  // A routed action's cursor may be a server answer's: the structural run never sees that one.
  const lsp = options.lsp && LSP_ACTIONS.has(action) ? options.lsp : null;
  const routed = lsp ? routedParams(request.scope, action, asked) : null;
  const params = routed?.params ?? asked;
  const structuralRequest = routed
    ? { ...request, params: params as typeof request.params }
    : request;
  const compute = async () => {
    const answer = options.run
      ? await options.run(workspace, action, params, access, structuralRequest)
      : await answerAction(structuralRequest);
    // A runner elsewhere (a query Worker) never repairs: a target it found damaged is marked,
    // and looking at the addressed targets here starts the repair on this thread.
    if (options.run) { for (const repo of request.scope.repositories) workspace.reader(repo); }
    request.scope.throwIfCancelled();
    // The policy again, before the answer is kept or returned.
    return grant.filter(answer, visible);
  };
  let cached = false;
  let envelope: Envelope;
  if (options.cache) {
    // This request's own outcome: the cache's totals also move for requests answered meanwhile.
    const answer = await options.cache.run(
      { workspace, action, params, context: prepared.context, scope: grant.agent },
      compute,
    );
    envelope = answer.envelope;
    cached = answer.outcome === "hit";
    if (options.counters) {
      if (answer.outcome === "hit") options.counters.cacheHits++;
      else if (answer.outcome === "miss") options.counters.cacheMisses++;
    }
  } else {
    envelope = await compute();
  }
  if (lsp && routed) {
    // Never cached: the server's state and the working tree change without a new generation.
    const answer = await routeToServer({
      backend: lsp,
      scope: request.scope,
      action,
      params,
      routed,
      structural: envelope,
    });
    if (answer !== envelope) {
      cached = false;
      envelope = grant.filter(answer, visible);
    }
  }
  if (action === "status") envelope = withServerStatus(options.lsp, request.scope, envelope);
  if (action === "status" && options.counters) {
    envelope.data = {
      ...(envelope.data as Record<string, unknown>),
      daemon: options.counters.snapshot(visible),
    };
  }
  if (refreshRefused) {
    envelope = { ...envelope, limitations: [...envelope.limitations, REFRESH_REFUSED] };
  }
  if (options.traceId) envelope.trace_id = options.traceId;
  return { envelope, cached };
}
