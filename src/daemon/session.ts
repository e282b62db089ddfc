/**
 * One client's session on a connection: its identity (the grant from
 * `initialize`, or the local user when the workspace has no agents), the
 * requests it has in flight and their cancellation, and each request's
 * lifecycle from frame to answer. Requests fail alone: whatever one throws
 * becomes its own error answer and never reaches another.
 */
import { traceId } from "../actions/envelope.ts";
import { WireError } from "../protocol/errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { Connection } from "./connection.ts";
import { FRAME_LIMITS } from "./framing.ts";
import {
  codeName,
  errorResponse,
  parseFrame,
  type RequestId,
  resultResponse,
  type RpcRequest,
  type RpcResponse,
} from "./jsonrpc.ts";
import type { Counters, TraceLog } from "./observe.ts";
import type { AccessPolicy, Grant } from "./policy.ts";
import type { WorkspaceSlot } from "./workspace_slot.ts";

/** What a routed request produced: its result and what the trace says about it. */
export interface Outcome {
  result: unknown;
  results?: number;
  cached: boolean;
  backend?: string;
  fallback?: string;
}

/** Answers one method for a session (the router). */
export type Route = (
  session: Session,
  request: RpcRequest,
  options: { workspace: Workspace; signal: AbortSignal },
) => Promise<Outcome>;

/** What sessions share: the daemon's counters, traces, workspace, policy and router. */
export interface SessionServices {
  counters: Counters;
  log: TraceLog;
  workspaces: WorkspaceSlot;
  /** The policy now in force (a reload replaces it). */
  policy: () => AccessPolicy;
  route: Route;
}

interface InFlight {
  id: RequestId;
  controller: AbortController;
  /** Resolves the request early (cancellation, shutdown); the late result is dropped. */
  settle: (response: RpcResponse) => void;
}

export class Session {
  readonly connection: Connection;
  /** Who the client is, once known (`initialize`, or the local user on first use). */
  grant: Grant | null = null;
  readonly #services: SessionServices;
  readonly #inFlight = new Set<InFlight>();

  constructor(connection: Connection, services: SessionServices) {
    this.connection = connection;
    this.#services = services;
  }

  /** Requests answered but not yet finished. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Reads and answers frames until the client hangs up; then aborts what it left running. */
  async serve(): Promise<void> {
    const { counters, log } = this.#services;
    const tooLarge = await this.connection.read((frame) => {
      this.#frame(frame).catch((error) => {
        log.event("frame.failed", { connection: this.connection.number, error: `${error}` });
      });
    });
    if (tooLarge) {
      counters.error("LimitExceeded");
      this.connection.send(errorResponse(null, new WireError("LimitExceeded", tooLarge.message)));
      log.event("connection.dropped", {
        connection: this.connection.number,
        reason: tooLarge.message,
      });
      await this.connection.flushedWithin(1000);
    }
    for (const request of this.#inFlight) request.controller.abort();
  }

  /** The session's grant; without an agents section an uninitialized client is the local user. */
  identity(): Grant {
    if (this.grant) return this.grant;
    const policy = this.#services.policy();
    if (policy.open) {
      this.grant = policy.authenticate("local", undefined);
      return this.grant;
    }
    throw new WireError(
      "Unauthorized",
      "Connection is not initialized: send 'initialize' with 'agent' and 'token' first",
    );
  }

  /** Answers every in-flight request now with `RequestCancelled` and aborts its work. */
  cancelAll(message: string): void {
    for (const request of this.#inFlight) this.#cancel(request, message);
  }

  async #frame(bytes: Uint8Array): Promise<void> {
    const { counters } = this.#services;
    const parsed = parseFrame(bytes);
    if (parsed.error) {
      counters.error(codeName((parsed.error as { error: { code: number } }).error.code));
      this.connection.send(parsed.error);
      return;
    }
    const answers = await Promise.all(parsed.items.map((item) => {
      if (item.error) {
        counters.error(codeName((item.error as { error: { code: number } }).error.code));
        return Promise.resolve(item.error);
      }
      return this.#request(item.request);
    }));
    const responses = answers.filter((answer): answer is RpcResponse => answer !== null);
    if (responses.length === 0) return;
    this.connection.send(parsed.batch ? responses : responses[0]);
  }

  /** Answers one request; null for a notification. Never throws. */
  async #request(request: RpcRequest): Promise<RpcResponse | null> {
    const { counters, log } = this.#services;
    const isNotification = !("id" in request);
    const id = request.id ?? null;
    if (request.method === "$/cancelRequest") {
      this.#cancelById(request.params);
      return null;
    }
    if (!isNotification && this.#inFlight.size >= FRAME_LIMITS.inFlight) {
      counters.request(request.method);
      counters.error("IndexBusy");
      return errorResponse(
        id,
        new WireError(
          "IndexBusy",
          `More than ${FRAME_LIMITS.inFlight} requests in flight on this connection`,
        ),
      );
    }
    const trace = traceId();
    const started = performance.now();
    counters.request(request.method);
    const { response, outcome } = await this.#run(request, trace);
    const error = "error" in response ? response.error : null;
    if (error) counters.error(codeName(error.code));
    log.event("request", {
      connection: this.connection.number,
      agent: this.grant?.agent ?? null,
      method: request.method,
      id,
      trace_id: trace,
      ms: Math.round((performance.now() - started) * 10) / 10,
      outcome: error ? codeName(error.code) : "ok",
      ...(outcome?.results === undefined ? {} : { results: outcome.results }),
      ...(outcome?.cached ? { cached: true } : {}),
      ...(outcome?.backend ? { backend: outcome.backend } : {}),
      ...(outcome?.fallback ? { fallback: outcome.fallback } : {}),
    });
    return isNotification ? null : response;
  }

  /**
   * Routes a request on the workspace current at its start, as in-flight work a
   * cancellation or shutdown may answer early.
   */
  async #run(
    request: RpcRequest,
    trace: string,
  ): Promise<{ response: RpcResponse; outcome: Outcome | null }> {
    const id = request.id ?? null;
    const lease = this.#services.workspaces.acquire();
    const controller = new AbortController();
    let settle!: (response: RpcResponse) => void;
    const early = new Promise<RpcResponse>((resolve) => (settle = resolve));
    const entry: InFlight = { id, controller, settle };
    if ("id" in request) this.#inFlight.add(entry);
    let outcome: Outcome | null = null;
    try {
      const work = this.#services.route(this, request, {
        workspace: lease.workspace,
        signal: controller.signal,
      })
        .then((answer) => {
          outcome = answer;
          return resultResponse(id, answer.result);
        })
        .catch((error) => this.#failure(id, error, { trace, method: request.method }));
      const response = await Promise.race([work, early]);
      return { response, outcome };
    } finally {
      this.#inFlight.delete(entry);
      lease.release();
    }
  }

  /** A wire error as it is; anything else is an internal error, logged under its trace. */
  #failure(
    id: RequestId,
    error: unknown,
    options: { trace: string; method: string },
  ): RpcResponse {
    const { trace, method } = options;
    if (error instanceof WireError) return errorResponse(id, error);
    if (error instanceof SyntaxError && method === "workspace/reload") {
      return errorResponse(id, new WireError("InvalidParams", error.message));
    }
    this.#services.log.event("request.internal_error", {
      method,
      trace_id: trace,
      error: (error as Error)?.stack ?? `${error}`,
    });
    return errorResponse(
      id,
      new WireError("InternalError", `Internal error (trace ${trace})`, { trace_id: trace }),
    );
  }

  /** `$/cancelRequest`: answers the request with that id on this connection. */
  #cancelById(params: unknown): void {
    const target = (params as { id?: unknown } | undefined)?.id;
    if (typeof target !== "string" && typeof target !== "number") return;
    for (const request of this.#inFlight) {
      if (request.id === target) this.#cancel(request, "Request cancelled");
    }
  }

  #cancel(request: InFlight, message: string): void {
    request.controller.abort();
    request.settle(errorResponse(request.id, new WireError("RequestCancelled", message)));
  }
}
