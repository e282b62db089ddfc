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

/** What one scope counts: the whole daemon, or one restricted agent's own requests. */
interface Tally {
  requests: number;
  byMethod: Record<string, number>;
  errors: Record<string, number>;
  cacheHits: number;
  cacheMisses: number;
}

function tally(): Tally {
  return { requests: 0, byMethod: {}, errors: {}, cacheHits: 0, cacheMisses: 0 };
}

/** What every scope of one daemon shares. */
interface Registry {
  started: Date;
  all: Tally;
  /** One tally per restricted agent (names come from the config, so the map stays small). */
  agents: Map<string, Tally>;
  refreshes: Map<string, RefreshCounter>;
  connections: number;
  openConnections: number;
}

/** Who a scoped view of the counters belongs to. */
export interface CounterScope {
  agent: string;
  /** Whether the agent sees only some paths of a repository (then its refresh figures are hidden). */
  pathRestricted: (repo: string) => boolean;
}

/**
 * Request, error, cache and refresh counters of one daemon process. The root
 * (`new Counters()`) counts everything; `scoped(…)` is a restricted agent's
 * view, which adds to the root and to that agent's own tally, and whose
 * snapshot shows only its own requests. Method names are counted as given
 * only when they are known (the caller says so); any other is "unknown".
 */
export class Counters {
  readonly #registry: Registry;
  readonly #scope: CounterScope | null;

  constructor(registry?: Registry, scope: CounterScope | null = null) {
    this.#registry = registry ?? {
      started: new Date(),
      all: tally(),
      agents: new Map(),
      refreshes: new Map(),
      connections: 0,
      openConnections: 0,
    };
    this.#scope = scope;
  }

  /** The view of a restricted agent: counts go to it and to the root; snapshots show only it. */
  scoped(scope: CounterScope): Counters {
    return new Counters(this.#registry, scope);
  }

  get started(): Date {
    return this.#registry.started;
  }

  get requests(): number {
    return this.#own().requests;
  }

  get cacheHits(): number {
    return this.#own().cacheHits;
  }

  set cacheHits(value: number) {
    const delta = value - this.cacheHits;
    for (const counts of this.#tallies()) counts.cacheHits += delta;
  }

  get cacheMisses(): number {
    return this.#own().cacheMisses;
  }

  set cacheMisses(value: number) {
    const delta = value - this.cacheMisses;
    for (const counts of this.#tallies()) counts.cacheMisses += delta;
  }

  get connections(): number {
    return this.#registry.connections;
  }

  set connections(value: number) {
    this.#registry.connections = value;
  }

  get openConnections(): number {
    return this.#registry.openConnections;
  }

  set openConnections(value: number) {
    this.#registry.openConnections = value;
  }

  /** One request of a method; `known: false` counts it under "unknown". */
  request(method: string, known = true): void {
    const name = known ? method : "unknown";
    for (const counts of this.#tallies()) {
      counts.requests++;
      counts.byMethod[name] = (counts.byMethod[name] ?? 0) + 1;
    }
  }

  error(codeName: string): void {
    for (const counts of this.#tallies()) {
      counts.errors[codeName] = (counts.errors[codeName] ?? 0) + 1;
    }
  }

  refresh(repo: string, ms: number, failed: boolean): void {
    const counter = this.#registry.refreshes.get(repo) ??
      { count: 0, failures: 0, last_ms: 0, max_ms: 0, total_ms: 0 };
    counter.count++;
    if (failed) counter.failures++;
    counter.last_ms = round(ms);
    counter.max_ms = Math.max(counter.max_ms, round(ms));
    counter.total_ms = round(counter.total_ms + ms);
    this.#registry.refreshes.set(repo, counter);
  }

  /**
   * The counters as `status` shows them: the root shows the daemon's; an
   * agent's view shows its own requests, errors and cache use, and refresh
   * figures only for repositories it sees whole.
   */
  snapshot(visible: ReadonlySet<string>): Record<string, unknown> {
    const scope = this.#scope;
    const refreshes: Record<string, RefreshCounter> = {};
    for (const [repo, counter] of this.#registry.refreshes) {
      if (visible.has(repo) && !scope?.pathRestricted(repo)) refreshes[repo] = { ...counter };
    }
    const own = this.#own();
    const started = this.#registry.started;
    return {
      started_at: started.toISOString(),
      uptime_s: Math.round((Date.now() - started.getTime()) / 1000),
      requests: own.requests,
      requests_by_method: { ...own.byMethod },
      errors: { ...own.errors },
      cache: { hits: own.cacheHits, misses: own.cacheMisses },
      ...(scope ? {} : {
        connections: {
          total: this.#registry.connections,
          open: this.#registry.openConnections,
        },
      }),
      refreshes,
    };
  }

  #own(): Tally {
    const scope = this.#scope;
    if (!scope) return this.#registry.all;
    let counts = this.#registry.agents.get(scope.agent);
    if (!counts) {
      counts = tally();
      this.#registry.agents.set(scope.agent, counts);
    }
    return counts;
  }

  #tallies(): Tally[] {
    return this.#scope ? [this.#registry.all, this.#own()] : [this.#registry.all];
  }
}

/** The counters a grant counts into and sees: the daemon's for full access, else the agent's own. */
export function countersFor(
  counters: Counters,
  grant: { unrestricted: boolean; agent: string; pathRestricted(repo: string): boolean } | null,
): Counters {
  if (!grant || grant.unrestricted) return counters;
  return counters.scoped({
    agent: grant.agent,
    pathRestricted: (repo) => grant.pathRestricted(repo),
  });
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
