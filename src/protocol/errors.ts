/**
 * The one wire error type: JSON-RPC 2.0 codes plus Sextant's application range.
 * Inside the engine, throw built-in errors; throw `WireError` only for a
 * condition a client is expected to see and handle.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Application range, -32000 to -32099. */
  RepositoryNotFound: -32001,
  IndexBusy: -32002,
  InvalidPattern: -32003,
  LimitExceeded: -32004,
  PathRejected: -32005,
  Unauthorized: -32006,
  RequestCancelled: -32800,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

/** An error that crosses the wire with a JSON-RPC code and optional data. */
export class WireError extends Error {
  readonly code: number;
  readonly data?: unknown;
  constructor(name: ErrorCodeName, message: string, data?: unknown) {
    super(message);
    this.name = name;
    this.code = ErrorCode[name];
    this.data = data;
  }
}
