/**
 * Turns at the query Workers. At most `slots` jobs are handed to the pool at
 * once; the others wait here, one queue per owner (a client session), and a
 * freed slot goes to the next owner in turn. So a client with a thousand jobs
 * queued holds up another client's next job by at most one job per slot, and
 * a waiting job whose request is aborted (cancelled, or its sender left)
 * leaves the queue without running.
 */
import { WireError } from "../protocol/errors.ts";

interface Waiter {
  admit: () => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class FairQueue {
  readonly #slots: number;
  #running = 0;
  /** Waiting jobs per owner; the Map's order is the order of turns. */
  readonly #waiting = new Map<object, Waiter[]>();

  constructor(slots: number) {
    this.#slots = Math.max(1, slots);
  }

  /** Jobs waiting for a slot. */
  get waiting(): number {
    let count = 0;
    for (const queue of this.#waiting.values()) count += queue.length;
    return count;
  }

  /** Runs `job` when a slot is free and it is `owner`'s turn; rejects if `signal` aborts first. */
  async run<T>(owner: object, signal: AbortSignal | undefined, job: () => Promise<T>): Promise<T> {
    if (this.#running < this.#slots && this.#waiting.size === 0) this.#running++;
    else await this.#wait(owner, signal);
    try {
      return await job();
    } finally {
      this.#running--;
      this.#next();
    }
  }

  #wait(owner: object, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(cancelled());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { admit: resolve, signal };
      if (signal) {
        waiter.onAbort = () => {
          this.#remove(owner, waiter);
          reject(cancelled());
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      const queue = this.#waiting.get(owner);
      if (queue) queue.push(waiter);
      else this.#waiting.set(owner, [waiter]);
    });
  }

  /** Hands free slots to the owners in turn; an owner served goes to the back of the line. */
  #next(): void {
    while (this.#running < this.#slots && this.#waiting.size > 0) {
      const [owner, queue] = this.#waiting.entries().next().value!;
      const waiter = queue.shift()!;
      this.#waiting.delete(owner);
      if (queue.length > 0) this.#waiting.set(owner, queue);
      if (waiter.onAbort) waiter.signal!.removeEventListener("abort", waiter.onAbort);
      this.#running++;
      waiter.admit();
    }
  }

  #remove(owner: object, waiter: Waiter): void {
    const queue = this.#waiting.get(owner);
    if (!queue) return;
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    if (queue.length === 0) this.#waiting.delete(owner);
  }
}

function cancelled(): WireError {
  return new WireError("RequestCancelled", "Request cancelled");
}
