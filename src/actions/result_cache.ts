/**
 * The answer cache: a bounded LRU of answers keyed by (action, parameters,
 * agent scope, and the state of every visible repository's target). An
 * unchanged index answers a repeated query without work; anything else changes
 * the key, so stale answers are never served and simply age out.
 *
 * A target's state is its identity (when it was created: a rebuild makes a new
 * target, whose generations start again) plus its generation and HEAD; for a
 * caller who sees only some paths of it, the identity plus the version of its
 * visible part, so an edit it may not see neither changes its answers nor
 * shows as a cache miss in its own counters.
 */
import type { Envelope } from "../protocol/types.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";
import type { ActionContext } from "./context.ts";
import { traceId } from "./envelope.ts";
import { visibleRepositories } from "../workspace/scope.ts";
import { type PathRule, visibleView } from "../workspace/visible.ts";
import { loadDependencyState } from "../deps/mod.ts";
import type { TargetLocation } from "../store/target.ts";

/** What a repository's dependency index was last refreshed to ("" before any). */
function dependencyStamp(location: TargetLocation): string {
  const state = loadDependencyState(location);
  return state ? `${state.fingerprint}/${state.refreshed_at}` : "";
}

/** Actions whose answer depends only on their params, the scope and the committed index. */
export const CACHEABLE_ACTIONS: ReadonlySet<string> = new Set([
  "search",
  "symbols",
  "grep",
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

/** How the cache answered one request: from an entry, by computing, or not keyed at all. */
export type CacheOutcome = "hit" | "miss" | "uncached";

export interface ResultCacheOptions {
  /** Answers kept at most (default 256). */
  maxEntries?: number;
  /** Approximate bytes of answers kept at most (default 32 MiB). */
  maxBytes?: number;
}

/** An answer kept as its JSON text: a third or less of its objects' heap, and no clone to keep. */
interface Entry {
  json: string;
}

export class ResultCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(options: ResultCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 256;
    this.#maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Answers from the cache, or runs `compute` and keeps its answer. Requests
   * that cannot be keyed safely (an uncacheable action, a path policy without
   * a `scope` name) always run. The outcome is this request's own: `hits` and
   * `misses` count every request, concurrent ones too, while `compute` runs.
   */
  async run(
    request: {
      workspace: Workspace;
      action: string;
      params: Record<string, unknown>;
      context: ActionContext;
      /** Names the caller's path policy (e.g. the agent id); required when `allowPath` is set. */
      scope?: string;
    },
    compute: () => Promise<Envelope> | Envelope,
  ): Promise<{ envelope: Envelope; outcome: CacheOutcome }> {
    const key = cacheKey(request);
    if (key === null) return { envelope: await compute(), outcome: "uncached" };
    const entry = this.#entries.get(key);
    if (entry) {
      this.hits++;
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      const envelope = { ...JSON.parse(entry.json) as Envelope, trace_id: traceId() };
      return { envelope, outcome: "hit" };
    }
    this.misses++;
    const envelope = await compute();
    // An answer given from a fallback is not worth keeping: the next one may be better.
    if (!envelope.provenance.fallback_used) this.#store(key, envelope);
    return { envelope, outcome: "miss" };
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #store(key: string, envelope: Envelope): void {
    const json = JSON.stringify(envelope);
    if (json.length > this.#maxBytes / 4) return;
    const replaced = this.#entries.get(key);
    if (replaced) this.#bytes -= replaced.json.length;
    this.#entries.delete(key);
    this.#entries.set(key, { json });
    this.#bytes += json.length;
    while (this.#entries.size > this.#maxEntries || this.#bytes > this.#maxBytes) {
      const [oldest, entry] = this.#entries.entries().next().value!;
      this.#entries.delete(oldest);
      this.#bytes -= entry.json.length;
    }
  }
}

/** The key of a request, or null when it must not be cached. */
export function cacheKey(request: {
  workspace: Workspace;
  action: string;
  params: Record<string, unknown>;
  context: ActionContext;
  scope?: string;
}): string | null {
  const { workspace, action, params, context } = request;
  if (!CACHEABLE_ACTIONS.has(action)) return null;
  if (context.allowPath && request.scope === undefined) return null;
  // `impact` of the uncommitted diff reads the working tree, which no generation describes.
  if (params.diff === true) return null;
  const visible = visibleRepositories(workspace, context);
  // Each one's dependency index too: an install moves it without a new generation.
  const states = visible.map((repo) =>
    `${targetState(workspace, repo, context.pathRule?.(repo.name))}:${
      dependencyStamp(repo.location)
    }`
  );
  const { refresh: _refresh, ...rest } = params;
  return JSON.stringify([
    action,
    stableJson(rest),
    request.scope ?? "",
    visible.map((repo) => repo.name).sort(),
    states,
  ]);
}

/**
 * One repository's part of a key: its root (two workspaces in one process may
 * share repository names), its target's identity, and its generation and HEAD,
 * or the version of the part a path rule shows.
 */
function targetState(workspace: Workspace, repo: Repository, rule?: PathRule | null): string {
  // Read from one reader, so identity and generation describe the same file.
  const state = workspace.withReader(repo, (reader) => {
    const identity = reader.meta("created_at") ?? "";
    return rule
      ? `${identity}#${visibleView(reader, rule).version}`
      : `${identity}:${reader.generation()}:${reader.head() ?? ""}`;
  });
  return `${repo.name}=${repo.root}@${state.value ?? state.problem}`;
}

/** JSON with object keys sorted, so equal params give equal keys. */
function stableJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stableJson);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>).sort().map((key) => [
        key,
        stableJson((value as Record<string, unknown>)[key]),
      ]),
    );
  }
  return value;
}
