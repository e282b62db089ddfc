/**
 * How the daemon's refresh Worker keeps out of the answers' way: a lower CPU
 * priority for its thread (and the parse Workers it starts, which inherit it),
 * parse Workers that end when refreshes stop, and freed memory handed back.
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

let trim: (() => void) | null | undefined;

/**
 * glibc's `malloc_trim(0)`, where there is one: hands the pages that freed allocations left
 * in every thread's malloc arena back to the kernel. A refresh's SQLite page cache (the
 * writer's, up to 32 MiB a repository) and the parse replies are freed when it ends, but the
 * allocator keeps their pages mapped, and the daemon's resident size with them, until this.
 */
export function releaseFreedMemory(): void {
  if (trim === undefined) {
    trim = null;
    if (Deno.build.os === "linux") {
      try {
        const libc = Deno.dlopen("libc.so.6", {
          malloc_trim: { parameters: ["usize"], result: "i32" },
        });
        trim = () => void libc.symbols.malloc_trim(0n);
      } catch { /* not glibc, or no FFI permission */ }
    }
  }
  trim?.();
}
