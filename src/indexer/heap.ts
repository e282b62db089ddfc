/**
 * A parse Worker's bound on its own V8 heap. Extracting a file leaves most of what it made for
 * the old generation (a file's matches, references and chunk terms outlive several scavenges of
 * a 4 MB young generation), and V8 lets the old generation grow to several times its live set
 * before collecting it: ~100 MB per Worker on sympy, where the live set is 10-20 MB. Collected
 * once the heap in use passes a mark, the heap stays near the live set plus one file's work, and
 * V8 sets its next limits from that smaller heap. The serving processes start with
 * `--heap-growing-percent=20` (`scripts/_serving_flags.ts`), under which V8's own collections
 * mostly keep the heap below the mark: the mark is the bound where that flag is not given.
 *
 * Also the indexing process's malloc setting (`fixMallocThreshold`), which keeps the buffers
 * the parse Workers hand the writer from piling up pages in malloc arenas.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Bytes of V8 heap in use after a reply above which a parse Worker collects its garbage. Lower
 * costs CPU (more full collections), higher lets the two Workers' heaps add up past the indexing
 * memory goal: on sympy, 64 MB kept the process at 382-400 MB (436-539 MB without) for 6-9% more
 * CPU.
 */
export const HEAP_MARK = 64 * 2 ** 20;

/**
 * V8's full garbage collection of the calling isolate, or null when the runtime does not offer
 * it. `gc` is exposed only to contexts made after `--expose-gc` is set, so it is taken from a
 * new context; it collects the whole isolate all the same.
 */
export function garbageCollector(): (() => void) | null {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc");
    return typeof gc === "function" ? () => gc() : null;
  } catch {
    return null;
  }
}

/**
 * A function that collects the isolate's garbage when its heap in use is above `mark`, and says
 * whether it did (never, when the runtime offers no collector).
 */
export function heapBound(mark: number = HEAP_MARK): () => boolean {
  const collector = heapCollector(mark);
  return () => {
    if (!collector?.over()) return false;
    collector.collect();
    return true;
  };
}

/**
 * The two halves of `heapBound`, for a caller that says it will collect before it does (a query
 * Worker tells its pool, so that jobs go to another Worker meanwhile): whether the heap in use is
 * above `mark`, and the collection. Null when the runtime offers no collector.
 */
export function heapCollector(
  mark: number = HEAP_MARK,
  headroom: number = mark / 2,
): { over: () => boolean; collect: () => void } | null {
  const collect = garbageCollector();
  if (collect === null) return null;
  // A live set at or past the mark (a query Worker's caches filled by a long day of diverse
  // requests) would make every reply collect, each a stop of 150-480 ms. The next collection
  // waits until the heap holds as much again as the last one left, and at least `headroom` more:
  // the work of collecting then stays in proportion to the work allocating (V8's own limit grows
  // by 1.1-4×). A query Worker on a navigation-heavy load (sympy, 16 clients, 30 s): 14-20
  // requests/s with a fixed 24 MB headroom, 25-28 with this, at +25-30 MB of serving RSS.
  let limit = mark;
  return {
    over: () => heapInUse() > limit,
    collect: () => {
      collect();
      const live = heapInUse();
      limit = Math.max(mark, live + Math.max(headroom, live));
    },
  };
}

/**
 * Bytes of this isolate's V8 heap in use, as V8 counts it. `Deno.memoryUsage().heapUsed` is the
 * same number but also measures the process's resident set: 14 µs a call against 0.6 µs, asked
 * after every reply of a query or parse Worker (2.8% of a query Worker's busy time on sympy under
 * 16 clients).
 */
function heapInUse(): number {
  return getHeapStatistics().used_heap_size;
}

/**
 * The size from which the indexing process's allocations get pages of their own (glibc's
 * `M_MMAP_THRESHOLD`), handed back to the kernel when freed. glibc starts at 128 KiB and then
 * raises the threshold to the size of each such block freed (up to 32 MiB), after which blocks
 * that size are carved from a malloc arena instead: a parse reply's buffers (the file's bytes, its
 * deflated text, its packed relations, zlib's state) are allocated in a Worker thread's arena,
 * some freed by the writer's thread, and an arena keeps the pages such blocks leave between live
 * ones. Fixed at glibc's starting value, the threshold no longer moves. Sympy cold index, malloc
 * arenas and wasm memories (anonymous mappings other than V8's pages and the main arena,
 * `/proc/<pid>/smaps` each 0.5 s): median 100-123 MB before, 57-77 MB after; at the process's
 * peak 116-136 before, 74-99 after.
 */
export const MMAP_THRESHOLD = 128 * 1024;

/** `mallopt`'s parameter number for `M_MMAP_THRESHOLD` (glibc's malloc.h). */
const M_MMAP_THRESHOLD = -3;

type Libc = Deno.DynamicLibrary<{
  mallopt: { parameters: ["i32", "i32"]; result: "i32" };
  malloc_trim: { parameters: ["usize"]; result: "i32" };
}>;

let libc: Libc | null | undefined;

/** glibc's allocator calls, opened once per thread (null: not Linux with glibc and FFI permission). */
function glibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (Deno.build.os !== "linux") return null;
  try {
    libc = Deno.dlopen("libc.so.6", {
      mallopt: { parameters: ["i32", "i32"], result: "i32" },
      malloc_trim: { parameters: ["usize"], result: "i32" },
    });
  } catch { /* not glibc, or no FFI permission */ }
  return libc;
}

let thresholdSet: boolean | undefined;

/**
 * Fixes the process's malloc mmap threshold at `MMAP_THRESHOLD` (glibc's `mallopt`, once per
 * process; on Linux with glibc and FFI permission only), and says whether it is set. Blocks
 * allocated after the call follow it, in every thread.
 */
export function fixMallocThreshold(): boolean {
  thresholdSet ??= glibc()?.symbols.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) === 1;
  return thresholdSet;
}

/**
 * glibc's `malloc_trim(0)`, where there is one: hands the pages that freed allocations left
 * in every thread's malloc arena back to the kernel. A refresh's SQLite page cache and the parse
 * replies, or a query Worker's collected garbage, are freed, but the allocator keeps their pages
 * mapped, and the process's resident size with them, until this.
 */
export function releaseFreedMemory(): void {
  glibc()?.symbols.malloc_trim(0n);
}
