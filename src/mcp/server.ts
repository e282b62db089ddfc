/**
 * The MCP server: `tools/list` from the descriptors of the actions the caller
 * may use, `tools/call` through the backend. A call fails alone: its error is
 * a tool error (`isError`) with the CLI's message, and nothing a client sends
 * stops the server.
 */
import { traceId } from "../actions/envelope.ts";
import { RpcFailure } from "../daemon/client.ts";
import { codeName } from "../daemon/jsonrpc.ts";
import type { TraceLog } from "../daemon/observe.ts";
import { SERVER_NAME, SERVER_VERSION } from "../protocol/version.ts";
import { WireError } from "../protocol/errors.ts";
import { METHODS } from "../protocol/methods.ts";
import type { Backends, CallOptions } from "./backend.ts";
import { progressReporter, type ProgressStep } from "./progress.ts";
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  McpError,
  McpErrorCode,
  Server,
  type Transport,
} from "./sdk.ts";
import { answerResult, errorResult } from "./render.ts";
import { toolsFor, withDefaults } from "./tools.ts";

/** What the server tells a model about itself at `initialize`. */
const INSTRUCTIONS =
  "Sextant answers questions about the code of this workspace from an index kept up to date " +
  "with the working tree: ranked search for an identifier, a phrase or a whole issue text, " +
  "symbol lookup, structural grep by example, and navigation that follows imports rather than " +
  "names. Prefer these tools to reading files blindly or to text grep. Each answer ends with a " +
  "provenance line: 'exact' results are proven by scope, imports or module paths, " +
  "'approximate' ones are the only match by name; when it says truncated=true, pass its " +
  "next_cursor as 'cursor' to continue.";

/** Builds the server on a backend; `log` hears one event per call. */
export function createMcpServer(backends: Backends, log: TraceLog): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const backend = await backends.current();
    return { tools: toolsFor(backend.actions) };
  });

  // Registered on the method alone: the SDK's tools/call wrapper then checks the whole request
  // and answers a malformed one with InvalidParams (its own parse would say InternalError).
  const toolsCall = CallToolRequestSchema.pick({ method: true }).loose();
  server.setRequestHandler(toolsCall, async (raw, extra) => {
    const request = CallToolRequestSchema.parse(raw);
    const { name } = request.params;
    if (!Object.hasOwn(METHODS, name)) {
      throw new McpError(McpErrorCode.InvalidParams, `Unknown tool '${name}'`);
    }
    const started = performance.now();
    const args = request.params.arguments ?? {};
    const token = request.params._meta?.progressToken;
    let outcome = "ok";
    let mode = "";
    let results: number | undefined;
    try {
      const chosen = await backends.current();
      mode = chosen.mode;
      const onProgress = token === undefined ? undefined : progressSender(
        (step) =>
          extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, ...step },
          }),
        typeof args.repo === "string" ? 1 : chosen.repositoryCount,
      );
      const { backend, answer } = await untilAborted(
        backends.call(name, withDefaults(name, args), { signal: extra.signal, onProgress }),
        extra.signal,
      );
      mode = backend.mode;
      results = answer.envelope.results.length;
      return answerResult(answer.envelope, answer.multiRepo);
    } catch (error) {
      const failure = asFailure(error, log, name);
      outcome = extra.signal.aborted ? "RequestCancelled" : failure.name;
      return errorResult(failure);
    } finally {
      log.event("mcp.call", {
        tool: name,
        mode,
        ms: Math.round((performance.now() - started) * 10) / 10,
        outcome,
        ...(results === undefined ? {} : { results }),
      });
    }
  });
  return server;
}

/**
 * Answers a line that is not JSON-RPC as JSON-RPC 2.0 asks (the SDK only
 * reports it): Parse error, or Invalid Request, with a null id.
 */
export function answerMalformed(transport: Transport): void {
  transport.onerror = (error) => {
    const parse = error instanceof SyntaxError;
    const invalid = !parse && error?.name === "ZodError";
    if (!parse && !invalid) return;
    const response = {
      jsonrpc: "2.0",
      id: null,
      error: parse
        ? { code: McpErrorCode.ParseError, message: "Parse error" }
        : { code: McpErrorCode.InvalidRequest, message: "Invalid Request" },
    } as unknown as JSONRPCMessage;
    transport.send(response).catch(() => {});
  };
}

/** Sends a request's refresh progress as MCP progress steps (only growing, throttled). */
function progressSender(
  send: (step: ProgressStep) => Promise<void>,
  repositories: number,
): CallOptions["onProgress"] {
  const report = progressReporter(repositories);
  return (repo, progress) => {
    const step = report(repo, progress);
    if (step) send(step).catch(() => {});
  };
}

/** Settles with the work, or rejects as cancelled as soon as the client cancels. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(cancelledError());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(cancelledError());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function cancelledError(): WireError {
  return new WireError("RequestCancelled", "Request cancelled");
}

/** A failed call as a code, name and message; a defect is logged with its stack and a trace id. */
function asFailure(
  error: unknown,
  log: TraceLog,
  tool: string,
): { code: number; name: string; message: string; data?: unknown } {
  if (error instanceof WireError) {
    return { code: error.code, name: error.name, message: error.message, data: error.data };
  }
  if (error instanceof RpcFailure) {
    return {
      code: error.code,
      name: codeName(error.code),
      message: error.message,
      data: error.data,
    };
  }
  if (error instanceof SyntaxError) {
    // A workspace config that does not parse: the CLI prints the same message.
    return { code: -32602, name: "InvalidParams", message: error.message };
  }
  const trace = traceId();
  log.event("mcp.internal_error", {
    tool,
    trace_id: trace,
    error: (error as Error)?.stack ?? `${error}`,
  });
  return {
    code: -32603,
    name: "InternalError",
    message: `${(error as Error)?.message ?? error} (trace ${trace})`,
    data: { trace_id: trace },
  };
}
