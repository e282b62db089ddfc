/** A small pool of query Workers; a job that runs too long is cut off with its Worker. */
import { type ErrorCodeName, WireError } from "../protocol/errors.ts";
import type { Envelope } from "../protocol/types.ts";
import type { QueryJob, QueryReply } from "./query_worker.ts";

/**
 * Lookups that answer from one indexed table in milliseconds. They have a
 * Worker of their own and go ahead of ranked and graph queries in the shared
 * queue (shortest job first), so a burst of searches never holds up a status
 * check.
 */
export const QUICK_ACTIONS: ReadonlySet<string> = new Set(["status", "symbols"]);

/** How long one query may occupy a Worker before the Worker is replaced. */
export const QUERY_TIMEOUT_MS = 120_000;

interface Slot {
  worker: Worker;
  /** The lane for quick lookups only. */
  quickOnly: boolean;
  busy: { resolve: (reply: QueryReply) => void; timer: ReturnType<typeof setTimeout> } | null;
}

export class QueryPool {
  readonly #slots: Slot[] = [];
  readonly #quick: { job: Omit<QueryJob, "id">; resolve: (reply: QueryReply) => void }[] = [];
  readonly #queue: { job: Omit<QueryJob, "id">; resolve: (reply: QueryReply) => void }[] = [];
  #nextId = 1;
  #quickRun = 0;
  #closed = false;

  /** `size` Workers for any action, plus one for quick lookups only. */
  constructor(size = Math.max(1, Math.min(navigator.hardwareConcurrency ?? 2, 4))) {
    this.#slots.push(this.#spawn(true));
    for (let i = 0; i < size; i++) this.#slots.push(this.#spawn(false));
  }

  /** Runs one action in a Worker; rejects with the action's `WireError`, or an internal error. */
  async run(job: Omit<QueryJob, "id">): Promise<Envelope> {
    if (this.#closed) throw new WireError("IndexBusy", "The daemon is shutting down");
    const reply = await new Promise<QueryReply>((resolve) => {
      (QUICK_ACTIONS.has(job.action) ? this.#quick : this.#queue).push({ job, resolve });
      this.#pump();
    });
    if ("envelope" in reply) return reply.envelope;
    if ("wire" in reply) {
      throw new WireError(reply.wire.name as ErrorCodeName, reply.wire.message, reply.wire.data);
    }
    throw new Error(reply.internal);
  }

  close(): void {
    this.#closed = true;
    for (const slot of this.#slots) {
      if (slot.busy) clearTimeout(slot.busy.timer);
      slot.worker.terminate();
    }
    this.#slots.length = 0;
  }

  #spawn(quickOnly: boolean): Slot {
    const worker = new Worker(new URL("./query_worker.ts", import.meta.url), { type: "module" });
    const slot: Slot = { worker, quickOnly, busy: null };
    worker.onmessage = (event: MessageEvent<QueryReply>) => this.#finish(slot, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#replace(slot, "InternalError", "The query Worker failed");
    };
    return slot;
  }

  #finish(slot: Slot, reply: QueryReply): void {
    const busy = slot.busy;
    if (!busy) return;
    clearTimeout(busy.timer);
    slot.busy = null;
    busy.resolve(reply);
    this.#pump();
  }

  #replace(slot: Slot, name: ErrorCodeName, why: string): void {
    const busy = slot.busy;
    slot.busy = null;
    slot.worker.terminate();
    const index = this.#slots.indexOf(slot);
    if (index >= 0 && !this.#closed) this.#slots[index] = this.#spawn(slot.quickOnly);
    if (busy) {
      clearTimeout(busy.timer);
      busy.resolve({ id: 0, wire: { name, message: why } });
    }
    this.#pump();
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.busy) continue;
      if (slot.quickOnly) {
        const quick = this.#quick.shift();
        if (quick) this.#start(slot, quick);
        continue;
      }
      // Quick lookups first, but never more than four in a row while a query waits.
      const quickTurn = this.#quick.length > 0 && (this.#quickRun < 4 || this.#queue.length === 0);
      const next = quickTurn ? this.#quick.shift() : this.#queue.shift() ?? this.#quick.shift();
      this.#quickRun = quickTurn ? this.#quickRun + 1 : 0;
      if (!next) return;
      this.#start(slot, next);
    }
  }

  #start(
    slot: Slot,
    { job, resolve }: { job: Omit<QueryJob, "id">; resolve: (reply: QueryReply) => void },
  ): void {
    const timer = setTimeout(
      () =>
        this.#replace(
          slot,
          "LimitExceeded",
          `The query ran longer than ${QUERY_TIMEOUT_MS / 1000} s`,
        ),
      QUERY_TIMEOUT_MS,
    );
    slot.busy = { resolve, timer };
    slot.worker.postMessage({ ...job, id: this.#nextId++ });
  }
}
