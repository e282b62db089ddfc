/**
 * One action for one caller, the same in the daemon and the embedded CLI:
 * policy first, then refresh, cache, the action, and the policy again on the
 * answer.
 */
import { type ActionContext, runAction } from "../actions/dispatch.ts";
import { repositoryStates, traceId } from "../actions/envelope.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import { type ErrorCodeName, WireError } from "../protocol/errors.ts";
import { METHODS, validateParams } from "../protocol/methods.ts";
import type { Envelope } from "../protocol/types.ts";
import { normaliseRequestPath, type Workspace } from "../workspace/workspace.ts";
import type { Counters } from "./observe.ts";
import type { Grant } from "./policy.ts";

/** Actions whose answers depend only on parameters, scope and generations. */
const CACHEABLE = new Set([
  "search",
  "grep",
  "symbols",
  "definition",
  "references",
  "callers",
  "callees",
  "impact",
  "neighborhood",
  "map",
  "outline",
  "context",
]);

/** A bounded LRU of answers keyed by (action, params, agent scope, generations) (SPEC §7). */
export class AnswerCache {
  readonly #entries = new Map<string, Envelope>();
  readonly #capacity: number;

  constructor(capacity = 256) {
    this.#capacity = capacity;
  }

  get(key: string): Envelope | undefined {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, envelope: Envelope): void {
    this.#entries.delete(key);
    this.#entries.set(key, envelope);
    while (this.#entries.size > this.#capacity) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}

export interface ExecuteOptions {
  workspace: Workspace;
  grant: Grant;
  action: string;
  params: unknown;
  signal?: AbortSignal;
  onProgress?: (repo: string, progress: RefreshProgress) => void;
  cache?: AnswerCache;
  counters?: Counters;
  /** Runs the action itself (the daemon: in a query Worker); default `runAction` here. */
  run?: (
    workspace: Workspace,
    action: string,
    params: Record<string, unknown>,
    context: ActionContext,
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
  const prepared = grant.prepare(options.workspace, { action, params: checked });
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
  prepared: ReturnType<Grant["prepare"]>,
): Promise<{ envelope: Envelope; cached: boolean }> {
  const { grant, action, signal } = options;
  const { workspace } = prepared;
  const { refresh, ...params } = prepared.params;
  const visible = prepared.context.repositories ??
    new Set(workspace.repositories.map((r) => r.name));
  const cancelled = () => {
    if (signal?.aborted) throw new WireError("RequestCancelled", "Request cancelled");
  };
  // Validate before a refresh does any work; the action validates the same params again.
  validateParams(action, prepared.params);
  if (refresh === true) {
    for (const repo of workspace.select(params.repo as string | undefined)) {
      cancelled();
      await workspace.refresh(
        repo,
        options.onProgress ? (progress) => options.onProgress!(repo.name, progress) : undefined,
      );
    }
  }
  cancelled();
  let key: string | null = null;
  if (options.cache && CACHEABLE.has(action)) {
    const generations = repositoryStates(
      workspace,
      workspace.select(params.repo as string | undefined),
    ).map((state) => [state.name, state.generation, state.head]);
    key = JSON.stringify([action, params, grant.agent, generations]);
    const hit = options.cache.get(key);
    if (hit) {
      if (options.counters) options.counters.cacheHits++;
      return { envelope: { ...hit, trace_id: traceId() }, cached: true };
    }
    if (options.counters) options.counters.cacheMisses++;
  }
  const answer = await (options.run ?? runAction)(workspace, action, params, {
    ...prepared.context,
    signal,
    onProgress: options.onProgress,
  });
  cancelled();
  const envelope = grant.filter(answer, visible);
  if (action === "status" && options.counters) {
    envelope.data = {
      ...(envelope.data as Record<string, unknown>),
      daemon: options.counters.snapshot(visible),
    };
  }
  if (key && !envelope.provenance.fallback_used) options.cache!.set(key, envelope);
  return { envelope, cached: false };
}
