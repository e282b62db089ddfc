/** Numbers for `deno task bench`: percentiles, rounding, latency summaries and memory samples. */

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

/** a / b rounded, or null when b is missing or zero. */
export function ratio(a: number, b: number | undefined): number | null {
  return b && b > 0 && Number.isFinite(a) ? round(a / b, 2) : null;
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
    max_ms: round(Math.max(...ms), 3),
    mean_hits: round(samples.reduce((a, s) => a + s.hits, 0) / Math.max(1, samples.length), 1),
  };
}

/** Samples this process's RSS (main thread plus in-process Workers) at an interval. */
export class RssSampler {
  #peak = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  start(intervalMs: number): void {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), intervalMs);
  }

  stop(): number {
    clearInterval(this.#timer);
    this.#sample();
    return this.#peak;
  }

  #sample(): void {
    this.#peak = Math.max(this.#peak, Deno.memoryUsage().rss);
  }
}

/** Another process's resident set: current and peak (VmHWM), in bytes. */
export function processRss(pid: number): { rss: number; peak: number } {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) * 1024;
    return { rss: kb("VmRSS"), peak: kb("VmHWM") };
  } catch {
    return { rss: 0, peak: 0 };
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
