/**
 * One client connection's bytes: frames in, frames out. Writes are queued in
 * order; a client that stops reading while more than
 * `FRAME_LIMITS.pendingWriteBytes` wait for it is dropped.
 */
import { encodeFrame, FRAME_LIMITS, FrameTooLarge, readFrames } from "./framing.ts";

export class Connection {
  /** The connection's ordinal in this daemon's life (traces name it). */
  readonly number: number;
  readonly #conn: Deno.UnixConn;
  #writing: Promise<void> = Promise.resolve();
  #pendingBytes = 0;
  #closed = false;

  constructor(number: number, conn: Deno.UnixConn) {
    this.number = number;
    this.#conn = conn;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Hands each frame to `onFrame` until the client hangs up. Returns the
   * oversized frame that ended the read, if one did; any other read error is a
   * client that went away.
   */
  async read(onFrame: (frame: Uint8Array) => void): Promise<FrameTooLarge | null> {
    try {
      for await (const frame of readFrames(this.#conn.readable)) onFrame(frame);
    } catch (error) {
      if (error instanceof FrameTooLarge) return error;
    }
    return null;
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

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch { /* closed */ }
  }
}
