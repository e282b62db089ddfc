/**
 * Routes navigation requests to a repository's language server and maps every answer onto the
 * committed snapshot: hits in Sextant's shape (`backend: lsp:<server>`, `confidence: exact`),
 * snippets cut from the committed text, `fresh: false` where the working tree differs from it,
 * locations outside the repository or outside the index dropped (and counted). Anything that
 * keeps a server from answering is a typed `Fallback`, never a throw.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type {
  CallHierarchyIncomingCall,
  CallHierarchyItem,
  CallHierarchyOutgoingCall,
  Location,
  LocationLink,
  ServerCapabilities,
  SymbolInformation,
  WorkspaceSymbol,
} from "vscode-languageserver-protocol/node";
import type { ResultHit } from "../protocol/types.ts";
import { LspRequestError } from "./client.ts";
import type { Fallback, LspManager, LspSession } from "./manager.ts";
import {
  identifierAt,
  type LspRange,
  repositoryRelativePath,
  snippetLines,
  symbolKindName,
} from "./locations.ts";
import { lineMapping } from "./line_map.ts";

/** The indexed definition that encloses a line, as the index knows it. */
export interface IndexedDefinition {
  symbol: string;
  kind: string;
  signature: string | null;
  start_line: number;
  end_line: number;
}

/** The committed snapshot of one repository, as the caller's index holds it. */
export interface CommittedSnapshot {
  /** The committed text of a repository-relative path, or null when the index does not hold it. */
  text(path: string): string | null | Promise<string | null>;
  /** The innermost indexed definition whose span holds `line` (named `name`, when given). */
  definitionAt?(
    path: string,
    line: number,
    name: string | null,
  ): IndexedDefinition | null | Promise<IndexedDefinition | null>;
  /** The working-tree text of a path (default: read from the repository root). */
  workingText?(path: string): Promise<string | null>;
  /**
   * Whether the caller may see a path (default: every path). A location in a path it may not
   * see is left out before anything is counted, so no count tells it the path exists.
   */
  visible?(path: string): boolean;
}

/** One routed request: where, in which language, against which snapshot. */
export interface RouteRequest {
  repo: string;
  /** Sextant's language of the file (`python`, `typescript`, `tsx`, …). */
  language: string;
  snapshot: CommittedSnapshot;
  /** How long to wait for a starting server (default 0: fall back at once). */
  waitForReadyMs?: number;
  /** A bound on each server request tighter than the server's `request_timeout_ms`. */
  timeoutMs?: number;
}

/** A use or definition site: 1-based line, 1-based column in UTF-16 code units. */
export interface SourcePosition {
  path: string;
  line: number;
  column: number;
}

export interface LspAnswer {
  ok: true;
  /** `lsp:<server>`, e.g. `lsp:python`. */
  backend: string;
  confidence: "exact";
  /** False when any hit's file differs in the working tree from the committed snapshot. */
  fresh: boolean;
  hits: ResultHit[];
  /**
   * Locations left out: outside the repository root, in files the index does not hold, or on
   * lines of the working tree that the committed text does not have.
   */
  dropped: { outside_root: number; not_indexed: number; not_committed: number };
  /** Time spent in the server's requests, and in the whole routed call. */
  server_ms: number;
  total_ms: number;
}

export type RouteResult = LspAnswer | Fallback;

/** The navigation actions a server can answer. */
export class LspRouter {
  readonly #manager: LspManager;

  constructor(manager: LspManager) {
    this.#manager = manager;
  }

  /** Where the name at a position is defined (`textDocument/definition`). */
  definition(request: RouteRequest, at: SourcePosition): Promise<RouteResult> {
    return this.#route(request, "definitionProvider", at, async (call) => {
      const answer = await call.request<Location | Location[] | LocationLink[] | null>(
        "textDocument/definition",
        call.positionParams(at),
      );
      const list = answer === null ? [] : Array.isArray(answer) ? answer : [answer];
      if (list.length === 0) return call.noResult("the server found no definition");
      for (const item of list) {
        const link = "targetUri" in item;
        await call.addHit({
          uri: link ? item.targetUri : item.uri,
          name: link ? item.targetSelectionRange : item.range,
          span: link ? item.targetRange : item.range,
          kind: "definition",
          describe: true,
        });
      }
    });
  }

  /** Every use of the name at a position (`textDocument/references`). */
  references(
    request: RouteRequest,
    at: SourcePosition,
    options: { includeDeclaration?: boolean } = {},
  ): Promise<RouteResult> {
    return this.#route(request, "referencesProvider", at, async (call) => {
      const answer = await call.request<Location[] | null>("textDocument/references", {
        ...call.positionParams(at),
        context: { includeDeclaration: options.includeDeclaration ?? false },
      });
      for (const location of answer ?? []) {
        await call.addHit({
          uri: location.uri,
          name: location.range,
          span: location.range,
          kind: "reference",
        });
      }
    });
  }

  /** Who calls the function at a position (call hierarchy, incoming). */
  callers(request: RouteRequest, at: SourcePosition): Promise<RouteResult> {
    return this.#route(request, "callHierarchyProvider", at, async (call) => {
      const items = await call.prepareCallHierarchy(at);
      if (items.length === 0) return call.noResult("the server found no function at the position");
      for (const item of items) {
        if (call.hidden(item.uri)) continue;
        const subject = await call.node(item);
        const incoming = await call.request<CallHierarchyIncomingCall[] | null>(
          "callHierarchy/incomingCalls",
          { item },
        );
        for (const caller of incoming ?? []) {
          for (const range of caller.fromRanges) {
            await call.addHit({
              uri: caller.from.uri,
              name: range,
              span: range,
              kind: "calls",
              symbol: caller.from.name,
              extra: {
                relation: "calls",
                direction: "in",
                node: await call.node(caller.from),
                subject,
              },
            });
          }
        }
      }
    });
  }

  /** What the function at a position calls (call hierarchy, outgoing). */
  callees(request: RouteRequest, at: SourcePosition): Promise<RouteResult> {
    return this.#route(request, "callHierarchyProvider", at, async (call) => {
      const items = await call.prepareCallHierarchy(at);
      if (items.length === 0) return call.noResult("the server found no function at the position");
      for (const item of items) {
        if (call.hidden(item.uri)) continue;
        const subject = await call.node(item);
        const outgoing = await call.request<CallHierarchyOutgoingCall[] | null>(
          "callHierarchy/outgoingCalls",
          { item },
        );
        for (const callee of outgoing ?? []) {
          if (call.hidden(callee.to.uri)) continue;
          const node = await call.node(callee.to);
          if (node === null) {
            // The callee is defined outside the repository (a library, the runtime).
            call.dropped.outside_root += callee.fromRanges.length;
            continue;
          }
          for (const range of callee.fromRanges) {
            await call.addHit({
              uri: item.uri,
              name: range,
              span: range,
              kind: "calls",
              symbol: callee.to.name,
              expect: callee.to.name,
              extra: { relation: "calls", direction: "out", node, subject },
            });
          }
        }
      }
    });
  }

  /**
   * Symbols whose name matches a query across the repository (`workspace/symbol`). `anchor`, a
   * file of the server's language, is opened first: a server that builds its project from the
   * open files (typescript-language-server) has none before.
   */
  workspaceSymbols(
    request: RouteRequest,
    query: string,
    options: { limit?: number; anchor?: string } = {},
  ): Promise<RouteResult> {
    const at = options.anchor === undefined ? null : { path: options.anchor, line: 1, column: 1 };
    return this.#route(request, "workspaceSymbolProvider", at, async (call) => {
      const answer = await call.request<(SymbolInformation | WorkspaceSymbol)[] | null>(
        "workspace/symbol",
        { query },
      );
      for (const symbol of answer ?? []) {
        if (call.hits.length >= (options.limit ?? 100)) break;
        if (!("range" in symbol.location)) continue;
        const range = symbol.location.range;
        await call.addHit({
          uri: symbol.location.uri,
          name: range,
          span: range,
          kind: symbolKindName(symbol.kind),
          symbol: symbol.containerName ? `${symbol.containerName}.${symbol.name}` : symbol.name,
        });
      }
    });
  }

  async #route(
    request: RouteRequest,
    capability: keyof ServerCapabilities,
    at: SourcePosition | null,
    body: (call: RoutedCall) => Promise<Fallback | void>,
  ): Promise<RouteResult> {
    const started = performance.now();
    const acquired = await this.#manager.acquire(request.repo, request.language, {
      waitForReadyMs: request.waitForReadyMs,
      timeoutMs: request.timeoutMs,
    });
    if (!acquired.ok) return acquired;
    const session = acquired.session;
    if (!session.capabilities[capability]) {
      return {
        ok: false,
        reason: "unsupported",
        message: `the ${session.server} server does not offer ${capability}`,
      };
    }
    const call = new RoutedCall(session, request);
    if (at !== null) {
      const text = await call.committed(at.path);
      if (text === null) {
        return {
          ok: false,
          reason: "not_indexed",
          message: `${at.path} is not in the committed snapshot`,
        };
      }
      session.syncDocument(at.path, request.language, text);
      call.expected = identifierAt(text, { line: at.line - 1, character: at.column - 1 });
    }
    try {
      const fallback = await body(call);
      if (fallback) return fallback;
    } catch (error) {
      if (error instanceof LspRequestError) {
        return { ok: false, reason: error.reason, message: error.message };
      }
      throw error;
    }
    return {
      ok: true,
      backend: `lsp:${session.server}`,
      confidence: "exact",
      fresh: !call.stale,
      hits: call.hits,
      dropped: call.dropped,
      server_ms: Math.round(call.serverMs * 10) / 10,
      total_ms: Math.round((performance.now() - started) * 10) / 10,
    };
  }
}

/** The state of one routed request: the files read, the hits so far, the time in the server. */
class RoutedCall {
  readonly hits: ResultHit[] = [];
  readonly dropped = { outside_root: 0, not_indexed: 0, not_committed: 0 };
  serverMs = 0;
  /** Some location lay in a file whose working tree differs from the committed text. */
  stale = false;
  /** The name written at the request's position in the committed text, when there is one. */
  expected: string | null = null;
  readonly #session: LspSession;
  readonly #request: RouteRequest;
  readonly #roots: string[];
  readonly #committed = new Map<string, Promise<string | null>>();
  readonly #working = new Map<string, Promise<string | null>>();
  readonly #mappings = new Map<string, Int32Array | null>();
  /** The text a server is taken to have seen per path (open document, else the working tree). */
  readonly #seenText = new Map<string, string | null>();
  readonly #seen = new Set<string>();

  constructor(session: LspSession, request: RouteRequest) {
    this.#session = session;
    this.#request = request;
    this.#roots = [session.root];
    try {
      const real = Deno.realPathSync(session.root);
      if (real !== session.root) this.#roots.push(real);
    } catch { /* the root is gone; nothing will map */ }
  }

  async request<T>(method: string, params: unknown): Promise<T> {
    const started = performance.now();
    try {
      return await this.#session.request<T>(method, params);
    } finally {
      this.serverMs += performance.now() - started;
    }
  }

  positionParams(at: SourcePosition) {
    return {
      textDocument: { uri: this.#uri(at.path) },
      position: { line: at.line - 1, character: Math.max(0, at.column - 1) },
    };
  }

  noResult(message: string): Fallback {
    return { ok: false, reason: "no_result", message };
  }

  /** The call-hierarchy items at a position (none when no function is there). */
  async prepareCallHierarchy(at: SourcePosition): Promise<CallHierarchyItem[]> {
    const items = await this.request<CallHierarchyItem[] | null>(
      "textDocument/prepareCallHierarchy",
      this.positionParams(at),
    );
    return items ?? [];
  }

  /** Whether a location lies in a path the caller may not see (it is then left out, uncounted). */
  hidden(uri: string): boolean {
    const visible = this.#request.snapshot.visible;
    if (!visible) return false;
    const path = repositoryRelativePath(uri, this.#roots);
    return path !== null && !visible(path);
  }

  committed(path: string): Promise<string | null> {
    let text = this.#committed.get(path);
    if (!text) {
      text = Promise.resolve(this.#request.snapshot.text(path));
      this.#committed.set(path, text);
    }
    return text;
  }

  /** A call-hierarchy item as a node summary, or null when it lies outside the index. */
  async node(item: CallHierarchyItem) {
    const path = repositoryRelativePath(item.uri, this.#roots);
    if (path === null) return null;
    const text = await this.committed(path);
    if (text === null) return null;
    const toCommitted = await this.#lineMap(path, text);
    const start = toCommitted(item.selectionRange.start.line + 1);
    return {
      repo: this.#request.repo,
      path,
      symbol: item.name,
      kind: symbolKindName(item.kind),
      start_line: toCommitted(item.range.start.line + 1) || start,
      end_line: toCommitted(item.range.end.line + 1) || start,
    };
  }

  async addHit(location: {
    uri: string;
    /** The range of the name (selection range). */
    name: LspRange;
    /** The range of the whole site or definition. */
    span: LspRange;
    kind: string;
    symbol?: string;
    describe?: boolean;
    /** The name written at the location (default: the name at the request's position). */
    expect?: string | null;
    extra?: Record<string, unknown>;
  }): Promise<void> {
    const path = repositoryRelativePath(location.uri, this.#roots);
    if (path === null) {
      this.dropped.outside_root++;
      return;
    }
    if (this.#request.snapshot.visible && !this.#request.snapshot.visible(path)) return;
    const text = await this.committed(path);
    if (text === null) {
      this.dropped.not_indexed++;
      return;
    }
    const fresh = (await this.#workingText(path)) === text;
    if (!fresh) this.stale = true;
    let toCommitted = await this.#lineMap(path, text);
    const expect = location.expect === undefined ? this.expected : location.expect;
    const seen = this.#seenText.get(path);
    if (expect && seen !== undefined && seen !== null && seen !== text) {
      // A server whose watcher has not yet read an edit still answers on the older bytes: when
      // the name is written at the location in the committed text and not in the newer text,
      // the location is the committed one.
      const at = location.name.start;
      if (identifierAt(seen, at) !== expect && identifierAt(text, at) === expect) {
        toCommitted = (line) => line;
      }
    }
    const line = toCommitted(location.name.start.line + 1);
    if (line === 0) {
      this.dropped.not_committed++;
      return;
    }
    const column = location.name.start.character + 1;
    const key = `${path}:${line}:${column}:${location.kind}:${location.symbol ?? ""}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    // The name is read where the server saw it: the committed line when the texts agree there.
    const name = identifierAt(text, { line: line - 1, character: location.name.start.character });
    const spanStart = toCommitted(location.span.start.line + 1) || line;
    const spanEnd = toCommitted(location.span.end.line + 1) ||
      line + (location.span.end.line - location.name.start.line);
    let startLine = Math.min(line, spanStart);
    let endLine = Math.max(line, spanEnd);
    let symbol = location.symbol ?? name;
    let kind = location.kind;
    let signature: string | null = null;
    if (location.describe && this.#request.snapshot.definitionAt) {
      const indexed = await this.#request.snapshot.definitionAt(path, line, name);
      if (indexed) {
        ({ symbol, kind, signature } = indexed);
        startLine = indexed.start_line;
        endLine = indexed.end_line;
      }
    }
    const definition = location.kind === "definition" || location.describe;
    this.hits.push({
      repo: this.#request.repo,
      path,
      start_line: startLine,
      end_line: endLine,
      start_column: column,
      end_column: location.name.end.line === location.name.start.line
        ? location.name.end.character + 1
        : null,
      symbol,
      kind,
      signature,
      language: this.#request.language,
      source_kind: "local",
      score: 1,
      snippet: definition
        ? snippetLines(text, startLine, endLine, 12)
        : snippetLines(text, line, Math.max(line, Math.min(endLine, line + 2)), 3),
      backend: `lsp:${this.#session.server}`,
      confidence: "exact",
      evidence: "lsp",
      fresh,
      // Where the name is written (a definition's span may start above it, at a decorator).
      name_line: line,
      // A call site names the callee while the hit names the caller: keep the written name.
      ...(location.kind === "calls" && name !== null && name !== symbol ? { name } : {}),
      ...location.extra,
    });
  }

  #workingText(path: string): Promise<string | null> {
    let text = this.#working.get(path);
    if (!text) {
      const read = this.#request.snapshot.workingText ??
        ((p: string) => Deno.readTextFile(join(this.#session.root, p)).catch(() => null));
      text = read(path);
      this.#working.set(path, text);
    }
    return text;
  }

  /**
   * Server line → committed line (0: not in the committed text). The server saw the text it
   * holds open for the path (committed text Sextant sent), else the working tree.
   */
  async #lineMap(path: string, committed: string): Promise<(line: number) => number> {
    if (!this.#mappings.has(path)) {
      const seen = this.#session.documentText(path) ?? (await this.#workingText(path));
      this.#seenText.set(path, seen);
      this.#mappings.set(
        path,
        seen === null || seen === committed ? null : lineMapping(seen, committed),
      );
    }
    const mapping = this.#mappings.get(path)!;
    return (line) => mapping === null ? line : (mapping[line] ?? 0);
  }

  #uri(path: string): string {
    return pathToFileURL(join(this.#session.root, path)).href;
  }
}
