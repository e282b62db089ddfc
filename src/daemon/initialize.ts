/**
 * The `initialize` handshake's answer: what this daemon is, what it serves to
 * the caller, what the caller may do, and every limit the daemon enforces on
 * it (docs/protocol.md lists the same keys; a test holds the two together).
 */
import { repositoryStates } from "../actions/envelope.ts";
import { GREP_LIMITS } from "../actions/grep.ts";
import { WireError } from "../protocol/errors.ts";
import { LIMITS, METHODS } from "../protocol/methods.ts";
import { PROTOCOL_VERSION, SERVER_NAME, SERVER_VERSION } from "../protocol/version.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { FRAME_LIMITS } from "./framing.ts";
import type { Grant } from "./policy.ts";
import { QUERY_TIMEOUT_MS } from "./query_pool.ts";

export { PROTOCOL_VERSION, SERVER_NAME, SERVER_VERSION } from "../protocol/version.ts";

/** Every action name a client may call, whether built in this version or not. */
const ALL_ACTIONS = Object.keys(METHODS);

/** The identity `initialize` presents; both fields optional (the local user needs neither). */
export function parseIdentity(params: unknown): { agent?: string; token?: string } {
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
  return { agent, token };
}

/** The answer to `initialize` for an authenticated grant. */
export function helloFor(
  grant: Grant,
  options: { workspace: Workspace; limits: Record<string, number> },
): Record<string, unknown> {
  const { workspace } = options;
  const scoped = workspace.scoped(grant.visibleRepositories(workspace));
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
    repositories: repositoryStates(scoped, scoped.repositories, grant),
    actions: grant.allowedActions(ALL_ACTIONS),
    mode: grant.mode,
    max_results: grant.maxResults,
    limits: options.limits,
  };
}

/**
 * Every limit the daemon enforces on a client. The largest value of each
 * bounded integer param comes from the method descriptors, so a new bound
 * shows up here without an edit (`depth` of a traversal is `traversal_depth`,
 * since `depth` is the frame's nesting).
 */
export function daemonLimits(
  options: { queryWorkers: boolean; connections: number; idleMs: number },
): Record<string, number> {
  const params: Record<string, number> = {};
  for (const method of Object.values(METHODS)) {
    for (const [field, spec] of Object.entries(method.params)) {
      if (spec.max === undefined) continue;
      const key = field === "depth" ? "traversal_depth" : field;
      params[key] = Math.max(params[key] ?? 0, spec.max);
    }
  }
  return {
    frame_bytes: FRAME_LIMITS.frameBytes,
    depth: FRAME_LIMITS.depth,
    batch: FRAME_LIMITS.batch,
    in_flight: FRAME_LIMITS.inFlight,
    pending_write_bytes: FRAME_LIMITS.pendingWriteBytes,
    buffered_bytes: FRAME_LIMITS.bufferedBytes,
    connections: options.connections,
    idle_ms: options.idleMs,
    query_bytes: LIMITS.queryBytes,
    paths: LIMITS.paths,
    pattern_bytes: GREP_LIMITS.patternBytes,
    ...params,
    // Without query Workers an action runs on the main thread and nothing cuts it off.
    ...(options.queryWorkers ? { query_ms: QUERY_TIMEOUT_MS } : {}),
  };
}
