/**
 * JSON-RPC 2.0 messages: parsing a frame into requests, and building
 * responses. Only `src/daemon/` (this file, `session.ts`, `router.ts`) knows the wire shape.
 */
import { ErrorCode, WireError } from "../protocol/errors.ts";
import { FRAME_LIMITS, jsonDepth } from "./framing.ts";

export type RequestId = string | number | null;

/** A request (with `id`) or a notification (without). */
export interface RpcRequest {
  id?: RequestId;
  method: string;
  params?: unknown;
}

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcResponse =
  | { jsonrpc: "2.0"; id: RequestId; result: unknown }
  | { jsonrpc: "2.0"; id: RequestId; error: RpcError };

/** One item of a frame: a well-formed request, or the error answering a malformed one. */
export type FrameItem =
  | { request: RpcRequest; error?: undefined }
  | { request?: undefined; error: RpcResponse };

/** A parsed frame: one message or a batch; `error` alone when the frame as a whole is bad. */
export type ParsedFrame =
  | { batch: boolean; items: FrameItem[]; error?: undefined }
  | { error: RpcResponse; batch?: undefined; items?: undefined };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Parses one frame's bytes; never throws. */
export function parseFrame(bytes: Uint8Array): ParsedFrame {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { error: errorResponse(null, new WireError("ParseError", "Frame is not valid UTF-8")) };
  }
  if (jsonDepth(text) > FRAME_LIMITS.depth) {
    return {
      error: errorResponse(
        null,
        new WireError("LimitExceeded", `Frame nests deeper than ${FRAME_LIMITS.depth} levels`),
      ),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      error: errorResponse(
        null,
        new WireError("ParseError", `Frame is not valid JSON: ${(error as Error).message}`),
      ),
    };
  }
  if (Array.isArray(value)) {
    if (value.length === 0) {
      return { error: errorResponse(null, new WireError("InvalidRequest", "Batch is empty")) };
    }
    if (value.length > FRAME_LIMITS.batch) {
      return {
        error: errorResponse(
          null,
          new WireError("LimitExceeded", `Batch holds more than ${FRAME_LIMITS.batch} messages`),
        ),
      };
    }
    return { batch: true, items: value.map(checkRequest) };
  }
  return { batch: false, items: [checkRequest(value)] };
}

/** Checks that a value is a JSON-RPC 2.0 request or notification. */
function checkRequest(value: unknown): FrameItem {
  const invalid = (id: RequestId, message: string): FrameItem => ({
    error: errorResponse(id, new WireError("InvalidRequest", message)),
  });
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return invalid(null, "A message must be a JSON object");
  }
  const message = value as Record<string, unknown>;
  const id = message.id;
  const idValid = id === undefined || id === null || typeof id === "string" ||
    (typeof id === "number" && Number.isFinite(id));
  if (!idValid) return invalid(null, "'id' must be a string, a number or null");
  const answerId = (id ?? null) as RequestId;
  if (message.jsonrpc !== "2.0") return invalid(answerId, "'jsonrpc' must be \"2.0\"");
  if (typeof message.method !== "string" || message.method === "") {
    return invalid(answerId, "'method' must be a non-empty string");
  }
  const params = message.params;
  if (params !== undefined && (typeof params !== "object" || params === null)) {
    return invalid(answerId, "'params' must be an object or an array");
  }
  const request: RpcRequest = { method: message.method, params };
  if ("id" in message) request.id = answerId;
  return { request };
}

/** A successful response. */
export function resultResponse(id: RequestId, result: unknown): RpcResponse {
  return { jsonrpc: "2.0", id, result };
}

/** An error response; anything but a `WireError` becomes `InternalError` (message only). */
export function errorResponse(id: RequestId, error: unknown): RpcResponse {
  if (error instanceof WireError) {
    const body: RpcError = { code: error.code, message: error.message };
    if (error.data !== undefined) body.data = error.data;
    return { jsonrpc: "2.0", id, error: body };
  }
  return {
    jsonrpc: "2.0",
    id,
    error: { code: ErrorCode.InternalError, message: "Internal error" },
  };
}

/** A notification from the server. */
export function notification(method: string, params: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", method, params };
}

/** The name of an error code (for counters and traces). */
export function codeName(code: number): string {
  for (const [name, value] of Object.entries(ErrorCode)) if (value === code) return name;
  return String(code);
}
