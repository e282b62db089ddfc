/**
 * Structured traces (text or JSON lines on stderr) and the daemon's counters,
 * readable through `status`. A token never reaches either.
 */

export type LogFormat = "text" | "json";

/** Writes one trace event per line to stderr. */
export class TraceLog {
  readonly #format: LogFormat;
  readonly #quiet: boolean;
  readonly #encoder = new TextEncoder();

  constructor(options: { format?: LogFormat; quiet?: boolean } = {}) {
    this.#format = options.format ?? "text";
    this.#quiet = options.quiet ?? false;
  }

  /** One event: a name and flat fields. */
  event(event: string, fields: Record<string, unknown> = {}): void {
    if (this.#quiet) return;
    const time = new Date().toISOString();
    const line = this.#format === "json"
      ? JSON.stringify({ time, event, ...fields })
      : `${time} ${event}${
        Object.entries(fields).map(([key, value]) => ` ${key}=${textValue(value)}`).join("")
      }`;
    try {
      Deno.stderr.writeSync(this.#encoder.encode(line + "\n"));
    } catch { /* stderr closed: traces are best effort */ }
  }
}

function textValue(value: unknown): string {
  if (typeof value === "string") return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

interface RefreshCounter {
  count: number;
  failures: number;
  last_ms: number;
  max_ms: number;
  total_ms: number;
}

/** Request, error, cache and refresh counters of one daemon process. */
export class Counters {
  readonly started = new Date();
  requests = 0;
  readonly byMethod: Record<string, number> = {};
  readonly errors: Record<string, number> = {};
  cacheHits = 0;
  cacheMisses = 0;
  connections = 0;
  openConnections = 0;
  readonly #refreshes = new Map<string, RefreshCounter>();

  request(method: string): void {
    this.requests++;
    this.byMethod[method] = (this.byMethod[method] ?? 0) + 1;
  }

  error(codeName: string): void {
    this.errors[codeName] = (this.errors[codeName] ?? 0) + 1;
  }

  refresh(repo: string, ms: number, failed: boolean): void {
    const counter = this.#refreshes.get(repo) ??
      { count: 0, failures: 0, last_ms: 0, max_ms: 0, total_ms: 0 };
    counter.count++;
    if (failed) counter.failures++;
    counter.last_ms = round(ms);
    counter.max_ms = Math.max(counter.max_ms, round(ms));
    counter.total_ms = round(counter.total_ms + ms);
    this.#refreshes.set(repo, counter);
  }

  /** The counters as `status` shows them; refresh figures only for visible repositories. */
  snapshot(visible: ReadonlySet<string>): Record<string, unknown> {
    const refreshes: Record<string, RefreshCounter> = {};
    for (const [repo, counter] of this.#refreshes) {
      if (visible.has(repo)) refreshes[repo] = { ...counter };
    }
    return {
      started_at: this.started.toISOString(),
      uptime_s: Math.round((Date.now() - this.started.getTime()) / 1000),
      requests: this.requests,
      requests_by_method: { ...this.byMethod },
      errors: { ...this.errors },
      cache: { hits: this.cacheHits, misses: this.cacheMisses },
      connections: { total: this.connections, open: this.openConnections },
      refreshes,
    };
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
