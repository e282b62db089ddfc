/** A JSON-RPC client of the daemon's socket (the CLI, the bench and the tests use it). */
import { WireError } from "../protocol/errors.ts";
import { encodeFrame, readFrames } from "./framing.ts";

/** An error answer from the daemon, with its JSON-RPC code. */
export class RpcFailure extends Error {
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcFailure";
    this.code = code;
    this.data = data;
  }
}

/** The connection ended before the daemon answered (it stopped, or the socket closed). */
export class ConnectionClosed extends RpcFailure {
  constructor(message = "Connection closed") {
    super(-32603, message);
    this.name = "ConnectionClosed";
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  onProgress?: (params: Record<string, unknown>) => void;
}

/** One connection to the daemon; requests may overlap. */
export class DaemonClient {
  readonly #conn: Deno.UnixConn;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed = false;
  readonly done: Promise<void>;

  private constructor(conn: Deno.UnixConn) {
    this.#conn = conn;
    this.done = this.#read();
  }

  /** Connects; throws when nothing listens on the socket. */
  static async connect(path: string): Promise<DaemonClient> {
    const conn = await Deno.connect({ transport: "unix", path });
    return new DaemonClient(conn);
  }

  /** Sends a request and resolves with its result; rejects with `RpcFailure`. */
  request(
    method: string,
    params?: unknown,
    options: { onProgress?: (params: Record<string, unknown>) => void } = {},
  ): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#closed) {
        reject(new ConnectionClosed());
        return;
      }
      this.#pending.set(id, { resolve, reject, onProgress: options.onProgress });
      this.#write({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })
        .catch((error) => {
          this.#pending.delete(id);
          reject(new ConnectionClosed(`Connection closed: ${(error as Error).message}`));
        });
    });
  }

  /** The id the next request will carry (to cancel it). */
  get nextId(): number {
    return this.#nextId;
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): Promise<void> {
    return this.#write({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  async #write(message: unknown): Promise<void> {
    const bytes = encodeFrame(message);
    let written = 0;
    while (written < bytes.length) written += await this.#conn.write(bytes.subarray(written));
  }

  async #read(): Promise<void> {
    try {
      for await (const frame of readFrames(this.#conn.readable, Number.MAX_SAFE_INTEGER)) {
        const message = JSON.parse(new TextDecoder().decode(frame));
        for (const item of Array.isArray(message) ? message : [message]) this.#dispatch(item);
      }
    } catch { /* closed */ }
    this.#closed = true;
    for (const pending of this.#pending.values()) {
      pending.reject(new ConnectionClosed("Connection closed by the daemon"));
    }
    this.#pending.clear();
  }

  #dispatch(message: Record<string, unknown>): void {
    if (message.method === "$/progress") {
      const params = message.params as Record<string, unknown>;
      this.#pending.get(params?.id as number)?.onProgress?.(params);
      return;
    }
    const pending = this.#pending.get(message.id as number);
    if (!pending) return;
    this.#pending.delete(message.id as number);
    if (message.error) {
      const error = message.error as { code: number; message: string; data?: unknown };
      pending.reject(new RpcFailure(error.code, error.message, error.data));
    } else pending.resolve(message.result);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch { /* closed */ }
  }
}

/** A daemon failure as the one wire error type (so the CLI prints both alike). */
export function asWireError(error: RpcFailure): WireError {
  const wire = new WireError("InternalError", error.message, error.data);
  (wire as { code: number }).code = error.code;
  return wire;
}
