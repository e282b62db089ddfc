/**
 * Lowers the calling thread's CPU priority to `nice`, on Linux only: there a priority set for
 * pid 0 is the calling thread's alone, and threads it creates later inherit it; elsewhere it
 * would be the whole process's, so nothing is done. Not permitted (a Worker without
 * `sys: ["setPriority"]`): the thread keeps its priority.
 */
import { setPriority } from "node:os";

export function lowerThreadPriority(nice: number): void {
  if (Deno.build.os !== "linux") return;
  try {
    setPriority(0, nice);
  } catch { /* not permitted */ }
}
