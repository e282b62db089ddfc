/**
 * A parse Worker's bound on its own V8 heap. Extracting a file leaves most of what it made for
 * the old generation (a file's matches, references and chunk terms outlive several scavenges of
 * a 4 MB young generation), and V8 lets the old generation grow to several times its live set
 * before collecting it: ~100 MB per Worker on sympy, where the live set is 10-20 MB. Collected
 * once the heap in use passes a mark, the heap stays near the live set plus one file's work, and
 * V8 sets its next limits from that smaller heap.
 */
import { setFlagsFromString } from "node:v8";
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
  const collect = garbageCollector();
  if (collect === null) return () => false;
  return () => {
    if (Deno.memoryUsage().heapUsed <= mark) return false;
    collect();
    return true;
  };
}
