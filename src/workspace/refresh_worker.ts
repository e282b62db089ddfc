/**
 * A Worker that runs refreshes off the daemon's main thread, so the writer's
 * work never delays answers. It keeps one parse pool per repository.
 */
import { loadLanguageTable } from "../indexer/languages.ts";
import { ParsePool } from "../indexer/pool.ts";
import { reconcileTarget, type RefreshTarget } from "./reconcile_target.ts";

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

function poolFor(target: RefreshTarget): ParsePool {
  let pool = pools.get(target.root);
  if (!pool) {
    pool = new ParsePool({ root: target.root, table: loadLanguageTable() });
    pools.set(target.root, pool);
  }
  return pool;
}

const post = (message: RefreshMessage) => (self as unknown as Worker).postMessage(message);

self.onmessage = async (event: MessageEvent<RefreshJob | { type: "close" }>) => {
  const data = event.data;
  if ("type" in data) {
    for (const pool of pools.values()) pool.close();
    self.close();
    return;
  }
  const { id, target } = data;
  try {
    const { report, rebuilt } = await reconcileTarget(target, {
      pool: () => poolFor(target),
      onProgress: (progress) => post({ id, type: "progress", progress }),
    });
    post({ id, type: "done", report, rebuilt });
  } catch (error) {
    post({ id, type: "error", message: (error as Error)?.message ?? `${error}` });
  }
};

// Every static import has loaded by the time this line runs.
(self as unknown as Worker).postMessage({ type: "ready" } satisfies RefreshWorkerMessage);
