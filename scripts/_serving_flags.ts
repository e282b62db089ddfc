/**
 * The V8 flags every Sextant process starts with: the `daemon`, `query` and `mcp` tasks of
 * deno.json (a test checks they agree), the binary `deno task compile` builds, and the daemon
 * and the cold index child the bench starts. They must be on the command line: V8 reads them once per process,
 * so flags set at run time (node:v8) do not reach the Workers started later.
 *
 * `--max-semi-space-size=4` (MB): each isolate's young generation (the main thread, the
 * refresh Worker and every query or parse Worker) otherwise grows to 16 MB a semi-space
 * after a burst of allocation and keeps it. Measured on sympy: a daemon serving 16 clients
 * 511-519 → 391-399 MB; a cold index's peak 577-632 → 445-533 MB for 4-9% more CPU.
 *
 * `--heap-growing-percent=20`: after each full collection V8 lets an isolate's old generation
 * grow to 1.2 times what survived (by default 1.1-4 times, more the faster it allocates), so its
 * own incremental, mostly concurrent collections keep each heap near its live set, and the
 * forced full collections of the query and parse Workers (`heap.ts`), each a stop of 64-190 ms
 * and one thread's worth of waiting requests, are rarely reached. Measured on sympy, alternate
 * runs: cold index 21.2 / 23.8 / 18.5 → 19.2 / 16.7 / 18.1 s, CPU 39.3 / 44.4 / 34.4 →
 * 35.5 / 30.8 / 33.6 s, peak 367-372 → 292-304 MB; a daemon under 16 clients (search, symbols,
 * definition) 288 → 441 requests/s, search p99 244 → 112 ms serving and 320 → 124 ms during a
 * refresh, RSS serving 280 → 249 MB, peak 576 → 476 MB, settled after the refresh 291 → 292 MB.
 */
export const SERVING_V8_FLAGS = ["--max-semi-space-size=4", "--heap-growing-percent=20"];

/** The flags as one `--v8-flags=` argument of `deno run` or `deno compile` (none: omitted). */
export function v8FlagsArgument(flags: readonly string[]): string[] {
  return flags.length === 0 ? [] : [`--v8-flags=${flags.join(",")}`];
}
