/**
 * The order in which waiting actions get a query Worker: weighted fair
 * queueing over clients, where a job's weight is how long its action is
 * expected to run.
 *
 * Every owner (a client session) has a virtual clock: the Worker time it has
 * been given. When a Worker frees up, each owner with jobs waiting offers its
 * next one (its own jobs go shortest expected first: by arrival plus ten
 * times the expected time, so a long one is not passed over forever), tagged
 * `finish = start + expected ms`. An owner's start tag is fixed when it
 * begins to wait, `max(now, its clock)` (`now`: the start tag of the job that
 * last got a Worker), and after each job it is given, that job's finish tag.
 * The offer with the smallest finish tag goes. So,
 * among clients served alike, a lookup expected to take 1 ms goes ahead of a
 * search expected to take 10 (shortest expected first), and a client that
 * keeps the Workers busy moves its own clock forward: a thousand searches
 * from one client delay another client's next job by about one job per
 * Worker, never by the whole flood. Nothing starves: a waiting owner's start
 * tag stays put while the clocks of the owners being served pass it.
 *
 * How long an action is expected to run is learned from the Workers'
 * answers (a moving average per action). A job expected to run long
 * (`LONG_MS`) never takes the last free Worker of a pool of two or more, so
 * a graph query or a cold grep cannot hold every Worker while lookups wait.
 */

/** What a job is expected to cost until its action has been timed. */
export const PRIOR_MS = 10;

/** Jobs expected to run at least this long leave one Worker to the others. */
export const LONG_MS = 250;

/** Weight of the newest observation in an action's moving average. */
const SMOOTHING = 0.2;

/** The least a job costs on the virtual clock, so every start moves it on. */
const MIN_COST_MS = 0.25;

/** How long each action is expected to run, learned from what it took. */
export class ServiceTimes {
  readonly #ms = new Map<string, number>();

  /** The expected milliseconds of one run of `action`. */
  expected(action: string): number {
    return this.#ms.get(action) ?? PRIOR_MS;
  }

  /** Records one run (milliseconds a Worker spent on it). */
  observe(action: string, ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    const before = this.#ms.get(action);
    this.#ms.set(action, before === undefined ? ms : before + SMOOTHING * (ms - before));
  }
}

/** One waiting job. */
export interface Ticket<T> {
  readonly item: T;
  readonly action: string;
  /** Expected milliseconds, when it was queued. */
  readonly expected: number;
  /** Its order among its owner's jobs: arrival plus `OWN_SLACK` times its expected time. */
  readonly due: number;
  readonly owner: object;
}

/** How much sooner an owner's short job goes than its long one queued before it. */
const OWN_SLACK = 10;

interface Owner<T> {
  waiting: Ticket<T>[];
  /** Start tag of its next job: fixed when it began to wait, or its last job's finish. */
  start: number;
}

/** Waiting jobs, and which goes next. */
export class FairShortestFirst<T> {
  readonly #times: ServiceTimes;
  readonly #owners = new Map<object, Owner<T>>();
  /** Each owner's virtual clock: its last job's finish tag (kept for when it comes back). */
  readonly #clock = new WeakMap<object, number>();
  /** The start tag of the job that last got a Worker. */
  #now = 0;
  #size = 0;

  constructor(times: ServiceTimes) {
    this.#times = times;
  }

  get size(): number {
    return this.#size;
  }

  /** Queues a job of `owner`; `at` is the arrival time in ms (`performance.now()`). */
  push(owner: object, action: string, item: T, at = performance.now()): Ticket<T> {
    const expected = this.#times.expected(action);
    const ticket: Ticket<T> = { item, action, expected, due: at + OWN_SLACK * expected, owner };
    let entry = this.#owners.get(owner);
    if (!entry) {
      const start = Math.max(this.#now, this.#clock.get(owner) ?? 0);
      this.#owners.set(owner, entry = { waiting: [], start });
    }
    entry.waiting.push(ticket);
    this.#size++;
    return ticket;
  }

  /** Takes a waiting job out (cancelled); false when it was not waiting. */
  remove(ticket: Ticket<T>): boolean {
    const entry = this.#owners.get(ticket.owner);
    const at = entry?.waiting.indexOf(ticket) ?? -1;
    if (!entry || at < 0) return false;
    entry.waiting.splice(at, 1);
    if (entry.waiting.length === 0) this.#owners.delete(ticket.owner);
    this.#size--;
    return true;
  }

  /**
   * The next job to start, or null: each owner offers its own next job (the
   * earliest `due`), and the offer with the smallest finish tag wins. With
   * `longAllowed` false a job expected to run `LONG_MS` or more is passed over.
   */
  take(longAllowed: boolean): Ticket<T> | null {
    let best: { ticket: Ticket<T>; start: number; finish: number } | null = null;
    for (const entry of this.#owners.values()) {
      let offer: Ticket<T> | null = null;
      for (const ticket of entry.waiting) {
        if (!longAllowed && ticket.expected >= LONG_MS) continue;
        if (!offer || ticket.due < offer.due) offer = ticket;
      }
      if (!offer) continue;
      const finish = entry.start + Math.max(MIN_COST_MS, offer.expected);
      if (!best || finish < best.finish) best = { ticket: offer, start: entry.start, finish };
    }
    if (!best) return null;
    const { owner } = best.ticket;
    this.remove(best.ticket);
    this.#clock.set(owner, best.finish);
    const entry = this.#owners.get(owner);
    if (entry) entry.start = best.finish;
    this.#now = Math.max(this.#now, best.start);
    return best.ticket;
  }
}
