/**
 * A query Worker: answers actions from its own read-only connections, so a
 * slow query occupies this Worker and never the daemon's main thread. The
 * main thread has already checked the request; the grant is applied again.
 * A `cancel` message aborts the running action's signal (actions that check it
 * stop there; the pool replaces a Worker that does not answer soon after).
 * Vector indexes live in shared memory: those other Workers loaded arrive with
 * each job, and those this Worker loads go back with its reply.
 */
import { runAction } from "../actions/dispatch.ts";
import { WireError } from "../protocol/errors.ts";
import type { Envelope } from "../protocol/types.ts";
import { adoptIndexes, type SharedVectorIndex, takeLoadedIndexes } from "../search/vector_index.ts";
import { heapCollector, releaseFreedMemory } from "../indexer/heap.ts";
import { Workspace, type WorkspaceOptions } from "../workspace/workspace.ts";
import { AccessPolicy } from "./policy.ts";

/** One action for the Worker; `epoch` changes when the daemon reloads its workspace. */
export interface QueryJob {
  id: number;
  epoch: number;
  workspace: WorkspaceOptions;
  /**
   * The caller's agent; null only for the pool's own warm-ups (`QueryPool.warm`), whose answer
   * goes to no one: they run under no grant, over the repositories whose target can be read.
   */
  agent: string | null;
  action: string;
  params: Record<string, unknown>;
  /** Vector indexes other Workers of this process loaded. */
  vectors?: SharedVectorIndex[];
}

/** Stops the job with this id, if it is the one running. */
export interface QueryCancel {
  type: "cancel";
  id: number;
}

export type QueryReply =
  & (
    | { id: number; envelope: Envelope }
    | { id: number; wire: { name: string; message: string; data?: unknown } }
    | { id: number; internal: string }
  )
  & {
    vectors?: SharedVectorIndex[];
    /** The Worker collects its garbage next, and says `collected` when it is done. */
    collecting?: true;
  };

/**
 * What the Worker posts: one reply per job, `ready` once every module it imports is loaded, and
 * `collected` after a reply that said `collecting`.
 */
export type QueryWorkerMessage = QueryReply | { ready: true } | { collected: true };

/**
 * Bytes of V8 heap in use after a reply above which the Worker collects its garbage. Its live
 * set serving sympy and std is 28-35 MB (the readers' per-generation caches); V8 alone lets the
 * old generation grow to about four times that before a full collection, 1.2 times under the
 * serving flags (`--heap-growing-percent=20`), which keep the heap under the mark on the bench's
 * mix: there the mark is a backstop.
 */
const QUERY_HEAP_MARK = 48 * 2 ** 20;

/**
 * Collects this Worker's garbage once its heap passes `QUERY_HEAP_MARK`. A collection stops the
 * Worker for tens of milliseconds (63 ms on average serving sympy), so the reply before it says
 * so (`collecting`) and `collected` follows it: meanwhile the pool gives jobs to another Worker
 * when one runs, instead of queueing them behind the collection.
 */
const heap = heapCollector(QUERY_HEAP_MARK);

let state: { epoch: number; workspace: Workspace; policy: AccessPolicy } | null = null;
let running: { id: number; controller: AbortController } | null = null;

async function open(job: QueryJob) {
  if (state?.epoch === job.epoch) return state;
  state?.workspace.close();
  state = null;
  // Answers only: a target found damaged here is marked, and the daemon's thread repairs it.
  const workspace = await Workspace.open({ ...job.workspace, readOnly: true });
  const policy = AccessPolicy.fromConfig(workspace.config.raw, workspace.config.source ?? "");
  state = { epoch: job.epoch, workspace, policy };
  return state;
}

async function answer(job: QueryJob, signal: AbortSignal): Promise<Envelope> {
  const { workspace, policy } = await open(job);
  if (job.agent === null) return await warmUp(workspace, job, signal);
  const grant = policy.regrant(job.agent);
  if (!grant) throw new WireError("Unauthorized", "Unknown agent or wrong token");
  const admitted = grant.admit(workspace, { action: job.action, params: job.params });
  // Params cross from the daemon's thread as plain data: they are checked again here.
  const envelope = await runAction(
    admitted.workspace,
    job.action,
    admitted.params,
    { ...admitted.context, signal },
  );
  return grant.filter(envelope, grant.visibleRepositories(workspace));
}

/**
 * The pool's warm-up (`QueryPool.warm`, no agent): its action over the repositories whose target
 * can be read now. One not built yet (the daemon's first start) or damaged is left out: a search
 * there would scan its working tree instead, for no one.
 */
async function warmUp(workspace: Workspace, job: QueryJob, signal: AbortSignal): Promise<Envelope> {
  const ready = workspace.repositories.filter((repo) => workspace.reader(repo).problem === null);
  if (ready.length === 0) throw new WireError("IndexBusy", "No target to warm up yet");
  return await runAction(workspace, job.action, job.params, {
    signal,
    repositories: new Set(ready.map((repo) => repo.name)),
  });
}

self.onmessage = async (event: MessageEvent<QueryJob | QueryCancel>) => {
  const message = event.data;
  if ("type" in message) {
    if (running?.id === message.id) running.controller.abort();
    return;
  }
  const job = message;
  adoptIndexes(job.vectors ?? []);
  const controller = new AbortController();
  running = { id: job.id, controller };
  let reply: QueryReply;
  try {
    reply = { id: job.id, envelope: await answer(job, controller.signal) };
  } catch (error) {
    reply = error instanceof WireError
      ? { id: job.id, wire: { name: error.name, message: error.message, data: error.data } }
      : { id: job.id, internal: (error as Error)?.stack ?? `${error}` };
  } finally {
    running = null;
  }
  const loaded = takeLoadedIndexes();
  if (loaded.length > 0) reply.vectors = loaded;
  const collecting = heap?.over() === true;
  if (collecting) reply.collecting = true;
  (self as unknown as Worker).postMessage(reply);
  if (!collecting) return;
  heap!.collect();
  releaseFreedMemory();
  (self as unknown as Worker).postMessage({ collected: true } satisfies QueryWorkerMessage);
};

// Every static import has loaded by the time this line runs: the daemon may now hand out jobs.
(self as unknown as Worker).postMessage({ ready: true } satisfies QueryWorkerMessage);
