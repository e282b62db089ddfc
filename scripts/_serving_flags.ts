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
 */
export const SERVING_V8_FLAGS = ["--max-semi-space-size=4"];

/** The flags as one `--v8-flags=` argument of `deno run` or `deno compile` (none: omitted). */
export function v8FlagsArgument(flags: readonly string[]): string[] {
  return flags.length === 0 ? [] : [`--v8-flags=${flags.join(",")}`];
}
