/**
 * Newline-delimited JSON framing (docs/protocol.md): one JSON-RPC message or
 * batch per line, UTF-8, at most `FRAME_LIMITS.frameBytes` bytes.
 */

/** Input limits of the wire: past one a client gets an error or is dropped; the daemon goes on. */
export const FRAME_LIMITS = {
  /** Bytes of one frame, newline excluded; a longer frame closes the connection. */
  frameBytes: 8 * 1024 * 1024,
  /** Nesting depth of arrays and objects in one frame. */
  depth: 64,
  /** Messages in one batch. */
  batch: 100,
  /**
   * Requests and notifications one connection may have running at once; a
   * request past it is answered `IndexBusy`, a notification past it is dropped.
   */
  inFlight: 64,
  /** Bytes queued towards a client that does not read before it is dropped. */
  pendingWriteBytes: 64 * 1024 * 1024,
  /**
   * Bytes of unfinished frames buffered for all connections together; the
   * connection whose frame would pass it is refused and closed.
   */
  bufferedBytes: 32 * 1024 * 1024,
};

/** Why reading a connection stopped short: an oversized frame, or the shared buffer is full. */
export class FrameRefused extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "FrameRefused";
  }
}

/** A frame longer than the size limit. */
export class FrameTooLarge extends FrameRefused {
  constructor(limit: number) {
    super(`Frame exceeds ${limit} bytes`);
    this.name = "FrameTooLarge";
  }
}

/** The bytes every connection's unfinished frame may hold together. */
export class BufferBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit = FRAME_LIMITS.bufferedBytes) {
    this.limit = limit;
  }

  get used(): number {
    return this.#used;
  }

  /** Takes `bytes` from the budget; false (and nothing taken) when they do not fit. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into frames (without the newline). Empty lines are
 * skipped. The unfinished frame is copied out of each chunk (so a caller may
 * reuse its read buffer) and counted against the size limit and, when given,
 * the shared budget; `release` gives the budget back when the stream ends.
 */
export class FrameSplitter {
  readonly #maxBytes: number;
  readonly #budget: BufferBudget | null;
  #parts: Uint8Array[] = [];
  #pending = 0;

  constructor(options: { maxBytes?: number; budget?: BufferBudget } = {}) {
    this.#maxBytes = options.maxBytes ?? FRAME_LIMITS.frameBytes;
    this.#budget = options.budget ?? null;
  }

  /** Bytes of the unfinished frame. */
  get pending(): number {
    return this.#pending;
  }

  /** The frames a chunk completes; throws `FrameRefused` when the unfinished one may not grow. */
  push(chunk: Uint8Array): Uint8Array[] {
    const frames: Uint8Array[] = [];
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) {
        const rest = chunk.subarray(start);
        this.#grow(rest.length);
        this.#parts.push(rest.slice());
        this.#pending += rest.length;
        break;
      }
      const piece = chunk.subarray(start, end);
      if (this.#pending + piece.length > this.#maxBytes) throw new FrameTooLarge(this.#maxBytes);
      const frame = this.#take(piece);
      start = end + 1;
      if (frame.length > 0 && !isBlank(frame)) frames.push(frame);
    }
    return frames;
  }

  /** The bytes after the last newline when the stream ends, as a last frame (or null). */
  end(): Uint8Array | null {
    if (this.#pending === 0) return null;
    const frame = this.#take(new Uint8Array(0));
    return isBlank(frame) ? null : frame;
  }

  /** Drops the unfinished frame and gives its bytes back to the budget. */
  release(): void {
    this.#budget?.give(this.#pending);
    this.#parts = [];
    this.#pending = 0;
  }

  #grow(bytes: number): void {
    if (this.#pending + bytes > this.#maxBytes) throw new FrameTooLarge(this.#maxBytes);
    if (this.#budget && !this.#budget.take(bytes)) {
      throw new FrameRefused(
        `Unfinished frames of all connections may hold at most ${this.#budget.limit} bytes; ` +
          "this frame would pass that",
      );
    }
  }

  #take(last: Uint8Array): Uint8Array {
    const frame = new Uint8Array(this.#pending + last.length);
    let offset = 0;
    for (const part of this.#parts) {
      frame.set(part, offset);
      offset += part.length;
    }
    frame.set(last, offset);
    this.release();
    return frame;
  }
}

/**
 * Splits a byte stream into frames (see `FrameSplitter`); bytes after the last
 * newline when the stream ends are a last frame (a half frame then a hang-up
 * is parsed like any other frame).
 */
export async function* readFrames(
  stream: AsyncIterable<Uint8Array>,
  maxBytes = FRAME_LIMITS.frameBytes,
): AsyncGenerator<Uint8Array> {
  const splitter = new FrameSplitter({ maxBytes });
  for await (const chunk of stream) yield* splitter.push(chunk);
  const last = splitter.end();
  if (last) yield last;
}

function isBlank(frame: Uint8Array): boolean {
  for (const byte of frame) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

/** The deepest nesting of arrays and objects in JSON text (strings skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

const encoder = new TextEncoder();

/** One value as a frame: JSON plus the newline (JSON.stringify never emits a raw newline). */
export function encodeFrame(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value) + "\n");
}
