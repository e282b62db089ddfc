/**
 * Parse Workers for the refresh Worker, started by the thread that started it.
 *
 * Under Deno 2.9.1-2.9.6 a Worker started inside a Worker answers its first message ~1 s late
 * (two ~500 ms waits of the new thread; a trivial Worker: 1,035 ms, against 35 ms from the main
 * thread, and 33 ms inside a Worker under 2.9.0). The refresh Worker starts parse Workers at
 * the first refresh and again after `POOL_IDLE_MS` without one, so a one-file refresh through
 * the daemon took 1.6 s instead of 0.1-0.2 s. Here the refresh Worker asks its parent for each
 * parse Worker; the parent starts it (same module, same permissions) and hands the two a
 * `MessageChannel`, so jobs and replies (the packed rows, transferred) go between them directly
 * and the parent only relays the Worker's failures and its end.
 */
import type { ParseWorkerHandle, ParseWorkerStarter } from "../indexer/pool.ts";
import type { WorkerPort } from "../indexer/parse_worker.ts";

/** What the refresh Worker asks its parent. */
export type RelayRequest =
  | { type: "relay-start"; handle: number; module: string; options: WorkerOptions }
  | { type: "relay-terminate"; handle: number };

/** What the parent answers. */
export type RelayReply =
  | { type: "relay-port"; handle: number; port: MessagePort }
  | { type: "relay-error"; handle: number; message: string };

/** Whether a message is one of the relay's answers (for the refresh Worker's `onmessage`). */
export function isRelayReply(message: unknown): message is RelayReply {
  const type = (message as { type?: unknown } | null)?.type;
  return type === "relay-port" || type === "relay-error";
}

/** Whether a message is one of the relay's requests (for the parent's `onmessage`). */
export function isRelayRequest(message: unknown): message is RelayRequest {
  const type = (message as { type?: unknown } | null)?.type;
  return type === "relay-start" || type === "relay-terminate";
}

/** A parse Worker the parent started: messages wait until its port arrives. */
class RelayedWorker implements ParseWorkerHandle {
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  #port: MessagePort | null = null;
  #waiting: [unknown, Transferable[]][] = [];
  #ended = false;

  constructor(readonly handle: number, readonly end: (handle: number) => void) {}

  postMessage(message: unknown, transfer: Transferable[] = []): void {
    if (this.#ended) return;
    if (this.#port) this.#port.postMessage(message, transfer);
    else this.#waiting.push([message, transfer]);
  }

  terminate(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#waiting.length = 0;
    this.#port?.close();
    this.end(this.handle);
  }

  attach(port: MessagePort): void {
    if (this.#ended) {
      port.close();
      return;
    }
    this.#port = port;
    port.onmessage = (event) => this.onmessage?.(event);
    for (const [message, transfer] of this.#waiting.splice(0)) port.postMessage(message, transfer);
  }

  fail(message: string): void {
    if (!this.#ended) this.onerror?.(new ErrorEvent("error", { message, cancelable: true }));
  }
}

/** The refresh Worker's side: a `ParseWorkerStarter` whose Workers its parent starts. */
export class RelayedWorkers {
  readonly #post: (request: RelayRequest) => void;
  readonly #workers = new Map<number, RelayedWorker>();
  #next = 1;

  constructor(post: (request: RelayRequest) => void) {
    this.#post = post;
  }

  readonly start: ParseWorkerStarter = (module, options) => {
    const handle = this.#next++;
    const worker = new RelayedWorker(handle, (ended) => {
      this.#workers.delete(ended);
      this.#post({ type: "relay-terminate", handle: ended });
    });
    this.#workers.set(handle, worker);
    this.#post({ type: "relay-start", handle, module: module.href, options });
    return worker;
  };

  /** Takes one of the parent's answers. */
  receive(reply: RelayReply): void {
    const worker = this.#workers.get(reply.handle);
    if (reply.type === "relay-port") {
      if (worker) worker.attach(reply.port);
      else reply.port.close();
    } else worker?.fail(reply.message);
  }
}

/** Where the parent's answers go: the Worker that asked (its `postMessage`). */
export interface RelayRequester {
  postMessage(message: unknown, transfer: Transferable[]): void;
}

/** The parent's side: starts, relays the failures of, and ends the Workers one Worker asks for. */
export class WorkerRelayHost {
  readonly #requester: RelayRequester;
  readonly #children = new Map<number, Worker>();

  constructor(requester: RelayRequester) {
    this.#requester = requester;
  }

  /** Workers started and not yet ended. */
  get size(): number {
    return this.#children.size;
  }

  receive(request: RelayRequest): void {
    const { handle } = request;
    if (request.type === "relay-terminate") {
      this.#children.get(handle)?.terminate();
      this.#children.delete(handle);
      return;
    }
    let child: Worker;
    try {
      child = new Worker(new URL(request.module), request.options);
    } catch (error) {
      this.#fail(handle, (error as Error)?.message ?? String(error));
      return;
    }
    this.#children.set(handle, child);
    child.onerror = (event) => {
      // Never the default (which ends the process): the pool replaces the Worker.
      event.preventDefault();
      this.#fail(handle, event.message);
    };
    const { port1, port2 } = new MessageChannel();
    child.postMessage({ type: "port", port: port1 } satisfies WorkerPort, [port1]);
    this.#requester.postMessage(
      { type: "relay-port", handle, port: port2 } satisfies RelayReply,
      [port2],
    );
  }

  /** Ends every Worker started (the requester ended). */
  close(): void {
    for (const child of this.#children.values()) child.terminate();
    this.#children.clear();
  }

  #fail(handle: number, message: string): void {
    try {
      this.#requester.postMessage(
        { type: "relay-error", handle, message } satisfies RelayReply,
        [],
      );
    } catch { /* the requester ended */ }
  }
}
