import { createHash } from "node:crypto";

/** Hex SHA-256 of a string or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** A short stable id: the first `length` hex digits of SHA-256 over the parts joined by NUL. */
export function stableId(parts: readonly (string | number)[], length = 16): string {
  return sha256Hex(parts.join("\u0000")).slice(0, length);
}
