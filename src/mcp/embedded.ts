/**
 * The MCP server's embedded backend: actions run in this process on one workspace, with the
 * answer cache and the workspace's language servers, under the same policy as the daemon's.
 * Loaded only when no daemon serves the workspace (`backend.ts`).
 */
import { ResultCache } from "../actions/result_cache.ts";
import { type LspBackend, openLspBackend } from "../actions/lsp_route.ts";
import { embeddedGrant, type Grant } from "../daemon/policy.ts";
import { executeAction } from "../daemon/execute.ts";
import { METHODS } from "../protocol/methods.ts";
import { Workspace } from "../workspace/workspace.ts";
import type { Answer, Backend, BackendOptions, CallOptions } from "./backend.ts";

/** Runs actions in this process on one workspace, with the answer cache. */
export class EmbeddedBackend implements Backend {
  readonly mode = "embedded";
  readonly #workspace: Workspace;
  readonly #grant: Grant;
  readonly #cache = new ResultCache();
  /** The language servers of this process; a call waits for a starting one (its request timeout). */
  readonly #lsp: LspBackend | null;

  private constructor(workspace: Workspace, grant: Grant, lsp: LspBackend | null) {
    this.#workspace = workspace;
    this.#grant = grant;
    this.#lsp = lsp;
  }

  /** Opens the workspace and authenticates; throws `Unauthorized` like the socket. */
  static async open(options: BackendOptions): Promise<EmbeddedBackend> {
    // Refreshes run in a Worker, so the stdio loop keeps answering (and hearing cancellations).
    const workspace = await Workspace.open({ ...options.workspace, refreshInWorker: true });
    let grant: Grant;
    try {
      grant = embeddedGrant(workspace, options.identity);
    } catch (error) {
      workspace.close();
      throw error;
    }
    const log = options.log;
    if (log) {
      workspace.observeRefreshes(({ repo, report, error, ms }) => {
        if (report) {
          log.event("refresh", {
            repo,
            generation: report.generation,
            changed: report.changed,
            ms: Math.round(ms),
          });
        } else {log.event("refresh.failed", {
            repo,
            error: (error as Error)?.message ?? `${error}`,
          });}
      });
    }
    const lsp = await openLspBackend(workspace, { wait: "request_timeout" });
    return new EmbeddedBackend(workspace, grant, lsp);
  }

  get actions(): string[] {
    return this.#grant.allowedActions(Object.keys(METHODS));
  }

  get repositoryCount(): number {
    return this.#grant.visibleRepositories(this.#workspace).size;
  }

  async call(
    action: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Answer> {
    const { envelope } = await executeAction({
      workspace: this.#workspace,
      grant: this.#grant,
      action,
      params,
      signal: options.signal,
      onProgress: options.onProgress,
      cache: this.#cache,
      lsp: this.#lsp,
    });
    return { envelope, multiRepo: this.repositoryCount > 1 };
  }

  close(): void {
    // Servers get their shutdown request; the workspace closes without waiting for them.
    this.#lsp?.dispose().catch(() => {});
    this.#workspace.close();
  }
}
