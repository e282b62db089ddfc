/**
 * How the daemon's refresh Worker keeps out of the answers' way: a lower CPU
 * priority for its thread and its parse Workers' (`lowerThreadPriority` in
 * `src/indexer/thread_priority.ts`), and parse Workers that end when refreshes
 * stop, one fresh Worker standing by for the next (freed memory is handed back
 * by `releaseFreedMemory` in `src/indexer/heap.ts`).
 */

/** How long parse Workers stay after the last refresh that parsed ended. */
export const POOL_IDLE_MS = 10_000;

/** The nice value of the refresh thread and its parse Workers (0 normal, 19 lowest). */
export const REFRESH_NICE = 10;
