/** Numbers for `deno task bench`: percentiles, rounding, latency summaries, memory and growth. */

export const MB = 1_000_000;

/** How often resident memory is sampled while something is measured. */
export const RSS_INTERVAL_MS = 50;

export interface LatencyStats {
  runs: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  mean_ms: number;
  max_ms: number;
  mean_hits: number;
}

/** One timed request: what was asked, how long it took, how many hits it returned. */
export interface QuerySample {
  query: string;
  ms: number;
  hits: number;
}

/** The nearest-rank percentile (NaN for no samples). */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function median(samples: number[]): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** a / b rounded, or null when either is missing or b is zero. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || !Number.isFinite(a)) return null;
  return b && b > 0 ? round(a / b, 3) : null;
}

export function latencyStats(samples: QuerySample[]): LatencyStats {
  const ms = samples.map((s) => s.ms);
  const total = ms.reduce((a, b) => a + b, 0);
  return {
    runs: ms.length,
    p50_ms: round(percentile(ms, 50), 3),
    p95_ms: round(percentile(ms, 95), 3),
    p99_ms: round(percentile(ms, 99), 3),
    mean_ms: round(total / Math.max(1, ms.length), 3),
    max_ms: ms.length ? round(Math.max(...ms), 3) : NaN,
    mean_hits: round(samples.reduce((a, s) => a + s.hits, 0) / Math.max(1, samples.length), 1),
  };
}

/** Plain millisecond timings as latency stats (no hit counts). */
export function timingStats(ms: number[]): LatencyStats {
  return latencyStats(ms.map((value) => ({ query: "", ms: value, hits: 0 })));
}

/** Another process's resident set: current and peak (VmHWM), in bytes; zeros once it is gone. */
export function processRss(pid: number): { rss: number; peak: number } {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) * 1024;
    return { rss: kb("VmRSS"), peak: kb("VmHWM") };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

/** Samples another process's RSS at an interval; `stop` returns the largest VmRSS and VmHWM seen. */
export class ProcessRssSampler {
  readonly #pid: number;
  #rss = 0;
  #peak = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(pid: number) {
    this.#pid = pid;
  }

  start(intervalMs = RSS_INTERVAL_MS): this {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), intervalMs);
    return this;
  }

  stop(): { maxRss: number; peak: number } {
    clearInterval(this.#timer);
    this.#sample();
    return { maxRss: this.#rss, peak: this.#peak };
  }

  #sample(): void {
    const now = processRss(this.#pid);
    this.#rss = Math.max(this.#rss, now.rss);
    this.#peak = Math.max(this.#peak, now.peak);
  }
}

/** The machine's 1-minute load average (other work included), when the system tells it. */
export function loadAverage(): number | null {
  try {
    return Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
  } catch {
    return null;
  }
}

export function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

/** Bytes of every file below a directory (0 when it does not exist). */
export function treeSize(path: string): number {
  let total = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(path)];
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = `${path}/${entry.name}`;
    if (entry.isDirectory) total += treeSize(full);
    else if (entry.isFile) total += fileSize(full);
  }
  return total;
}

/**
 * How a cost grows with size: the exponent k of cost ∝ size^k (least squares
 * on logarithms; 1 is linear, 0 flat) and the ratio of cost per unit at the
 * largest size to cost per unit at the smallest. Null with fewer than two
 * usable points.
 */
export function growth(
  points: { size: number; cost: number | null }[],
): { exponent: number; per_unit_ratio: number } | null {
  const usable = points
    .filter((p): p is { size: number; cost: number } =>
      p.size > 0 && p.cost !== null && Number.isFinite(p.cost) && p.cost > 0
    )
    .sort((a, b) => a.size - b.size);
  if (usable.length < 2 || usable[0].size === usable[usable.length - 1].size) return null;
  const xs = usable.map((p) => Math.log(p.size));
  const ys = usable.map((p) => Math.log(p.cost));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  const first = usable[0];
  const last = usable[usable.length - 1];
  return {
    exponent: round(num / den, 3),
    per_unit_ratio: round((last.cost / last.size) / (first.cost / first.size), 3),
  };
}

/**
 * Marginal cost per unit between consecutive sizes, first interval and last:
 * fixed costs (process start, grammar loading) cancel out, so a ratio near 1
 * means each added line costs the same at the large end as at the small end.
 * Null with fewer than three usable points or a first interval that cost nothing.
 */
export function marginalGrowth(
  points: { size: number; cost: number | null }[],
): { first_per_unit: number; last_per_unit: number; ratio: number } | null {
  const usable = points
    .filter((p): p is { size: number; cost: number } => p.cost !== null && Number.isFinite(p.cost))
    .sort((a, b) => a.size - b.size);
  if (usable.length < 3) return null;
  const slope = (a: { size: number; cost: number }, b: { size: number; cost: number }) =>
    (b.cost - a.cost) / (b.size - a.size);
  const first = slope(usable[0], usable[1]);
  const last = slope(usable[usable.length - 2], usable[usable.length - 1]);
  if (!(first > 0) || !Number.isFinite(last)) return null;
  return { first_per_unit: first, last_per_unit: last, ratio: round(last / first, 3) };
}

/** Ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/**
 * CPU seconds (user + system) of each thread of a process so far, by thread id, with the
 * thread's name (Deno names Workers `worker-N` in start order, V8's own threads
 * `V8 DefaultWorke…`); empty off Linux. A thread's figure only grows.
 */
export function threadCpu(pid: number): Map<string, { name: string; s: number }> {
  const threads = new Map<string, { name: string; s: number }>();
  try {
    for (const entry of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        const stat = Deno.readTextFileSync(`/proc/${pid}/task/${entry.name}/stat`);
        const close = stat.lastIndexOf(")");
        const name = stat.slice(stat.indexOf("(") + 1, close);
        const fields = stat.slice(close + 2).split(" ");
        // utime and stime are fields 14 and 15 (1-based) of the whole line.
        threads.set(entry.name, { name, s: (Number(fields[11]) + Number(fields[12])) / TICKS });
      } catch { /* the thread ended */ }
    }
  } catch { /* no /proc */ }
  return threads;
}

/** The calling thread's CPU time so far in ms (/proc's schedstat, in ns), NaN off Linux. */
export function threadCpuMs(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]) / 1e6;
  } catch {
    return NaN;
  }
}

/** An answer without what differs from run to run (trace id, timings). */
export function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([key]) => key !== "trace_id" && !/(^|_)ms$|^timings?$|elapsed/.test(key))
      .map(([key, item]) => [key, withoutTimes(item)]),
  );
}
