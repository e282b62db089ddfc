/**
 * A Worker that runs refreshes off the daemon's main thread, so the writer's
 * work never delays answers. It keeps one parse pool per repository while
 * refreshes come, and closes them once none has run for `POOL_IDLE_MS` (each
 * parse Worker holds its V8 heap and its grammars' wasm memory, which never
 * shrinks), keeping one fresh Worker on standby for the repository refreshed
 * last (`standBy`).
 *
 * Its parse Workers are started by its parent thread (`worker_relay.ts`: a
 * Worker started inside a Worker is ~1 s late to answer under Deno 2.9.1+) and
 * talk to it over a port of their own.
 *
 * On Linux this thread lowers its own CPU priority (`REFRESH_NICE`), and each
 * parse Worker lowers its own thread's to the same before its first job: a
 * refresh takes the cores that answers leave idle, so a client's query is not
 * slowed by an index update running beside it. (Elsewhere a process's priority
 * is the whole process's, so it is left alone.)
 */
import { loadLanguageTable } from "../indexer/languages.ts";
import { closeIdlePools, ParsePool, type WorkerLaunch } from "../indexer/pool.ts";
import { reconcileTarget, type RefreshTarget } from "./reconcile_target.ts";
import { releaseFreedMemory } from "../indexer/heap.ts";
import { POOL_IDLE_MS, REFRESH_NICE } from "./refresh_priority.ts";
import { lowerThreadPriority } from "../indexer/thread_priority.ts";
import { isRelayReply, RelayedWorkers, type RelayReply } from "./worker_relay.ts";

/** A request to the refresh Worker. */
export interface RefreshJob {
  id: number;
  target: RefreshTarget;
}

/** What the refresh Worker sends back for a job. */
export type RefreshMessage =
  | { id: number; type: "progress"; progress: import("../indexer/refresh.ts").RefreshProgress }
  | {
    id: number;
    type: "done";
    report: import("../indexer/refresh.ts").RefreshReport;
    rebuilt: import("./reconcile_target.ts").RebuildReason | null;
  }
  | { id: number; type: "error"; message: string };

/** What the Worker posts: its jobs' messages, and `ready` once every module it imports is loaded. */
export type RefreshWorkerMessage = RefreshMessage | { type: "ready" };

const pools = new Map<string, ParsePool>();
/** The repository root whose refresh last parsed files (asked for its pool). */
let lastRoot: string | null = null;
/** Refreshes running, per repository root. */
const runningAt = new Map<string, number>();
let running = 0;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

function closePools(): void {
  for (const pool of pools.values()) pool.close();
  pools.clear();
  releaseFreedMemory();
}

/**
 * Once no refresh has parsed for `POOL_IDLE_MS`: every pool closes, and a pool of one fresh
 * Worker starts for the repository whose refresh parsed last, with the grammars its Workers had
 * loaded. An agent's next edit there (its edits usually come further apart than `POOL_IDLE_MS`)
 * is then refreshed without waiting for a Worker's start and a grammar's query compile: a
 * one-file refresh of sympy through the daemon after a 12 s pause took 349-446 ms (parse
 * 301-367) with the pool starting, 165-181 ms (parse 103-129) with the standby. The standby
 * holds a started Worker's memory only (its heap and wasm memory have not grown with a
 * refresh's files): the idle daemon's RSS was 139-214 MB without it, 159-228 with it. It closes
 * when another repository's refresh starts a pool, and is used, then replaced, by the next
 * refresh of its own repository.
 */
function standBy(): void {
  const root = lastRoot;
  const languages = root === null ? [] : pools.get(root)?.languages() ?? [];
  closePools();
  if (root === null || languages.length === 0) return;
  try {
    const pool = new ParsePool({ root, table: loadLanguageTable(), ...launch });
    pool.warm(languages);
    pools.set(root, pool);
  } catch {
    // The root is gone (or unreadable): nothing to stand by for.
  }
}

lowerThreadPriority(REFRESH_NICE);

const relayed = new RelayedWorkers((request) => (self as unknown as Worker).postMessage(request));
/** Every parse Worker of this thread: started by its parent, at this thread's priority. */
const launch: WorkerLaunch = { start: relayed.start, nice: REFRESH_NICE };

function poolFor(target: RefreshTarget): ParsePool {
  lastRoot = target.root;
  let pool = pools.get(target.root);
  if (!pool) {
    // Another repository's idle pool goes first: one pool's Workers at a time, not one set per
    // repository refreshed in the last `POOL_IDLE_MS` (each holds its heap and wasm memory).
    closeIdlePools(pools, (root) => (runningAt.get(root) ?? 0) > 0);
    pool = new ParsePool({ root: target.root, table: loadLanguageTable(), ...launch });
    pools.set(target.root, pool);
  }
  return pool;
}

const post = (message: RefreshMessage) => (self as unknown as Worker).postMessage(message);

self.onmessage = async (event: MessageEvent<RefreshJob | RelayReply | { type: "close" }>) => {
  const data = event.data;
  if (isRelayReply(data)) {
    relayed.receive(data);
    return;
  }
  if ("type" in data) {
    clearTimeout(idleTimer);
    closePools();
    self.close();
    return;
  }
  const { id, target } = data;
  running++;
  runningAt.set(target.root, (runningAt.get(target.root) ?? 0) + 1);
  clearTimeout(idleTimer);
  try {
    const { report, rebuilt } = await reconcileTarget(target, {
      pool: () => poolFor(target),
      packageLaunch: launch,
      onProgress: (progress) => post({ id, type: "progress", progress }),
    });
    post({ id, type: "done", report, rebuilt });
  } catch (error) {
    post({ id, type: "error", message: (error as Error)?.message ?? `${error}` });
  } finally {
    running--;
    const left = (runningAt.get(target.root) ?? 1) - 1;
    if (left > 0) runningAt.set(target.root, left);
    else runningAt.delete(target.root);
    if (running === 0) {
      releaseFreedMemory();
      // A refresh that parsed nothing leaves a standby as it was.
      const used = [...pools.values()].some((pool) => !pool.fresh);
      if (used) idleTimer = setTimeout(standBy, POOL_IDLE_MS);
    }
  }
};

// Every static import has loaded by the time this line runs.
(self as unknown as Worker).postMessage({ type: "ready" } satisfies RefreshWorkerMessage);
