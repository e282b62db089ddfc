/**
 * A small pool of query Workers; a job that runs too long is cut off with its
 * Worker, and so is a cancelled one that does not stop soon after it is told.
 * Every Worker is started, its modules loaded, before the daemon accepts a
 * connection (`ready`). A Worker that fails is replaced, and only the job it
 * held fails (`InternalError`); a replacement waits until the process has
 * descriptors to spare, since starting a Worker without them aborts the process.
 * Waiting jobs go to a free Worker in the order `schedule.ts` gives: fair
 * between clients, shortest expected first (each action's time is learned
 * here, from the Workers' answers).
 * Vector indexes the Workers load (in shared memory) are kept here and handed
 * to every Worker with its jobs, so a process holds one copy of each.
 */
import { type ErrorCodeName, WireError } from "../protocol/errors.ts";
import type { Envelope } from "../protocol/types.ts";
import type { SharedVectorIndex } from "../search/vector_index.ts";
import { descriptorsFree } from "./descriptors.ts";
import type { QueryCancel, QueryJob, QueryReply, QueryWorkerMessage } from "./query_worker.ts";
import { FairShortestFirst, LONG_MS, ServiceTimes, type Ticket } from "./schedule.ts";

/** How long one query may occupy a Worker before the Worker is replaced. */
export const QUERY_TIMEOUT_MS = 120_000;

/** The longest pause before a failed Worker is started again. */
const RESPAWN_BACKOFF_MAX_MS = 1000;

/**
 * Query Workers in a row that may fail while loading, with none ready, before the pool stops
 * holding jobs for them: it answers the waiting and later jobs with the reason (and keeps
 * trying, so it serves again once a Worker starts). A broken installation fails every Worker
 * alike; without the bound every request waited for a Worker that never came.
 */
export const START_ATTEMPTS = 3;

/** How long a cancelled query may go on before its Worker is replaced. */
export const CANCEL_GRACE_MS = 250;

/** A job still running after this long holds its Worker like one expected to run long. */
export const SLOW_MS = 4 * LONG_MS;

/** How long a Worker started on demand stays with nothing to do before it ends. */
export const SPARE_IDLE_MS = 10_000;

/**
 * What a spare asks before its first job (`QueryPool.#warm`): a search, the action that loads the
 * most per-generation state, of no particular term.
 */
export const WARM_UP = { action: "search", params: { query: "main function", limit: 1 } };

/**
 * How long the pool must have been idle (no job waiting or running, none handed over or answered,
 * and `QueryPool.warm` not just called) before a warm-up starts: a request that follows at once (a
 * `refresh: true` search asks right after its refresh commits) loads what it needs itself instead
 * of waiting behind a warm-up, and a busy pool never runs one.
 */
export const WARM_UP_QUIET_MS = 50;

type Job = Omit<QueryJob, "id" | "vectors">;

interface Waiting {
  job: Job;
  resolve: (reply: QueryReply) => void;
  signal?: AbortSignal;
  /** Removes the abort listener. */
  release: () => void;
  /** Its place in the queue, while it waits. */
  ticket?: Ticket<Waiting>;
}

interface Slot {
  /** Null while a replacement waits for descriptors (or for its backoff), or a spare is not needed. */
  worker: Worker | null;
  /**
   * Started only while every other Worker is held by a long job or the pool is under pressure
   * (`#spareNeeded`), so that short jobs need not wait; it ends `SPARE_IDLE_MS` after its last
   * job.
   */
  spare: boolean;
  idle: ReturnType<typeof setTimeout> | null;
  /** True once the Worker said its modules are loaded; jobs go only to ready Workers. */
  ready: boolean;
  /** Between a reply that said `collecting` and `collected`: no job goes to this Worker. */
  collecting: boolean;
  busy: {
    id: number;
    action: string;
    /** `performance.now()` when the job was handed over. */
    started: number;
    resolve: (reply: QueryReply) => void;
    timer: ReturnType<typeof setTimeout>;
    /** Answered already (cancelled): the Worker's reply only frees the slot. */
    answered: boolean;
    /** Expected to run `LONG_MS` or more, or running past `SLOW_MS`. */
    long: boolean;
    slow: ReturnType<typeof setTimeout>;
    release: () => void;
  } | null;
  /** Pause before the next start after failures in a row (0: none yet). */
  backoff: number;
  /** The kept vector indexes this Worker holds already (it loaded them, or was handed them). */
  vectors: Set<SharedVectorIndex>;
  /** A warm-up to run once this Worker is free and no job waits (`QueryPool.warm`). */
  warmUp: Job | null;
  respawn: ReturnType<typeof setTimeout> | null;
}

export class QueryPool {
  readonly #slots: Slot[] = [];
  /** How long each action takes in a Worker (a moving average). */
  readonly times = new ServiceTimes();
  readonly #queue = new FairShortestFirst<Waiting>(this.times);
  readonly #vectors = new Map<string, SharedVectorIndex>();
  readonly #module: URL;
  readonly #pressure: () => boolean;
  readonly #started = Promise.withResolvers<void>();
  #nextId = 1;
  #closed = false;
  /** The last job handed to the pool: a spare warms up on its workspace (`#warm`). */
  #lastJob: Job | null = null;
  /** Workers in a row that failed while loading (none became ready between them). */
  #startFailures = 0;
  /** Why no Worker can start, once `START_ATTEMPTS` in a row failed with none ready. */
  #startFailure: string | null = null;
  /** Workers replaced because a cancelled job did not stop in time. */
  cancelReplacements = 0;
  /** No warm-up starts before this time (`WARM_UP_QUIET_MS` after the last job or `warm`). */
  #warmAfter = 0;
  #warmTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Up to `size` Workers, each taking any action. `resident` of them (default all) start now
   * and stay; the others are spares, started only while every running Worker is held by a long
   * job (one expected to run `LONG_MS` or more, or running past `SLOW_MS`) and jobs wait, so a
   * pool serving short jobs holds the memory of `resident` Workers only. While `pressure()`
   * holds (the daemon: a refresh runs, or ended less than `SPARE_IDLE_MS` ago), spares take
   * jobs whenever jobs wait. `module` is the Worker's script (default `query_worker.ts`; it
   * must post `{ ready: true }`).
   */
  constructor(
    size = Math.max(1, Math.min(navigator.hardwareConcurrency ?? 2, 4)),
    options: { module?: URL; resident?: number; pressure?: () => boolean } = {},
  ) {
    this.#module = options.module ?? new URL("./query_worker.ts", import.meta.url);
    this.#pressure = options.pressure ?? (() => false);
    this.#started.promise.catch(() => {}); // observed by `ready()`
    const resident = Math.max(1, Math.min(size, options.resident ?? size));
    for (let i = 0; i < Math.max(1, size); i++) {
      const slot: Slot = {
        worker: null,
        spare: i >= resident,
        idle: null,
        ready: false,
        collecting: false,
        busy: null,
        backoff: 0,
        respawn: null,
        vectors: new Set(),
        warmUp: null,
      };
      this.#slots.push(slot);
      if (!slot.spare) this.#spawn(slot);
    }
  }

  /** Workers running now (spares included). */
  get running(): number {
    return this.#slots.filter((slot) => slot.worker !== null).length;
  }

  /**
   * Resolves when every Worker has loaded its modules; rejects when one fails
   * to start (or `ms` pass), so the daemon never serves with a pool that cannot run.
   */
  async ready(ms = 120_000): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        this.#started.promise,
        new Promise<never>((_, reject) =>
          timer = setTimeout(
            () => reject(new Error(`The query Workers did not start within ${ms / 1000} s`)),
            ms,
          )
        ),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Runs one action in a Worker, when `owner`'s turn comes (see `schedule.ts`;
   * default: a turn of its own); rejects with the action's `WireError`, or an
   * internal error. When `signal` aborts, a waiting job is dropped and a running
   * one is told to stop; either way the answer is `RequestCancelled` at once.
   */
  async run(job: Job, signal?: AbortSignal, owner: object = {}): Promise<Envelope> {
    if (this.#closed) throw new WireError("IndexBusy", "The daemon is shutting down");
    if (signal?.aborted) throw new WireError("RequestCancelled", "Request cancelled");
    if (this.#startFailure !== null) throw new WireError("InternalError", this.#startFailure);
    this.#lastJob = job;
    this.#warmAfter = performance.now() + WARM_UP_QUIET_MS;
    const reply = await new Promise<QueryReply>((resolve) => {
      const waiting: Waiting = { job, resolve, signal, release: () => {} };
      if (signal) {
        const onAbort = () => this.#cancel(waiting);
        signal.addEventListener("abort", onAbort, { once: true });
        waiting.release = () => signal.removeEventListener("abort", onAbort);
      }
      waiting.ticket = this.#queue.push(owner, job.action, waiting);
      this.#pump();
    });
    if ("envelope" in reply) return reply.envelope;
    if ("wire" in reply) {
      throw new WireError(reply.wire.name as ErrorCodeName, reply.wire.message, reply.wire.data);
    }
    throw new Error(reply.internal);
  }

  /**
   * Each running Worker answers `job` (a `WARM_UP` search; its answer goes to no one) once it is
   * free and no job waits: the state a search loads for a generation (the chunk table, the
   * vector index, the full-text pages) is then loaded before the next request asks. The daemon
   * asks after it starts and after each refresh that makes a new generation, whose first answers
   * paid for it (sympy, asked after a pause of 3 s: the first search after a start 394-406 ms,
   * after a one-file refresh 162-163 ms; 35 and 21-23 ms warmed up). A busy pool runs none
   * (`WARM_UP_QUIET_MS`): its Workers load as they serve.
   */
  warm(job: Job): void {
    for (const slot of this.#slots) if (slot.worker !== null) slot.warmUp = job;
    this.#warmAfter = performance.now() + WARM_UP_QUIET_MS;
    this.#pump();
  }

  /**
   * Starts the warm-ups due, once no job has run or waited for `WARM_UP_QUIET_MS`: a warm-up
   * never takes a core from a job.
   */
  #startWarmUps(): void {
    if (this.#queue.size > 0 || !this.#slots.some((slot) => slot.warmUp)) return;
    if (this.#slots.some((slot) => slot.busy)) return;
    const wait = this.#warmAfter - performance.now();
    if (wait > 0) {
      this.#warmTimer ??= setTimeout(() => {
        this.#warmTimer = undefined;
        this.#pump();
      }, wait);
      return;
    }
    for (const slot of this.#slots) {
      if (!slot.warmUp || slot.collecting || !slot.ready) continue;
      const job = slot.warmUp;
      slot.warmUp = null;
      this.#warm(slot, job);
    }
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#warmTimer);
    this.#started.reject(new Error("The query pool was closed"));
    for (const slot of this.#slots) {
      if (slot.busy) clearTimeout(slot.busy.timer);
      if (slot.busy) clearTimeout(slot.busy.slow);
      if (slot.respawn) clearTimeout(slot.respawn);
      if (slot.idle) clearTimeout(slot.idle);
      slot.worker?.terminate();
    }
    this.#slots.length = 0;
    this.#vectors.clear();
  }

  /** Starts the slot's Worker, once the process has the descriptors a Worker needs. */
  #spawn(slot: Slot): void {
    slot.respawn = null;
    if (this.#closed) return;
    if (!descriptorsFree()) {
      slot.backoff = Math.min(RESPAWN_BACKOFF_MAX_MS, Math.max(10, slot.backoff * 2));
      slot.respawn = setTimeout(() => this.#spawn(slot), slot.backoff);
      return;
    }
    const worker = new Worker(this.#module, { type: "module" });
    slot.worker = worker;
    slot.ready = false;
    slot.collecting = false;
    slot.vectors.clear();
    worker.onmessage = (event: MessageEvent<QueryWorkerMessage>) => {
      if (slot.worker !== worker) return;
      if ("collected" in event.data) {
        slot.collecting = false;
        this.#pump();
        return;
      }
      if ("ready" in event.data) {
        slot.ready = true;
        slot.backoff = 0;
        this.#startFailures = 0;
        this.#startFailure = null;
        if (this.#slots.every((each) => each.ready || each.spare)) this.#started.resolve();
        if (slot.spare && this.#lastJob) {
          slot.warmUp = null;
          this.#warm(slot, this.#lastJob);
        }
        this.#pump();
        return;
      }
      this.#finish(slot, event.data);
    };
    worker.onerror = (event) => {
      // Never the default (which ends the process): this Worker is replaced instead.
      event.preventDefault();
      if (slot.worker !== worker) return;
      // `#replace` clears `ready`: whether it failed while loading is read first.
      const loading = !slot.ready;
      if (loading) {
        // It failed while loading its modules: the pool does not start, or retries later.
        this.#started.reject(new Error(`A query Worker failed to start: ${event.message}`));
        slot.backoff = Math.min(RESPAWN_BACKOFF_MAX_MS, Math.max(10, slot.backoff * 2));
        this.#startFailures++;
      }
      this.#replace(slot, "InternalError", "The query Worker failed");
      if (loading) this.#giveUpWhenUnstartable(event.message);
    };
  }

  /**
   * After `START_ATTEMPTS` Workers in a row failed while loading, with none ready, the jobs
   * waiting and those asked until one starts fail with the reason instead of waiting.
   */
  #giveUpWhenUnstartable(message: string): void {
    if (this.#startFailures < START_ATTEMPTS || this.#slots.some((slot) => slot.ready)) return;
    this.#startFailure =
      `The query Workers cannot start (${this.#startFailures} in a row failed): ${message}`;
    const reply: QueryReply = {
      id: 0,
      wire: { name: "InternalError", message: this.#startFailure },
    };
    for (let ticket = this.#queue.take(true); ticket; ticket = this.#queue.take(true)) {
      ticket.item.ticket = undefined;
      ticket.item.release();
      ticket.item.resolve(reply);
    }
  }

  /** A cancelled job: dropped if it waits; if it runs, answered now and its Worker told to stop. */
  #cancel(waiting: Waiting): void {
    if (waiting.ticket && this.#queue.remove(waiting.ticket)) {
      waiting.ticket = undefined;
      waiting.resolve(cancelledReply());
      return;
    }
    const slot = this.#slots.find((s) => s.busy?.resolve === waiting.resolve);
    if (!slot?.busy || slot.busy.answered) return;
    const busy = slot.busy;
    busy.answered = true;
    busy.resolve(cancelledReply());
    slot.worker?.postMessage({ type: "cancel", id: busy.id } satisfies QueryCancel);
    clearTimeout(busy.timer);
    busy.timer = setTimeout(() => {
      if (slot.busy !== busy) return;
      this.cancelReplacements++;
      this.#replace(slot, "RequestCancelled", "Request cancelled");
    }, CANCEL_GRACE_MS);
  }

  #finish(slot: Slot, reply: QueryReply): void {
    const busy = slot.busy;
    if (!busy) return;
    clearTimeout(busy.timer);
    clearTimeout(busy.slow);
    busy.release();
    slot.busy = null;
    slot.collecting = reply.collecting === true;
    if (!busy.answered) this.#warmAfter = performance.now() + WARM_UP_QUIET_MS;
    // A cancelled job's time says nothing of the action's (it stopped early).
    if (!busy.answered) this.times.observe(busy.action, performance.now() - busy.started);
    for (const index of reply.vectors ?? []) {
      this.#keep(index);
      slot.vectors.add(index);
    }
    if (!busy.answered) busy.resolve(reply);
    this.#pump();
  }

  /** Keeps a loaded index: the newest generation per target and model. */
  #keep(index: SharedVectorIndex): void {
    const key = `${index.target}\0${index.model}`;
    const current = this.#vectors.get(key);
    if (!current || current.generation < index.generation) this.#vectors.set(key, index);
  }

  #replace(slot: Slot, name: ErrorCodeName, why: string): void {
    const busy = slot.busy;
    slot.busy = null;
    slot.worker?.terminate();
    slot.worker = null;
    slot.ready = false;
    // A spare starts again only when it is needed again.
    if (!this.#closed && !slot.respawn && !slot.spare) {
      if (slot.backoff > 0) slot.respawn = setTimeout(() => this.#spawn(slot), slot.backoff);
      else this.#spawn(slot);
    }
    if (busy) {
      clearTimeout(busy.timer);
      clearTimeout(busy.slow);
      busy.release();
      if (!busy.answered) busy.resolve({ id: 0, wire: { name, message: why } });
    }
    this.#pump();
  }

  #pump(): void {
    const needed = this.#spareNeeded();
    for (const slot of this.#slots) {
      if (slot.busy || slot.collecting || !slot.ready || this.#queue.size === 0) continue;
      // A spare takes jobs only while the others are held by long ones.
      if (slot.spare && !needed) continue;
      // A job expected to run long leaves the last free Worker (a spare not started counts)
      // to the others.
      const free = this.#slots.filter((each) => !each.busy && !each.collecting).length;
      const ticket = this.#queue.take(this.#slots.length === 1 || free > 1);
      if (!ticket) break;
      ticket.item.ticket = undefined;
      this.#start(slot, ticket.item);
    }
    if (this.#queue.size > 0 && this.#spareNeeded()) {
      const spare = this.#slots.find((slot) => slot.spare && slot.worker === null);
      if (spare && !spare.respawn) this.#spawn(spare);
    }
    this.#startWarmUps();
    for (const slot of this.#slots) {
      if (!slot.spare || slot.worker === null || slot.busy || slot.idle) continue;
      slot.idle = setTimeout(() => {
        slot.idle = null;
        if (slot.busy || slot.worker === null) return;
        slot.worker.terminate();
        slot.worker = null;
        slot.ready = false;
      }, SPARE_IDLE_MS);
    }
  }

  /**
   * Whether spares are used: every resident Worker that runs is held by a long job, or the
   * pool is under pressure.
   */
  #spareNeeded(): boolean {
    if (this.#pressure()) return true;
    const resident = this.#slots.filter((slot) => !slot.spare && slot.worker !== null);
    return resident.length > 0 && resident.every((slot) => slot.busy?.long === true);
  }

  /**
   * A spare that just started answers one search on the last job's workspace and agent before
   * its first job; the answer goes nowhere and its time is not learned. A new Worker's first
   * answers pay for its cold code and per-generation caches (sympy: a first search in a new
   * process 356 ms, ~130 of them the vector index a spare is handed; 5-20 ms once warm), and a
   * spare starts when jobs already wait, so they waited that long for it; meanwhile the running
   * Workers keep serving.
   */
  #warm(slot: Slot, last: Job): void {
    this.#start(slot, {
      job: { ...last, ...WARM_UP },
      resolve: () => {},
      release: () => {},
    });
    slot.busy!.answered = true;
  }

  #start(slot: Slot, waiting: Waiting): void {
    const id = this.#nextId++;
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = null;
    const timer = setTimeout(() => {
      this.times.observe(waiting.job.action, QUERY_TIMEOUT_MS);
      this.#replace(
        slot,
        "LimitExceeded",
        `The query ran longer than ${QUERY_TIMEOUT_MS / 1000} s`,
      );
    }, QUERY_TIMEOUT_MS);
    slot.busy = {
      id,
      action: waiting.job.action,
      started: performance.now(),
      resolve: waiting.resolve,
      timer,
      answered: false,
      release: waiting.release,
      long: this.times.expected(waiting.job.action) >= LONG_MS,
      slow: setTimeout(() => {
        if (slot.busy?.id !== id) return;
        slot.busy.long = true;
        this.#pump();
      }, SLOW_MS),
    };
    // Only the indexes this Worker does not hold yet: each one handed over is a new
    // WebAssembly.Memory object there, whose whole size V8 counts as external memory until a
    // full collection, so handing every index with every job ran a full GC every few jobs.
    // (An index no longer kept here is forgotten, so an old generation's memory can go.)
    const kept = [...this.#vectors.values()];
    for (const held of slot.vectors) if (!kept.includes(held)) slot.vectors.delete(held);
    const vectors = kept.filter((index) => !slot.vectors.has(index));
    for (const index of vectors) slot.vectors.add(index);
    const job: QueryJob = { ...waiting.job, id, vectors };
    slot.worker!.postMessage(job);
  }
}

function cancelledReply(): QueryReply {
  return { id: 0, wire: { name: "RequestCancelled", message: "Request cancelled" } };
}
