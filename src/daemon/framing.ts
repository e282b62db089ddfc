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
  /** Requests one connection may have running at once; more are answered `IndexBusy`. */
  inFlight: 64,
  /** Bytes queued towards a client that does not read before it is dropped. */
  pendingWriteBytes: 64 * 1024 * 1024,
};

/** Thrown by `readFrames` when a frame exceeds the size limit. */
export class FrameTooLarge extends RangeError {
  constructor(limit: number) {
    super(`Frame exceeds ${limit} bytes`);
    this.name = "FrameTooLarge";
  }
}

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into frames (without the newline). Empty lines are
 * skipped; bytes after the last newline when the stream ends are a last frame
 * (a half frame then a hang-up is parsed like any other frame).
 */
export async function* readFrames(
  stream: ReadableStream<Uint8Array>,
  maxBytes = FRAME_LIMITS.frameBytes,
): AsyncGenerator<Uint8Array> {
  let parts: Uint8Array[] = [];
  let pending = 0;
  const take = (last: Uint8Array): Uint8Array => {
    const frame = new Uint8Array(pending + last.length);
    let offset = 0;
    for (const part of parts) {
      frame.set(part, offset);
      offset += part.length;
    }
    frame.set(last, offset);
    parts = [];
    pending = 0;
    return frame;
  };
  for await (const chunk of stream) {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) {
        const rest = chunk.subarray(start);
        if (pending + rest.length > maxBytes) throw new FrameTooLarge(maxBytes);
        parts.push(rest.slice());
        pending += rest.length;
        break;
      }
      const piece = chunk.subarray(start, end);
      if (pending + piece.length > maxBytes) throw new FrameTooLarge(maxBytes);
      const frame = take(piece);
      start = end + 1;
      if (frame.length > 0 && !isBlank(frame)) yield frame;
    }
  }
  if (pending > 0) {
    const frame = take(new Uint8Array(0));
    if (!isBlank(frame)) yield frame;
  }
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
