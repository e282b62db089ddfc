/**
 * Where the MCP server's tool calls go: the daemon that serves the same
 * workspace when one answers on the socket, else one embedded workspace kept
 * open for the server's life. Both apply the same policy through the same
 * `executeAction`; a hidden repository answers like a missing one in both.
 */
import { attachDaemon, type AttachedDaemon, type Identity } from "../daemon/caller.ts";
import { ConnectionClosed } from "../daemon/client.ts";
import type { TraceLog } from "../daemon/observe.ts";
import type { RefreshProgress } from "../indexer/refresh.ts";
import { METHODS } from "../protocol/methods.ts";
import type { Envelope } from "../protocol/types.ts";
import type { WorkspaceConfig } from "../workspace/config.ts";
import type { WorkspaceOptions } from "../workspace/workspace.ts";
import { loadWorkspaceConfig } from "../workspace/config.ts";
import type { EmbeddedBackend } from "./embedded.ts";

/** An answer and whether paths need their repository in front (more than one visible). */
export interface Answer {
  envelope: Envelope;
  multiRepo: boolean;
}

export interface CallOptions {
  /** Aborted when the client cancels the call. */
  signal?: AbortSignal;
  onProgress?: (repo: string, progress: RefreshProgress) => void;
}

/** One way of answering a tool call. */
export interface Backend {
  readonly mode: "daemon" | "embedded";
  /** The actions the caller may use (those this build describes). */
  readonly actions: string[];
  /** How many repositories the caller sees. */
  readonly repositoryCount: number;
  /** Runs an action; throws `WireError`, `RpcFailure` or, for a defect, anything else. */
  call(action: string, params: Record<string, unknown>, options: CallOptions): Promise<Answer>;
  close(): void;
}

/** Forwards to the daemon over its socket; a cancelled call sends `$/cancelRequest`. */
class DaemonBackend implements Backend {
  readonly mode = "daemon";
  readonly #attached: AttachedDaemon;
  #alive = true;

  constructor(attached: AttachedDaemon) {
    this.#attached = attached;
    attached.client.done.then(() => (this.#alive = false));
  }

  /** False once the daemon closed the connection (it stopped, or this side closed it). */
  get alive(): boolean {
    return this.#alive;
  }

  get actions(): string[] {
    return this.#attached.hello.actions.filter((action) => Object.hasOwn(METHODS, action));
  }

  get repositoryCount(): number {
    return this.#attached.hello.repositories.length;
  }

  async call(
    action: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Answer> {
    const { client } = this.#attached;
    const id = client.nextId;
    const cancel = () => client.notify("$/cancelRequest", { id }).catch(() => {});
    options.signal?.addEventListener("abort", cancel, { once: true });
    try {
      const onProgress = options.onProgress;
      const envelope = await client.request(action, params, {
        onProgress: onProgress
          ? (p) => onProgress(p.repo as string, p as unknown as RefreshProgress)
          : undefined,
      }) as Envelope;
      return { envelope, multiRepo: this.repositoryCount > 1 };
    } finally {
      options.signal?.removeEventListener("abort", cancel);
    }
  }

  close(): void {
    this.#attached.client.close();
  }
}

export interface BackendOptions {
  workspace: WorkspaceOptions;
  /** The daemon's socket (default: the CLI's rule, `socketPath`). */
  socket?: string;
  identity: Identity;
  /** Never forward to a daemon. */
  embedded?: boolean;
  /** Hears the embedded workspace's refreshes. */
  log?: TraceLog;
}

/**
 * Chooses per call: the daemon while its connection lives (one that starts
 * later is found by the next call), else the embedded workspace, opened once.
 */
export class Backends {
  readonly #options: BackendOptions;
  readonly #config: WorkspaceConfig;
  #daemon: DaemonBackend | null;
  #embedded: EmbeddedBackend | null;
  #choosing: Promise<Backend> | null = null;

  private constructor(
    options: BackendOptions,
    config: WorkspaceConfig,
    backend: DaemonBackend | EmbeddedBackend,
  ) {
    this.#options = options;
    this.#config = config;
    this.#daemon = backend instanceof DaemonBackend ? backend : null;
    this.#embedded = backend instanceof DaemonBackend ? null : backend;
  }

  /**
   * Attaches to the daemon or opens the workspace, and authenticates the
   * identity now: a wrong token fails here with the socket's message.
   */
  static async start(options: BackendOptions): Promise<Backends> {
    const config = await loadWorkspaceConfig(options.workspace);
    const backend = await attach(options, config) ?? await openEmbedded(options);
    return new Backends(options, config, backend);
  }

  /** The backend for the next call. */
  current(): Promise<Backend> {
    if (this.#daemon?.alive) return Promise.resolve(this.#daemon);
    this.#choosing ??= this.#choose().finally(() => (this.#choosing = null));
    return this.#choosing;
  }

  /**
   * Runs one call on the current backend. A daemon that went away before it answered (its
   * connection closed, perhaps before this side had read the end of it) is dropped and the call
   * runs once more on whatever serves the workspace now: another daemon or the embedded one.
   */
  async call(action: string, params: Record<string, unknown>, options: CallOptions): Promise<{
    backend: Backend;
    answer: Answer;
  }> {
    const backend = await this.current();
    try {
      return { backend, answer: await backend.call(action, params, options) };
    } catch (error) {
      if (!(error instanceof ConnectionClosed) || backend !== this.#daemon) throw error;
      this.#daemon.close();
      this.#daemon = null;
      const next = await this.current();
      return { backend: next, answer: await next.call(action, params, options) };
    }
  }

  async #choose(): Promise<Backend> {
    this.#daemon = await attach(this.#options, this.#config);
    if (this.#daemon) return this.#daemon;
    this.#embedded ??= await openEmbedded(this.#options);
    return this.#embedded;
  }

  close(): void {
    this.#daemon?.close();
    this.#embedded?.close();
  }
}

/**
 * The workspace opened in this process, the engine loaded only now: a server attached to a
 * daemon never loads it.
 */
async function openEmbedded(options: BackendOptions): Promise<EmbeddedBackend> {
  const { EmbeddedBackend } = await import("./embedded.ts");
  return await EmbeddedBackend.open(options);
}

/** The daemon serving the workspace, initialized with the identity; null when none does. */
async function attach(
  options: BackendOptions,
  config: WorkspaceConfig,
): Promise<DaemonBackend | null> {
  if (options.embedded) return null;
  const attached = await attachDaemon({
    config,
    socket: options.socket,
    identity: options.identity,
  });
  return attached ? new DaemonBackend(attached) : null;
}
