/**
 * The language servers of a workspace, one per (repository, configured server), each moving
 * through `unavailable → starting → indexing → ready ⇄ degraded`, or to `failed`. A server
 * starts on the first request that can use it, is restarted with backoff after a crash, and is
 * shut down when idle. Every server is independent: no request waits on another server, and a
 * request waits on its own server only as long as its caller allows.
 */
import type { ServerCapabilities } from "vscode-languageserver-protocol/node";
import { type LspConfig, type LspServerConfig, serverForLanguage } from "./config.ts";
import { LspClient, LspRequestError } from "./client.ts";
import { type LaunchPlan, launchPlan } from "./safety.ts";
import { languageIdOf } from "./language_ids.ts";

export type ServerState = "unavailable" | "starting" | "indexing" | "ready" | "degraded" | "failed";

/** Why a request was not answered by a server; the caller answers structurally instead. */
export type FallbackReason =
  | "not_configured"
  | "refused"
  | "not_ready"
  | "restarting"
  | "failed"
  | "timeout"
  | "crashed"
  | "error"
  | "unsupported"
  | "no_result"
  | "not_indexed";

export interface Fallback {
  ok: false;
  reason: FallbackReason;
  message: string;
}

/** What `status` shows for one server. */
export interface ServerStatus {
  repo: string;
  server: string;
  languages: string[];
  command: string[];
  profile: string | null;
  state: ServerState;
  refused: boolean;
  pid: number | null;
  server_info: string | null;
  last_error: string | null;
  started_at: string | null;
  ready_at: string | null;
  /** How readiness was decided: `server_log`, `progress_end`, `no_progress`, `ready_timeout`. */
  ready_by: string | null;
  start_ms: number | null;
  ready_ms: number | null;
  restarts: number;
  crashes: number;
  consecutive_failures: number;
  next_restart_at: string | null;
  requests: number;
  answered: number;
  timeouts: number;
  errors: number;
  in_flight: number;
  last_request_ms: number | null;
  p50_request_ms: number | null;
  p95_request_ms: number | null;
  notes: string[];
}

/** A ready server, for one routed request. */
export interface LspSession {
  readonly server: string;
  readonly root: string;
  readonly capabilities: ServerCapabilities;
  /** Makes the server see `text` (the committed text) for a repository-relative path. */
  syncDocument(path: string, language: string, text: string): void;
  /** The text the server holds for a path it has open, or null when it reads the file itself. */
  documentText(path: string): string | null;
  /** One request under the server's timeout; throws `LspRequestError`. */
  request<T>(method: string, params: unknown): Promise<T>;
}

export interface LspManagerOptions {
  config: LspConfig;
  /** The workspace's repositories (real paths); nothing under any root is ever run. */
  repositories: { name: string; root: string }[];
  /** The environment servers' allowlisted variables come from (default: the daemon's). */
  hostEnv?: Record<string, string>;
}

export interface AcquireOptions {
  /** How long to wait for a starting or indexing server (default 0: fall back at once). */
  waitForReadyMs?: number;
  /** A tighter bound than the server's `request_timeout_ms` for this session's requests. */
  timeoutMs?: number;
}

/** After initialize, how long a server has to announce work with `$/progress` before it counts as ready. */
export const PROGRESS_GRACE_MS = 1_000;
/** Consecutive start failures or crashes before restarts stop until the cooldown. */
export const MAX_CONSECUTIVE_FAILURES = 5;
/** Consecutive request timeouts that make the manager restart a server. */
export const MAX_CONSECUTIVE_TIMEOUTS = 3;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;
const FAILED_COOLDOWN_MS = 300_000;

export class LspManager {
  readonly #handles = new Map<string, ServerHandle>();
  readonly #options: LspManagerOptions;
  #disposed = false;

  constructor(options: LspManagerOptions) {
    this.#options = options;
  }

  /** The configured server of a file language, or null. */
  serverFor(language: string): LspServerConfig | null {
    return serverForLanguage(this.#options.config, language);
  }

  /**
   * A session on the ready server of (repo, language), starting it if needed; a fallback when
   * none is configured, it is refused, or it is not ready within `waitForReadyMs`.
   */
  async acquire(
    repo: string,
    language: string,
    options: AcquireOptions = {},
  ): Promise<{ ok: true; session: LspSession } | Fallback> {
    const handle = this.#handle(repo, language);
    if (!handle) {
      return {
        ok: false,
        reason: "not_configured",
        message: `no language server is configured for ${language}`,
      };
    }
    return await handle.acquire(options);
  }

  /** One entry per (repository, configured server); refused commands show their error. */
  status(repo?: string): ServerStatus[] {
    const out: ServerStatus[] = [];
    for (const repository of this.#options.repositories) {
      if (repo !== undefined && repository.name !== repo) continue;
      for (const server of this.#options.config.values()) {
        out.push(this.#handleFor(repository, server).status());
      }
    }
    return out;
  }

  /** Stops every server (shutdown, exit, then signals) and clears every timer. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    await Promise.all([...this.#handles.values()].map((handle) => handle.dispose()));
  }

  #handle(repo: string, language: string): ServerHandle | null {
    if (this.#disposed) return null;
    const server = this.serverFor(language);
    const repository = this.#options.repositories.find((r) => r.name === repo);
    if (!server || !repository) return null;
    return this.#handleFor(repository, server);
  }

  #handleFor(repository: { name: string; root: string }, server: LspServerConfig): ServerHandle {
    const id = `${repository.name}\0${server.key}`;
    let handle = this.#handles.get(id);
    if (!handle) {
      handle = new ServerHandle({
        repo: repository.name,
        root: repository.root,
        server,
        planner: () =>
          launchPlan(server, {
            repositoryRoots: this.#options.repositories.map((r) => r.root),
            hostEnv: this.#options.hostEnv ?? Deno.env.toObject(),
          }),
      });
      this.#handles.set(id, handle);
    }
    return handle;
  }
}

/** One (repository, server): its process, state and counters. */
class ServerHandle {
  state: ServerState = "unavailable";
  readonly #repo: string;
  readonly #root: string;
  readonly #server: LspServerConfig;
  readonly #planner: () => LaunchPlan;
  #plan: LaunchPlan | null = null;
  #refused: string | null = null;
  #client: LspClient | null = null;
  #starting: Promise<void> | null = null;
  /** The process of a start in progress (killed by dispose). */
  #spawning: LspClient | null = null;
  #waiters = new Set<() => void>();
  #progress = new Set<string | number>();
  #sawReadyLog = false;
  #expectedExit: string | null = null;
  #disposed = false;
  #timers = new Map<string, ReturnType<typeof setTimeout>>();
  #lastError: string | null = null;
  #startedAt: number | null = null;
  #readyAt: number | null = null;
  #readyBy: string | null = null;
  #startMs: number | null = null;
  #restarts = 0;
  #crashes = 0;
  #consecutiveFailures = 0;
  #consecutiveTimeouts = 0;
  #nextRestartAt: number | null = null;
  #requests = 0;
  #answered = 0;
  #timeouts = 0;
  #errors = 0;
  #inFlight = 0;
  #durations: number[] = [];

  constructor(options: {
    repo: string;
    root: string;
    server: LspServerConfig;
    planner: () => LaunchPlan;
  }) {
    this.#repo = options.repo;
    this.#root = options.root;
    this.#server = options.server;
    this.#planner = options.planner;
  }

  async acquire(options: AcquireOptions): Promise<{ ok: true; session: LspSession } | Fallback> {
    const waitMs = options.waitForReadyMs ?? 0;
    const timeoutMs = Math.min(options.timeoutMs ?? Infinity, this.#server.requestTimeoutMs);
    this.#touch();
    if (!this.#ensurePlan()) {
      return { ok: false, reason: "refused", message: this.#refused! };
    }
    if (this.#routable()) return { ok: true, session: this.#session(this.#client!, timeoutMs) };
    const restartWithin = this.#nextRestartAt === null
      ? Infinity
      : this.#nextRestartAt - Date.now();
    if (this.#timers.has("restart") && restartWithin < waitMs) {
      // A restart is due within the caller's wait: wait for it and for the server to be ready.
      await this.#waitForReady(waitMs, true);
      if (this.#routable()) return { ok: true, session: this.#session(this.#client!, timeoutMs) };
    }
    if (
      this.state === "failed" && this.#nextRestartAt !== null && Date.now() < this.#nextRestartAt
    ) {
      return {
        ok: false,
        reason: this.#consecutiveFailures >= MAX_CONSECUTIVE_FAILURES ? "failed" : "restarting",
        message: `${this.#lastError ?? "the server failed"}; next start at ${
          new Date(this.#nextRestartAt).toISOString()
        }`,
      };
    }
    if (this.state === "unavailable" || this.state === "failed") this.#start();
    if (waitMs > 0) await this.#waitForReady(waitMs);
    if (this.#routable()) return { ok: true, session: this.#session(this.#client!, timeoutMs) };
    if (this.state === "failed") {
      return { ok: false, reason: "failed", message: this.#lastError ?? "the server failed" };
    }
    return {
      ok: false,
      reason: "not_ready",
      message: `the server is ${this.state}` + (waitMs > 0 ? ` after waiting ${waitMs} ms` : ""),
    };
  }

  status(): ServerStatus {
    this.#ensurePlan();
    const sorted = [...this.#durations].sort((a, b) => a - b);
    const quantile = (q: number) =>
      sorted.length === 0
        ? null
        : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    const iso = (ms: number | null) => ms === null ? null : new Date(ms).toISOString();
    return {
      repo: this.#repo,
      server: this.#server.key,
      languages: this.#server.languages,
      command: this.#server.command,
      profile: this.#plan?.profile ?? null,
      state: this.state,
      refused: this.#refused !== null,
      pid: this.#client?.alive ? this.#client.pid : null,
      server_info: this.#client?.serverName || null,
      last_error: this.#refused ?? this.#lastError,
      started_at: iso(this.#startedAt),
      ready_at: iso(this.#readyAt),
      ready_by: this.#readyBy,
      start_ms: this.#startMs,
      ready_ms: this.#readyAt !== null && this.#startedAt !== null
        ? this.#readyAt - this.#startedAt
        : null,
      restarts: this.#restarts,
      crashes: this.#crashes,
      consecutive_failures: this.#consecutiveFailures,
      next_restart_at: iso(this.#nextRestartAt),
      requests: this.#requests,
      answered: this.#answered,
      timeouts: this.#timeouts,
      errors: this.#errors,
      in_flight: this.#inFlight,
      last_request_ms: this.#durations.at(-1) ?? null,
      p50_request_ms: quantile(0.5),
      p95_request_ms: quantile(0.95),
      notes: this.#plan?.notes ?? [],
    };
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#wake();
    await this.#spawning?.kill();
    await this.#starting?.catch(() => {});
    const client = this.#client;
    if (client) {
      this.#expectedExit = "stopped";
      await client.stop();
    }
  }

  /** A refused command is planned again on each use, so installing the server later works. */
  #ensurePlan(): boolean {
    if (this.#plan && this.#refused === null) return true;
    try {
      this.#plan = this.#planner();
      this.#refused = null;
      if (this.state === "failed" && this.#consecutiveFailures === 0) this.state = "unavailable";
      return true;
    } catch (error) {
      this.#refused = `refused: ${(error as Error).message}`;
      this.state = "failed";
      return false;
    }
  }

  #routable(): boolean {
    return (this.state === "ready" || this.state === "degraded") && this.#client?.alive === true;
  }

  #start(): void {
    if (this.#starting || this.#disposed) return;
    this.#clearTimer("restart");
    this.#nextRestartAt = null;
    this.state = "starting";
    this.#wake();
    this.#startedAt = Date.now();
    this.#readyAt = null;
    this.#readyBy = null;
    this.#startMs = null;
    this.#progress.clear();
    this.#sawReadyLog = false;
    if (this.#crashes > 0 || this.#consecutiveFailures > 0) this.#restarts++;
    const plan = this.#plan!;
    this.#starting = (async () => {
      let client: LspClient | undefined;
      try {
        client = LspClient.spawn(plan, {
          root: this.#root,
          startTimeoutMs: this.#server.startTimeoutMs,
          onProgress: (kind, token) => this.#onProgress(kind, token),
          onLog: (message) => {
            if (plan.readyLog?.test(message)) this.#onReadyLog();
          },
          onExit: (description) => this.#onExit(client, description),
        });
        this.#spawning = client;
        await client.initialize();
      } catch (error) {
        this.#fail(`start failed: ${(error as Error).message}`);
        return;
      }
      if (this.#disposed) {
        this.#expectedExit = "stopped";
        await client.stop();
        return;
      }
      this.#client = client;
      if (!client.alive) {
        this.#client = null;
        this.#crashes++;
        this.#fail(`the server ${await client.exited}`);
        return;
      }
      this.#startMs = Date.now() - this.#startedAt!;
      this.state = "indexing";
      if (this.#sawReadyLog) {
        this.#markReady("server_log");
        return;
      }
      if (!plan.readyLog) {
        this.#setTimer("grace", PROGRESS_GRACE_MS, () => {
          if (this.state === "indexing" && this.#progress.size === 0) {
            this.#markReady("no_progress");
          }
        });
      }
      this.#setTimer("ready", this.#server.readyTimeoutMs, () => {
        if (this.state === "indexing") this.#markReady("ready_timeout");
      });
    })().finally(() => {
      this.#spawning = null;
      this.#starting = null;
      this.#wake();
    });
  }

  #onProgress(kind: "begin" | "end", token: string | number): void {
    if (kind === "begin") this.#progress.add(token);
    else this.#progress.delete(token);
    if (
      kind === "end" && this.state === "indexing" && this.#progress.size === 0 &&
      (!this.#plan?.readyLog || this.#sawReadyLog)
    ) {
      this.#markReady("progress_end");
    }
  }

  /** The server logged the end of its startup work (the profile's `readyLog`). */
  #onReadyLog(): void {
    this.#sawReadyLog = true;
    if (this.state === "indexing" && this.#progress.size === 0) this.#markReady("server_log");
  }

  #markReady(by: string): void {
    this.#clearTimer("grace");
    this.#clearTimer("ready");
    this.state = "ready";
    this.#readyAt = Date.now();
    this.#readyBy = by;
    this.#wake();
  }

  #onExit(client: LspClient | undefined, description: string): void {
    // Before the start finished (client unset) the start itself reports the failure.
    if (client === undefined || this.#client !== client) return;
    this.#client = null;
    this.#clearTimer("grace");
    this.#clearTimer("ready");
    const expected = this.#expectedExit;
    this.#expectedExit = null;
    if (this.#disposed || expected === "stopped" || expected === "idle") {
      this.state = "unavailable";
      this.#wake();
      return;
    }
    this.#crashes++;
    this.#fail(expected ?? `the server ${description}`);
  }

  /** Records a failed start or a crash and schedules the restart with backoff. */
  #fail(message: string): void {
    this.#lastError = message;
    this.#consecutiveFailures++;
    this.state = "failed";
    if (this.#disposed) return;
    if (this.#consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) {
      // Restarts stop; the next request after the cooldown tries again.
      this.#nextRestartAt = Date.now() + FAILED_COOLDOWN_MS;
    } else {
      const delay = Math.min(
        BACKOFF_MAX_MS,
        BACKOFF_BASE_MS * 2 ** (this.#consecutiveFailures - 1),
      );
      this.#nextRestartAt = Date.now() + delay;
      this.#setTimer("restart", delay, () => this.#start());
    }
    this.#wake();
  }

  #session(client: LspClient, timeoutMs: number): LspSession {
    return {
      server: this.#server.key,
      root: this.#root,
      capabilities: client.capabilities,
      syncDocument: (path, language, text) =>
        client.syncDocument(path, languageIdOf(path, language), text),
      documentText: (path) => client.documentText(path),
      request: (method, params) => this.#request(client, method, params, timeoutMs),
    };
  }

  async #request<T>(
    client: LspClient,
    method: string,
    params: unknown,
    timeoutMs: number,
  ): Promise<T> {
    this.#touch();
    this.#requests++;
    this.#inFlight++;
    const started = performance.now();
    try {
      const answer = await client.request<T>(method, params, timeoutMs);
      this.#answered++;
      this.#consecutiveTimeouts = 0;
      this.#consecutiveFailures = 0;
      if (this.state === "degraded") this.state = "ready";
      return answer;
    } catch (error) {
      if (error instanceof LspRequestError && error.reason === "timeout") {
        this.#timeouts++;
        this.#consecutiveTimeouts++;
        this.#lastError = error.message;
        if (this.state === "ready") this.state = "degraded";
        if (this.#consecutiveTimeouts >= MAX_CONSECUTIVE_TIMEOUTS && this.#client === client) {
          this.#consecutiveTimeouts = 0;
          this.#expectedExit = `restarted after ${MAX_CONSECUTIVE_TIMEOUTS} consecutive timeouts`;
          client.kill();
        }
      } else if (error instanceof LspRequestError && error.reason === "error") {
        this.#errors++;
        this.#lastError = error.message;
      }
      throw error;
    } finally {
      this.#inFlight--;
      this.#durations.push(Math.round((performance.now() - started) * 10) / 10);
      if (this.#durations.length > 200) this.#durations.shift();
    }
  }

  /** Restarts the idle timer; an idle server is shut down and starts again when next used. */
  #touch(): void {
    this.#setTimer("idle", this.#server.idleShutdownMs, () => {
      const client = this.#client;
      if (!client) return;
      if (this.#inFlight > 0 || this.#waiters.size > 0 || this.state === "indexing") {
        this.#touch();
        return;
      }
      this.#expectedExit = "idle";
      client.stop();
    });
  }

  /** Resolves when the server leaves starting/indexing (or a pending restart, if asked), or after `ms`. */
  #waitForReady(ms: number, throughRestart = false): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        const pending = this.state === "starting" || this.state === "indexing" ||
          this.#starting !== null || (throughRestart && this.#timers.has("restart"));
        if (pending && !this.#disposed) return;
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(done);
        resolve();
      }, ms);
      this.#waiters.add(done);
      done();
    });
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  #setTimer(name: string, ms: number, action: () => void): void {
    this.#clearTimer(name);
    if (this.#disposed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(name);
      action();
    }, ms);
    Deno.unrefTimer(timer as unknown as number);
    this.#timers.set(name, timer);
  }

  #clearTimer(name: string): void {
    const timer = this.#timers.get(name);
    if (timer !== undefined) clearTimeout(timer);
    this.#timers.delete(name);
  }
}
