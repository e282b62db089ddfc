/**
 * One client's session on a connection: its identity (the grant from
 * `initialize`, or the local user when the workspace has no agents), the
 * requests and notifications it has in flight and their cancellation, and
 * each request's lifecycle from frame to answer. Requests fail alone:
 * whatever one throws becomes its own error answer and never reaches another.
 *
 * When the client's input ends (EOF, perhaps a half-close), its notifications
 * are aborted, its requests run to their answers, and then the session ends;
 * when its socket fails (it went away), everything it left running is aborted.
 */
import { traceId } from "../actions/envelope.ts";
import { WireError } from "../protocol/errors.ts";
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
import { type Counters, countersFor, type TraceLog } from "./observe.ts";
import type { AccessPolicy, Grant } from "./policy.ts";
import type { RouteOptions } from "./router.ts";
import type { WorkspaceSlot } from "./workspace_slot.ts";

/** What a routed request produced: its result and what the trace says about it. */
export interface Outcome {
  result: unknown;
  results?: number;
  cached: boolean;
  /** The backend that answered (`provenance.backend`). */
  backend?: string;
  /** Why a fallback answered (`provenance.fallback_reason`). */
  fallback?: string;
  /** Where the action ran: a query Worker, or the main thread and why. */
  runner?: string;
}

/** Answers one method for a session (the router). */
export type Route = (
  session: Session,
  request: RpcRequest,
  options: RouteOptions,
) => Promise<Outcome>;

/** What sessions share: the daemon's counters, traces, workspace, policy and router. */
export interface SessionServices {
  counters: Counters;
  log: TraceLog;
  workspaces: WorkspaceSlot;
  /** The policy now in force (a reload replaces it). */
  policy: () => AccessPolicy;
  route: Route;
  /** Whether the session may see a method exist (others are counted as "unknown"). */
  knows: (session: Session, method: string) => boolean;
}

interface InFlight {
  id: RequestId;
  notification: boolean;
  controller: AbortController;
  /** Resolves the request early (cancellation, shutdown); the late result is dropped. */
  settle: (response: RpcResponse) => void;
}

export class Session {
  readonly connection: Connection;
  readonly #services: SessionServices;
  readonly #inFlight = new Set<InFlight>();
  #grant: Grant | null = null;
  /** The agent and token the client presented in `initialize` (to check them again on reload). */
  #presented: { agent?: string; token?: string } | null = null;
  /** True when a reload refused the identity this connection had. */
  #revoked = false;
  /** Frames read and not yet answered. */
  #frames = 0;
  #drained: (() => void) | null = null;

  constructor(connection: Connection, services: SessionServices) {
    this.connection = connection;
    this.#services = services;
    // A client whose socket failed takes its work with it.
    connection.onClose(() => this.cancelAll("The connection closed"));
  }

  /** Who the client is, once known (`initialize`, or the local user on first use). */
  get grant(): Grant | null {
    return this.#grant;
  }

  /** Requests and notifications running. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Since when (`performance.now()`) the session has been idle; null while it has work. */
  idleSince(): number | null {
    return this.#frames > 0 ? null : this.connection.lastFrameAt;
  }

  /**
   * Reads and answers frames until the client's input ends. A refused frame
   * is answered `LimitExceeded` (id null) and ends the session at once.
   */
  async serve(): Promise<void> {
    const { log } = this.#services;
    const end = await this.connection.read((frame) => {
      this.#frames++;
      this.#frame(frame)
        .catch((error) => {
          log.event("frame.failed", { connection: this.connection.number, error: `${error}` });
        })
        .finally(() => {
          this.#frames--;
          if (this.#frames === 0) this.#drained?.();
        });
    });
    if (end.refused) {
      this.#counters().error("LimitExceeded");
      log.event("connection.dropped", {
        connection: this.connection.number,
        reason: end.refused.message,
      });
      this.cancelAll("The connection was closed: " + end.refused.message);
      await this.connection.closeWith(
        errorResponse(null, new WireError("LimitExceeded", end.refused.message)),
      );
      return;
    }
    // Nothing more will come. Notifications have nobody to answer; requests are answered.
    for (const request of this.#inFlight) {
      if (request.notification) this.#cancel(request, "The client's input ended");
    }
    if (this.#frames > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    await this.connection.flushedWithin(5000);
  }

  /** The session's grant; without an agents section an uninitialized client is the local user. */
  identity(): Grant {
    if (this.#grant) return this.#grant;
    if (this.#revoked) {
      throw new WireError(
        "Unauthorized",
        "The agent or token of this connection is no longer valid: send 'initialize' again",
      );
    }
    const policy = this.#services.policy();
    if (policy.open) {
      this.#grant = policy.authenticate("local", undefined);
      return this.#grant;
    }
    throw new WireError(
      "Unauthorized",
      "Connection is not initialized: send 'initialize' with 'agent' and 'token' first",
    );
  }

  /** `initialize`: the grant of the presented identity (throws `Unauthorized`; the old one stays). */
  authenticate(policy: AccessPolicy, agent: string | undefined, token: string | undefined): Grant {
    this.#grant = policy.authenticate(agent, token);
    this.#presented = { agent, token };
    this.#revoked = false;
    return this.#grant;
  }

  /**
   * After a reload: checks the presented agent and token against the new
   * policy. A rotated or removed token leaves the connection unauthorized
   * from its next request on; the implicit local user is derived again.
   */
  reauthenticate(policy: AccessPolicy): void {
    if (!this.#grant) return;
    const presented = this.#presented;
    this.#grant = null;
    if (!presented) return;
    try {
      this.#grant = policy.authenticate(presented.agent, presented.token);
    } catch {
      this.#presented = null;
      this.#revoked = true;
    }
  }

  /** Answers every in-flight request now with `RequestCancelled` and aborts its work. */
  cancelAll(message: string): void {
    for (const request of this.#inFlight) this.#cancel(request, message);
  }

  /** The counters this session counts into: the daemon's, or its restricted agent's own. */
  #counters(): Counters {
    return countersFor(this.#services.counters, this.#grant);
  }

  async #frame(bytes: Uint8Array): Promise<void> {
    const parsed = parseFrame(bytes);
    if (parsed.error) {
      this.#counters().error(codeName((parsed.error as { error: { code: number } }).error.code));
      this.connection.send(parsed.error);
      return;
    }
    const answers = await Promise.all(parsed.items.map((item) => {
      if (item.error) {
        this.#counters().error(codeName((item.error as { error: { code: number } }).error.code));
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
    const { log } = this.#services;
    const isNotification = !("id" in request);
    const id = request.id ?? null;
    if (request.method === "$/cancelRequest") {
      this.#cancelById(request.params);
      return null;
    }
    const known = this.#services.knows(this, request.method);
    if (this.#inFlight.size >= FRAME_LIMITS.inFlight) {
      const counters = this.#counters();
      counters.request(request.method, known);
      counters.error("IndexBusy");
      if (isNotification) return null;
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
    this.#counters().request(request.method, known);
    const { response, outcome } = await this.#run(request, trace);
    const error = "error" in response ? response.error : null;
    // Counted for whoever the session is now (an `initialize` may just have said).
    if (error) this.#counters().error(codeName(error.code));
    log.event("request", {
      connection: this.connection.number,
      agent: this.#grant?.agent ?? null,
      method: request.method,
      id,
      trace_id: trace,
      ms: Math.round((performance.now() - started) * 10) / 10,
      outcome: error ? codeName(error.code) : "ok",
      ...(outcome?.results === undefined ? {} : { results: outcome.results }),
      ...(outcome?.cached ? { cached: true } : {}),
      ...(outcome?.backend ? { backend: outcome.backend } : {}),
      ...(outcome?.fallback ? { fallback: outcome.fallback } : {}),
      ...(outcome?.runner ? { runner: outcome.runner } : {}),
    });
    return isNotification ? null : response;
  }

  /**
   * Routes a request on the workspace current at its start, as in-flight work a
   * cancellation, shutdown or disconnection may answer early.
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
    const entry: InFlight = { id, notification: !("id" in request), controller, settle };
    this.#inFlight.add(entry);
    let outcome: Outcome | null = null;
    try {
      const work = this.#services.route(this, request, {
        workspace: lease.workspace,
        signal: controller.signal,
        trace,
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
      if (!request.notification && request.id === target) {
        this.#cancel(request, "Request cancelled");
      }
    }
  }

  #cancel(request: InFlight, message: string): void {
    request.controller.abort();
    request.settle(errorResponse(request.id, new WireError("RequestCancelled", message)));
  }
}
