/**
 * One client connection's bytes: frames in, frames out. Reading stops at the
 * client's end of input (EOF, which may be a half-close: answers can still be
 * written) or at a frame the daemon refuses. Writes are queued in order; a
 * client that stops reading while more than `FRAME_LIMITS.pendingWriteBytes`
 * wait for it is dropped, and so is one whose socket fails a write.
 */
import {
  type BufferBudget,
  encodeFrame,
  FRAME_LIMITS,
  FrameRefused,
  FrameSplitter,
} from "./framing.ts";

/** Why reading ended: the client's end of input, or a frame the daemon refused. */
export type ReadEnd = { refused: null } | { refused: FrameRefused };

const READ_CHUNK = 64 * 1024;

export class Connection {
  /** The connection's ordinal in this daemon's life (traces name it). */
  readonly number: number;
  readonly #conn: Deno.UnixConn;
  readonly #budget: BufferBudget | undefined;
  readonly #onClose: (() => void)[] = [];
  #writing: Promise<void> = Promise.resolve();
  #pendingBytes = 0;
  #closed = false;
  /** When the last whole frame arrived (or the connection opened), `performance.now()`. */
  #lastFrameAt = performance.now();

  constructor(number: number, conn: Deno.UnixConn, options: { budget?: BufferBudget } = {}) {
    this.number = number;
    this.#conn = conn;
    this.#budget = options.budget;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** When the last whole frame arrived (`performance.now()` time). */
  get lastFrameAt(): number {
    return this.#lastFrameAt;
  }

  /** Runs `listener` once when the connection closes (or at once if it has). */
  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#onClose.push(listener);
  }

  /**
   * Hands each frame to `onFrame` until the client's end of input, a refused
   * frame, or a read error (a client that went away). The socket stays open.
   */
  async read(onFrame: (frame: Uint8Array) => void): Promise<ReadEnd> {
    const splitter = new FrameSplitter({ budget: this.#budget });
    const buffer = new Uint8Array(READ_CHUNK);
    try {
      while (!this.#closed) {
        const n = await this.#conn.read(buffer);
        if (n === null) {
          const last = splitter.end();
          if (last) this.#deliver(last, onFrame);
          break;
        }
        for (const frame of splitter.push(buffer.subarray(0, n))) this.#deliver(frame, onFrame);
      }
    } catch (error) {
      if (error instanceof FrameRefused) return { refused: error };
    } finally {
      splitter.release();
    }
    return { refused: null };
  }

  #deliver(frame: Uint8Array, onFrame: (frame: Uint8Array) => void): void {
    this.#lastFrameAt = performance.now();
    onFrame(frame);
  }

  /** Queues one frame. */
  send(value: unknown): void {
    if (this.#closed) return;
    const bytes = encodeFrame(value);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes > FRAME_LIMITS.pendingWriteBytes) {
      this.close();
      return;
    }
    this.#writing = this.#writing.then(async () => {
      if (this.#closed) return;
      try {
        let written = 0;
        while (written < bytes.length) written += await this.#conn.write(bytes.subarray(written));
      } catch {
        this.close();
      } finally {
        this.#pendingBytes -= bytes.length;
      }
    });
  }

  /** Resolves when every queued frame has been written (or the connection failed). */
  flushed(): Promise<void> {
    return this.#writing;
  }

  /** Resolves when the queue is written or `ms` have passed, whichever is first. */
  async flushedWithin(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.flushed(),
      new Promise((resolve) => (timer = setTimeout(resolve, ms))),
    ]);
    clearTimeout(timer);
  }

  /** Sends a last frame, waits up to `ms` (a second) for it to be written, and closes. */
  async closeWith(value: unknown, ms = 1000): Promise<void> {
    this.send(value);
    await this.flushedWithin(ms);
    this.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch { /* closed */ }
    for (const listener of this.#onClose.splice(0)) listener();
  }
}
