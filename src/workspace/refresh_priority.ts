/**
 * How the daemon's refresh Worker keeps out of the answers' way: a lower CPU
 * priority for its thread (and the parse Workers it starts, which inherit it),
 * and parse Workers that end when refreshes stop (freed memory is handed back by
 * `releaseFreedMemory` in `src/indexer/heap.ts`).
 */
import { setPriority } from "node:os";

/** How long parse Workers stay after the last refresh ended. */
export const POOL_IDLE_MS = 10_000;

/** The nice value of the refresh thread and its parse Workers (0 normal, 19 lowest). */
export const REFRESH_NICE = 10;

/**
 * Lowers the calling thread's CPU priority to `REFRESH_NICE`, on Linux only: there a
 * priority set for pid 0 is the calling thread's alone, and threads it creates later inherit
 * it; elsewhere it would be the whole process's, so nothing is done.
 */
export function lowerThreadPriority(): void {
  if (Deno.build.os !== "linux") return;
  try {
    setPriority(0, REFRESH_NICE);
  } catch { /* not permitted: refreshes run at the daemon's priority */ }
}
