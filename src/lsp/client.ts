/**
 * One language server process and its JSON-RPC connection over stdio (Content-Length framing by
 * vscode-jsonrpc): initialize/initialized with the repository root as the workspace folder,
 * documents opened with the text Sextant gives, requests bounded by a timeout (cancelled with
 * `$/cancelRequest`), answers to the server-to-client requests servers wait on, and shutdown.
 */
import { Readable, Writable } from "node:stream";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  CancellationTokenSource,
  createMessageConnection,
  type InitializeParams,
  type InitializeResult,
  type MessageConnection,
  ResponseError,
  type ServerCapabilities,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { type LaunchPlan, lookup } from "./safety.ts";

/** Why a request got no answer: a condition the manager and router catch. */
export class LspRequestError extends Error {
  constructor(readonly reason: "timeout" | "crashed" | "error", message: string) {
    super(message);
    this.name = "LspRequestError";
  }
}

export interface ClientOptions {
  root: string;
  startTimeoutMs: number;
  /** `$/progress` begin/end of the server's work (indexing). */
  onProgress?: (kind: "begin" | "end", token: string | number) => void;
  /** A `window/logMessage` line (servers tell their startup steps there). */
  onLog?: (message: string) => void;
  /** The process ended (crash, exit, kill); `description` says how. */
  onExit?: (description: string) => void;
}

/** Open documents a server keeps at most; the least recently used is closed past it. */
const MAX_OPEN_DOCUMENTS = 200;
const STDERR_TAIL = 2_000;

export class LspClient {
  readonly pid: number;
  capabilities: ServerCapabilities = {};
  serverName = "";
  readonly exited: Promise<string>;
  #alive = true;
  #closed = false;
  #stderr = "";
  readonly #process: Deno.ChildProcess;
  readonly #connection: MessageConnection;
  readonly #stdout: Readable;
  readonly #stdin: Writable;
  readonly #documents = new Map<string, { version: number; text: string }>();
  readonly #pending = new Set<(error: LspRequestError) => void>();
  readonly #plan: LaunchPlan;
  readonly #root: string;
  readonly #options: ClientOptions;

  private constructor(process: Deno.ChildProcess, plan: LaunchPlan, options: ClientOptions) {
    this.#process = process;
    this.#plan = plan;
    this.#root = options.root;
    this.#options = options;
    this.pid = process.pid;
    this.#stdout = Readable.fromWeb(process.stdout as never);
    this.#stdin = Writable.fromWeb(process.stdin as never);
    this.#stdout.on("error", () => {});
    this.#stdin.on("error", () => {});
    this.#connection = createMessageConnection(
      new StreamMessageReader(this.#stdout),
      new StreamMessageWriter(this.#stdin),
    );
    this.#connection.onError(() => {});
    // A server whose stdout closed can answer nothing more: end it (a crash to the manager).
    this.#connection.onClose(() => {
      this.#closed = true;
      if (this.#alive) this.kill();
    });
    this.#connection.onRequest((method: string, params: unknown) =>
      this.#answerServer(method, params)
    );
    this.#connection.onNotification(
      "$/progress",
      (params: { token: string | number; value?: { kind?: string } }) => {
        const kind = params?.value?.kind;
        if (kind === "begin" || kind === "end") options.onProgress?.(kind, params.token);
      },
    );
    this.#connection.onNotification("window/logMessage", (params: { message?: string }) => {
      if (typeof params?.message === "string") options.onLog?.(params.message);
    });
    this.#connection.listen();
    const stderr = process.stderr.getReader();
    this.#readStderr(stderr);
    this.exited = process.status.then((status) => {
      this.#alive = false;
      const tail = this.#stderr.trim().split("\n").slice(-2).join(" | ");
      const description =
        (status.signal ? `killed by ${status.signal}` : `exited with code ${status.code}`) +
        (tail ? `: ${tail}` : "");
      for (const reject of this.#pending) {
        reject(new LspRequestError("crashed", `the server ${description}`));
      }
      this.#pending.clear();
      this.#connection.dispose();
      this.#stdout.destroy();
      this.#stdin.destroy();
      // A child the server left behind may hold stderr open: stop reading it.
      stderr.cancel().catch(() => {});
      options.onExit?.(description);
      return description;
    });
  }

  /** Spawns the planned command in the repository root (not yet initialized). */
  static spawn(plan: LaunchPlan, options: ClientOptions): LspClient {
    const process = new Deno.Command(plan.executable, {
      args: plan.args,
      cwd: options.root,
      env: plan.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new LspClient(process, plan, options);
  }

  /** initialize (bounded by `startTimeoutMs`) and initialized; on failure the process is killed. */
  async initialize(): Promise<void> {
    try {
      const result = await this.request<InitializeResult>(
        "initialize",
        this.#initializeParams(),
        this.#options.startTimeoutMs,
      );
      this.capabilities = result?.capabilities ?? {};
      this.serverName = [result?.serverInfo?.name, result?.serverInfo?.version]
        .filter(Boolean).join(" ");
      // Settings are pulled by the server (workspace/configuration); pushing them as well
      // makes servers such as pyright apply their configuration twice.
      this.#notify("initialized", {});
    } catch (error) {
      await this.kill();
      if (error instanceof LspRequestError && error.reason === "timeout") {
        throw new LspRequestError(
          "timeout",
          `initialize did not answer within ${this.#options.startTimeoutMs} ms`,
        );
      }
      throw error;
    }
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Sends a request; rejects with `LspRequestError` on timeout, exit or an error answer. */
  request<T>(method: string, params: unknown, timeoutMs: number): Promise<T> {
    if (!this.#alive || this.#closed) {
      return Promise.reject(new LspRequestError("crashed", "the server is not running"));
    }
    return new Promise<T>((resolve, reject) => {
      const cancel = new CancellationTokenSource();
      let settled = false;
      const finish = (action: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#pending.delete(onExit);
        cancel.dispose();
        action();
      };
      const onExit = (error: LspRequestError) => finish(() => reject(error));
      const timer = setTimeout(() => {
        if (this.#alive && !this.#closed) cancel.cancel();
        finish(() =>
          reject(new LspRequestError("timeout", `${method} timed out after ${timeoutMs} ms`))
        );
      }, timeoutMs);
      this.#pending.add(onExit);
      this.#connection.sendRequest(method, params, cancel.token).then(
        (value) => finish(() => resolve(value as T)),
        (error) =>
          finish(() =>
            reject(
              error instanceof ResponseError
                ? new LspRequestError("error", `${method}: ${error.message} (code ${error.code})`)
                : new LspRequestError(
                  this.#alive ? "error" : "crashed",
                  `${method}: ${(error as Error)?.message ?? error}`,
                ),
            )
          ),
      );
    });
  }

  /** Makes the server see `text` for a repository-relative path (didOpen, else didChange). */
  syncDocument(path: string, languageId: string, text: string): void {
    const uri = pathToFileURL(join(this.#root, path)).href;
    const open = this.#documents.get(uri);
    if (open) {
      this.#documents.delete(uri);
      this.#documents.set(uri, open);
      if (open.text === text) return;
      open.version++;
      open.text = text;
      this.#notify("textDocument/didChange", {
        textDocument: { uri, version: open.version },
        contentChanges: [{ text }],
      });
      return;
    }
    this.#documents.set(uri, { version: 1, text });
    this.#notify("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } });
    if (this.#documents.size > MAX_OPEN_DOCUMENTS) {
      const [oldest] = this.#documents.keys();
      this.#documents.delete(oldest);
      this.#notify("textDocument/didClose", { textDocument: { uri: oldest } });
    }
  }

  /** The text the server holds for an open document, or null when it reads the file itself. */
  documentText(path: string): string | null {
    return this.#documents.get(pathToFileURL(join(this.#root, path)).href)?.text ?? null;
  }

  /** shutdown + exit, then SIGTERM and SIGKILL if the process is still there. */
  async stop(graceMs = 2_000): Promise<void> {
    if (this.#alive) {
      try {
        await this.request("shutdown", null, graceMs);
        this.#notify("exit", null);
      } catch { /* it will be killed */ }
      if (!(await settlesWithin(this.exited, graceMs))) await this.kill();
    }
    await this.exited;
  }

  /** Ends the process now (SIGTERM, then SIGKILL after a second). */
  async kill(): Promise<void> {
    if (this.#alive) {
      this.#signal("SIGTERM");
      if (!(await settlesWithin(this.exited, 1_000))) this.#signal("SIGKILL");
    }
    await this.exited;
  }

  #signal(signal: Deno.Signal): void {
    try {
      this.#process.kill(signal);
    } catch { /* already gone */ }
  }

  #notify(method: string, params: unknown): void {
    if (!this.#alive || this.#closed) return;
    this.#connection.sendNotification(method, params).catch(() => {});
  }

  #initializeParams(): InitializeParams {
    const uri = pathToFileURL(this.#root).href;
    return {
      processId: Deno.pid,
      clientInfo: { name: "sextant" },
      rootUri: uri,
      rootPath: this.#root,
      workspaceFolders: [{ uri, name: this.#root.split("/").pop() || "root" }],
      initializationOptions: this.#plan.initializationOptions,
      capabilities: {
        general: { positionEncodings: ["utf-16"] },
        window: { workDoneProgress: true },
        workspace: {
          configuration: true,
          workspaceFolders: true,
          didChangeConfiguration: { dynamicRegistration: false },
          symbol: { dynamicRegistration: false },
        },
        textDocument: {
          synchronization: { dynamicRegistration: false, didSave: false },
          definition: { dynamicRegistration: false, linkSupport: false },
          references: { dynamicRegistration: false },
          callHierarchy: { dynamicRegistration: false },
          documentSymbol: { dynamicRegistration: false, hierarchicalDocumentSymbolSupport: true },
        },
      },
      trace: "off",
    };
  }

  /** Server-to-client requests: answered at once so no server waits on Sextant. */
  #answerServer(method: string, params: unknown): unknown {
    switch (method) {
      case "workspace/configuration": {
        const items = (params as { items?: { section?: string }[] })?.items ?? [];
        return items.map((item) =>
          item.section ? lookup(this.#plan.settings, item.section) ?? null : this.#plan.settings
        );
      }
      case "workspace/workspaceFolders": {
        const uri = pathToFileURL(this.#root).href;
        return [{ uri, name: this.#root.split("/").pop() || "root" }];
      }
      case "workspace/applyEdit":
        return { applied: false, failureReason: "Sextant never edits files" };
      case "client/registerCapability":
      case "client/unregisterCapability":
      case "window/workDoneProgress/create":
      case "window/showMessageRequest":
      case "window/showDocument":
      case "workspace/semanticTokens/refresh":
      case "workspace/codeLens/refresh":
      case "workspace/inlayHint/refresh":
      case "workspace/inlineValue/refresh":
      case "workspace/diagnostic/refresh":
      case "workspace/foldingRange/refresh":
        return null;
      default:
        return new ResponseError(-32601, `Unhandled method ${method}`);
    }
  }

  async #readStderr(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) return;
        this.#stderr = (this.#stderr + decoder.decode(value, { stream: true })).slice(-STDERR_TAIL);
      }
    } catch { /* closed */ }
  }
}

/** Whether a promise settles within `ms` (the timer is cleared either way). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
