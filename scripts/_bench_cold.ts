/**
 * The cold index, measured in a child process so that its peak resident set
 * (VmHWM, parse Workers included: they are threads of that process) is the
 * indexer's own and not the bench's. The parent starts this file with the
 * workspace and the cache directory; the child opens the workspace, refreshes
 * every repository once, and prints one JSON line: the refresh reports, the
 * time the refreshes took, and its own VmHWM and VmRSS read from
 * /proc/self/status. The parent also samples the child's VmRSS, as a check.
 */
import type { RefreshReport } from "../src/indexer/refresh.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import type { Target } from "./_bench_corpus.ts";
import {
  loadAverage,
  MB,
  processRss,
  ProcessRssSampler,
  round,
  threadCpu,
} from "./_bench_stats.ts";
import { SERVING_V8_FLAGS, v8FlagsArgument } from "./_serving_flags.ts";

/** What the child prints. */
interface ChildAnswer {
  reports: RefreshReport[];
  refresh_ms: number;
  /** VmRSS after the workspace opened, before the refresh. */
  baseline_rss: number;
  /** VmHWM at the end: the peak of the whole process. */
  peak_rss: number;
  /** The main thread's own V8 heap (committed) and external memory at their largest, sampled. */
  main_heap_peak: number;
  main_external_peak: number;
  /** CPU seconds of each thread of the child (by kind), sampled until it ended. */
  thread_cpu: Record<string, number>;
}

export interface ColdIndexResult {
  /** Seconds the refreshes took inside the child (no process start, no module loading). */
  s: number;
  /** Seconds from spawning the child to its exit. */
  process_s: number;
  files: number;
  bytes: number;
  lines: number;
  errors: number;
  timings_ms: RefreshReport["timings_ms"];
  /** The child's VmHWM: peak resident memory while indexing. */
  peak_rss_mb: number;
  /** The child's VmRSS before indexing (runtime, modules, open workspace). */
  baseline_rss_mb: number;
  /** The main thread's largest V8 heap and external memory (the rest of the peak is Workers,
   * wasm memories and SQLite). */
  main_heap_peak_mb: number;
  main_external_peak_mb: number;
  /** The largest VmRSS the parent saw while sampling the child (a check on the peak). */
  sampled_rss_mb: number;
  /**
   * CPU seconds of the child's threads while it indexed (user + system, from /proc): the main
   * thread (the writer), the parse Workers, and the rest (V8's and the runtime's helpers).
   * Unlike wall time, hardly inflated by other processes' load.
   */
  cpu_s: { total: number; main: number; workers: number[]; other: number };
  /** The machine's 1-minute load average before and after (other work included). */
  load_average: [number | null, number | null];
  /** The child's V8 flags. */
  v8_flags: string[];
}

/** Indexes the target from scratch in a child process; its targets stay in the cache. */
export async function coldIndex(target: Target): Promise<ColdIndexResult> {
  const loadBefore = loadAverage();
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "--allow-all",
      // Indexing runs in processes started with these (`deno task query`, the daemon's refresh
      // Worker, mcp): the child measures the same.
      ...v8FlagsArgument(SERVING_V8_FLAGS),
      new URL(import.meta.url).pathname,
      target.workspaceDirectory,
      target.cacheDirectory,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const sampler = new ProcessRssSampler(child.pid).start();
  const output = await child.output();
  const sampled = sampler.stop();
  const processMs = performance.now() - started;
  if (!output.success) throw new Error(`the cold index child failed (exit ${output.code})`);
  const text = new TextDecoder().decode(output.stdout).trim().split("\n").pop() ?? "";
  const answer = JSON.parse(text) as ChildAnswer;
  const sum = (pick: (r: RefreshReport) => number) =>
    answer.reports.reduce((total, r) => total + pick(r), 0);
  const timings = Object.fromEntries(
    Object.keys(answer.reports[0]?.timings_ms ?? {}).map((key) => [
      key,
      round(sum((r) => r.timings_ms[key as keyof RefreshReport["timings_ms"]]), 1),
    ]),
  ) as RefreshReport["timings_ms"];
  return {
    s: round(answer.refresh_ms / 1000, 3),
    process_s: round(processMs / 1000, 3),
    files: sum((r) => r.files),
    bytes: sum((r) => r.bytes),
    lines: sum((r) => r.lines),
    errors: sum((r) => r.errors),
    timings_ms: timings,
    peak_rss_mb: round(Math.max(answer.peak_rss, sampled.peak) / MB, 1),
    baseline_rss_mb: round(answer.baseline_rss / MB, 1),
    main_heap_peak_mb: round(answer.main_heap_peak / MB, 1),
    main_external_peak_mb: round(answer.main_external_peak / MB, 1),
    sampled_rss_mb: round(sampled.maxRss / MB, 1),
    cpu_s: cpuSplit(answer.thread_cpu),
    load_average: [loadBefore, loadAverage()],
    v8_flags: SERVING_V8_FLAGS,
  };
}

/**
 * The CPU seconds of every thread of this process so far, by thread id and name (the main
 * thread as "main"). A thread's figure only grows, so the last sample while it lived is its total.
 */
function sampleThreadCpu(into: Map<string, { name: string; s: number }>): void {
  for (const [tid, { name, s }] of threadCpu(Deno.pid)) {
    into.set(tid, { name: tid === String(Deno.pid) ? "main" : name, s });
  }
}

/** Thread CPU by kind: the main thread, each parse Worker thread, and the rest. */
function cpuSplit(threads: Record<string, number>): ColdIndexResult["cpu_s"] {
  let main = 0, other = 0;
  const workers: number[] = [];
  for (const [key, s] of Object.entries(threads)) {
    const name = key.slice(key.indexOf(":") + 1);
    if (name === "main") main += s;
    else if (name.startsWith("deno-worker") || name.startsWith("worker")) workers.push(round(s, 2));
    else other += s;
  }
  const total = main + other + workers.reduce((a, b) => a + b, 0);
  return { total: round(total, 2), main: round(main, 2), workers, other: round(other, 2) };
}

/** The child: index every repository of the workspace once and report. */
async function child(workspaceDirectory: string, cacheDirectory: string): Promise<void> {
  const workspace = await Workspace.open({ directory: workspaceDirectory, cacheDirectory });
  const baseline = processRss(Deno.pid).rss;
  const reports: RefreshReport[] = [];
  // The main thread (the writer, and the replies waiting for it) against the whole process:
  // sampled between the writes, which run on this thread.
  const main = { heap: 0, external: 0 };
  const threads = new Map<string, { name: string; s: number }>();
  sampleThreadCpu(threads);
  const before = new Map([...threads].map(([id, t]) => [id, t.s]));
  let ticks = 0;
  const sampler = setInterval(() => {
    const usage = Deno.memoryUsage();
    main.heap = Math.max(main.heap, usage.heapTotal);
    main.external = Math.max(main.external, usage.external);
    if (++ticks % 5 === 0) sampleThreadCpu(threads);
  }, 20);
  const started = performance.now();
  try {
    for (const repo of workspace.repositories) {
      let lastLog = performance.now();
      reports.push(
        await workspace.refresh(repo, (progress) => {
          // A long index says where it is every ten seconds (stderr; stdout is the answer).
          // console.error, not the report's log: the child imports no more than it needs.
          if (performance.now() - lastLog < 10_000) return;
          lastLog = performance.now();
          console.error(`    ${repo.name}: ${progress.phase} ${progress.done}/${progress.total}`);
        }),
      );
    }
  } finally {
    clearInterval(sampler);
    sampleThreadCpu(threads);
    workspace.close();
  }
  const refreshMs = performance.now() - started;
  const answer: ChildAnswer = {
    reports,
    refresh_ms: refreshMs,
    baseline_rss: baseline,
    peak_rss: processRss(Deno.pid).peak,
    main_heap_peak: main.heap,
    main_external_peak: main.external,
    thread_cpu: Object.fromEntries(
      [...threads].map(([id, t]) => [`${id}:${t.name}`, t.s - (before.get(id) ?? 0)]),
    ),
  };
  console.log(JSON.stringify(answer));
}

if (import.meta.main) {
  const [workspaceDirectory, cacheDirectory] = Deno.args;
  await child(workspaceDirectory, cacheDirectory);
}
