/**
 * A small Language Server Protocol client over stdio, for measuring Sextant's
 * navigation against a language server (scripts/nav_quality.ts): framed
 * JSON-RPC requests and responses, and answers to the few server-to-client
 * requests servers wait for. Tests never need it.
 */
import { fileURLToPath, pathToFileURL } from "node:url";

export interface LspLocation {
  path: string;
  line: number;
  column: number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class LspClient {
  readonly #process: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, Pending>();
  readonly #opened = new Set<string>();
  #nextId = 1;
  #buffer = new Uint8Array(0);
  readonly root: string;

  private constructor(process: Deno.ChildProcess, root: string) {
    this.#process = process;
    this.root = root;
    this.#writer = process.stdin.getWriter();
    this.#readLoop();
  }

  /** Starts a server (`command` as an argv list) for a workspace root and initializes it. */
  static async start(
    command: string[],
    root: string,
    initializationOptions: Record<string, unknown> = {},
  ): Promise<LspClient> {
    const process = new Deno.Command(command[0], {
      args: command.slice(1),
      cwd: root,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const client = new LspClient(process, root);
    const rootUri = pathToFileURL(root).href;
    await client.request("initialize", {
      processId: Deno.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: "root" }],
      capabilities: {
        textDocument: {
          definition: { linkSupport: false },
          references: {},
          synchronization: { didSave: false },
        },
        workspace: { workspaceFolders: true, configuration: true },
      },
      initializationOptions,
    });
    client.notify("initialized", {});
    return client;
  }

  request(method: string, params: unknown, timeoutMs = 60_000): Promise<unknown> {
    const id = this.#nextId++;
    const promise = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (value) => (clearTimeout(timer), resolve(value)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
    });
    this.#send({ jsonrpc: "2.0", id, method, params });
    return promise;
  }

  notify(method: string, params: unknown): void {
    this.#send({ jsonrpc: "2.0", method, params });
  }

  /** Opens a document once (servers answer only for documents they know). */
  open(path: string, languageId: string): void {
    if (this.#opened.has(path)) return;
    this.#opened.add(path);
    this.notify("textDocument/didOpen", {
      textDocument: {
        uri: pathToFileURL(`${this.root}/${path}`).href,
        languageId,
        version: 1,
        text: Deno.readTextFileSync(`${this.root}/${path}`),
      },
    });
  }

  /** Definition locations of the name at a 1-based position. */
  async definition(path: string, line: number, column: number): Promise<LspLocation[]> {
    const answer = await this.request(
      "textDocument/definition",
      this.#position(path, line, column),
    );
    return this.#locations(answer);
  }

  /** Reference locations (declaration excluded) of the name at a 1-based position. */
  async references(path: string, line: number, column: number): Promise<LspLocation[]> {
    const answer = await this.request("textDocument/references", {
      ...this.#position(path, line, column),
      context: { includeDeclaration: false },
    });
    return this.#locations(answer);
  }

  async close(): Promise<void> {
    try {
      await this.request("shutdown", null, 5_000);
      this.notify("exit", null);
    } catch { /* the server is gone */ }
    try {
      this.#process.kill();
    } catch { /* exited */ }
    await this.#process.status.catch(() => {});
  }

  #position(path: string, line: number, column: number) {
    return {
      textDocument: { uri: pathToFileURL(`${this.root}/${path}`).href },
      position: { line: line - 1, character: column - 1 },
    };
  }

  #locations(answer: unknown): LspLocation[] {
    const list = answer === null || answer === undefined
      ? []
      : Array.isArray(answer)
      ? answer
      : [answer];
    return list.map((item) => {
      const uri = (item.uri ?? item.targetUri) as string;
      const range = (item.range ?? item.targetSelectionRange ?? item.targetRange) as {
        start: { line: number; character: number };
      };
      const full = uri.startsWith("file:") ? fileURLToPath(uri) : uri;
      const path = full.startsWith(`${this.root}/`) ? full.slice(this.root.length + 1) : full;
      return { path, line: range.start.line + 1, column: range.start.character + 1 };
    });
  }

  #send(message: unknown): void {
    const body = new TextEncoder().encode(JSON.stringify(message));
    const header = new TextEncoder().encode(`Content-Length: ${body.length}\r\n\r\n`);
    const frame = new Uint8Array(header.length + body.length);
    frame.set(header);
    frame.set(body, header.length);
    this.#writer.write(frame).catch(() => {});
  }

  async #readLoop(): Promise<void> {
    try {
      for await (const chunk of this.#process.stdout) {
        const merged = new Uint8Array(this.#buffer.length + chunk.length);
        merged.set(this.#buffer);
        merged.set(chunk, this.#buffer.length);
        this.#buffer = merged;
        this.#drain();
      }
    } catch { /* closed */ }
    for (const pending of this.#pending.values()) pending.reject(new Error("server exited"));
    this.#pending.clear();
  }

  #drain(): void {
    while (true) {
      const text = new TextDecoder().decode(
        this.#buffer.subarray(0, Math.min(this.#buffer.length, 200)),
      );
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return;
      const match = /Content-Length: (\d+)/i.exec(text.slice(0, end));
      if (!match) throw new Error("LSP frame without Content-Length");
      const start = end + 4;
      const length = Number(match[1]);
      if (this.#buffer.length < start + length) return;
      const body = new TextDecoder().decode(this.#buffer.subarray(start, start + length));
      this.#buffer = this.#buffer.slice(start + length);
      this.#dispatch(JSON.parse(body));
    }
  }

  #dispatch(
    message: {
      id?: number;
      method?: string;
      result?: unknown;
      error?: { message: string };
      params?: unknown;
    },
  ): void {
    if (message.method !== undefined && message.id !== undefined) {
      // Server-to-client requests: configuration gets empty sections, the rest null.
      const result = message.method === "workspace/configuration"
        ? ((message.params as { items?: unknown[] })?.items ?? []).map(() => null)
        : null;
      this.#send({ jsonrpc: "2.0", id: message.id, result });
      return;
    }
    if (message.id === undefined) return;
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.error) pending.reject(new Error(message.error.message));
    else pending.resolve(message.result);
  }
}
