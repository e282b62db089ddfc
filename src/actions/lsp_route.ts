/**
 * Language servers as routed backends of `definition`, `references`, `callers`, `callees` and
 * `symbols`. The structural answer is computed first (it names the subject, and it is the
 * fallback); then, on the thread that owns the servers, the request goes to the ready server of
 * the subject's language. Its answer replaces the structural one (`backend: lsp:<server>`,
 * `confidence: exact`, every location on the committed snapshot, hidden paths left out before
 * anything is counted); when the server cannot answer — not ready, timed out, crashed, an error —
 * the structural answer is returned with `fallback_used` and `fallback_reason`.
 *
 * Routed answers are never kept in the answer cache: a server's state and the working tree change
 * without a new generation. A cursor names the backend it continues.
 */
import { WireError } from "../protocol/errors.ts";
import type { Envelope, LspServerStatus, RepositoryStatus, ResultHit } from "../protocol/types.ts";
import { languageOfPath } from "../indexer/languages.ts";
import type { LspServerConfig } from "../workspace/lsp_config.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";
import type { RequestScope } from "../workspace/scope.ts";
import type {
  CommittedSnapshot,
  Fallback,
  IndexedDefinition,
  LspAnswer,
  LspManager,
  LspRouter,
  ServerStatus,
  SourcePosition,
} from "../lsp/mod.ts";
import { lineAt } from "../lsp/locations.ts";
import { type DependencyRecord, loadDependencyState } from "../deps/mod.ts";
import { repositoryStates } from "./envelope.ts";
import { type CursorBinding, isOffset, issueCursor, pageOf, readCursor } from "./paging.ts";

/** The actions a language server may answer. */
export const LSP_ACTIONS: ReadonlySet<string> = new Set([
  "definition",
  "references",
  "callers",
  "callees",
  "symbols",
]);

/** The servers of one process, and how long a request waits for one that is starting. */
export interface LspBackend {
  manager: LspManager;
  router: LspRouter;
  /**
   * How long a request waits for a starting or indexing server: 0 in the daemon (the first
   * request falls back and starts it), the server's request timeout in a one-shot process
   * (which would otherwise never see a ready server).
   */
  waitForReadyMs(server: LspServerConfig): number;
  /** Stops every server. */
  dispose(): Promise<void>;
}

/**
 * The language servers of a workspace (`lsp:` of `sextant.yml`), or null when none is
 * configured. Servers start lazily, on the first request that can use them; the client
 * (vscode-languageserver-protocol, ~130 ms to load) is loaded only for a workspace that
 * configures one.
 */
export async function openLspBackend(
  workspace: Workspace,
  options: { wait: "none" | "request_timeout" },
): Promise<LspBackend | null> {
  const config = workspace.config.lsp;
  if (!config || config.size === 0) return null;
  const { LspManager, LspRouter } = await import("../lsp/mod.ts");
  const manager = new LspManager({
    config,
    repositories: workspace.repositories.map((repo) => ({ name: repo.name, root: repo.root })),
  });
  return {
    manager,
    router: new LspRouter(manager),
    waitForReadyMs: (server) => options.wait === "none" ? 0 : server.requestTimeoutMs,
    dispose: () => manager.dispose(),
  };
}

/** A request's params with a cursor this router issued taken out (its offset kept apart). */
export interface RoutedParams {
  /** The params the structural action runs with. */
  params: Record<string, unknown>;
  /** The offset of a cursor of a routed answer; null when the request has none. */
  lspOffset: number | null;
  /** The request continues a structural answer: it stays structural. */
  structuralCursor: boolean;
}

/**
 * Splits a routed action's cursor off before the structural run: a cursor issued by a routed
 * answer would be refused by the structural action, and one issued by a structural answer keeps
 * the request structural (a page continues the list it came from).
 */
export function routedParams(
  scope: RequestScope,
  action: string,
  params: Record<string, unknown>,
): RoutedParams {
  if (typeof params.cursor !== "string") {
    return { params, lspOffset: null, structuralCursor: false };
  }
  try {
    const offset = readCursor(params.cursor, cursorBinding(scope, action, params), isOffset);
    const { cursor: _cursor, ...rest } = params;
    return { params: rest, lspOffset: offset, structuralCursor: false };
  } catch (error) {
    // A routed answer's cursor issued at an older generation: refused as such.
    if (error instanceof WireError && /^Cannot continue cursor/.test(error.message)) throw error;
    return { params, lspOffset: null, structuralCursor: true };
  }
}

/** A routed answer's cursor: the request's, marked with the backend (so neither reads the other's). */
function cursorBinding(
  scope: RequestScope,
  action: string,
  params: Record<string, unknown>,
): CursorBinding {
  const repos = action === "symbols" ? scope.repositories : scope.visible;
  return {
    action,
    params: { ...params, "$backend": "lsp" },
    repositories: repositoryStates(scope.workspace, repos, scope),
  };
}

const DEFAULT_LIMIT: Record<string, number> = { symbols: 20 };
const NAVIGATION_LIMIT = 50;

/**
 * Routes one answered request to its language server: the server's answer, or the structural
 * one (`structural`) with the reason the server did not answer. `structural` is not changed.
 */
export async function routeToServer(options: {
  backend: LspBackend;
  scope: RequestScope;
  action: string;
  params: Record<string, unknown>;
  routed: RoutedParams;
  structural: Envelope;
}): Promise<Envelope> {
  const { backend, scope, action, routed, structural } = options;
  if (routed.structuralCursor) return structural;
  const params = routed.params;
  if (action === "symbols") return await routeSymbols(options);
  const target = routeTarget(scope, action, params, structural);
  if (target === null) return structural;
  const server = backend.manager.serverFor(target.language);
  if (server === null) return structural;
  const request = {
    repo: target.repo.name,
    language: target.language,
    snapshot: snapshotOf(scope, target.repo),
    waitForReadyMs: backend.waitForReadyMs(server),
  };
  const router = backend.router;
  const result = await untilCancelled(
    scope,
    action === "definition"
      ? router.definition(request, target.at)
      : action === "references"
      ? router.references(request, target.at)
      : action === "callers"
      ? router.callers(request, target.at)
      : router.callees(request, target.at),
  );
  if (!result.ok) return fellBack(structural, server.key, result, routed.lspOffset);
  return routedEnvelope({
    scope,
    action,
    params,
    offset: routed.lspOffset ?? 0,
    structural,
    answers: [{ ...result, hits: labelDependencies(target.repo, result.hits) }],
    limit: NAVIGATION_LIMIT,
    extra: { subject: { repo: target.repo.name, ...target.at, language: target.language } },
  });
}

/** Where a navigation request is about: the position given, else the structural subject's name. */
function routeTarget(
  scope: RequestScope,
  action: string,
  params: Record<string, unknown>,
  structural: Envelope,
): { repo: Repository; language: string; at: SourcePosition } | null {
  const { path, line, column } = params;
  if (typeof path === "string" && typeof line === "number" && typeof column === "number") {
    const repos = scope.repositories.filter((repo) =>
      scope.allowPath(repo.name, path) && committedText(scope, repo, path) !== null
    );
    const language = languageOfPath(path);
    if (repos.length === 0 || language === null) return null;
    return { repo: repos[0], language, at: { path, line, column } };
  }
  // The structural subject: one definition, or the walk's one root.
  const roots = action === "definition"
    ? structural.results
    : ((structural.data as { roots?: ResultHit[] } | undefined)?.roots ?? []);
  const distinct = new Set(roots.map((root) => `${root.repo}\0${root.path}\0${root.start_line}`));
  if (distinct.size !== 1) return null;
  const root = roots[0];
  const repo = scope.repository(root.repo);
  const language = root.language ?? languageOfPath(root.path);
  if (!repo || !language || typeof root.symbol !== "string") return null;
  const text = committedText(scope, repo, root.path);
  if (text === null) return null;
  const name = typeof root.name === "string" ? root.name : lastSegment(root.symbol);
  const at = nameAt(text, name, root.start_line, root.end_line);
  return at === null ? null : { repo, language, at: { path: root.path, ...at } };
}

/** The first whole-word occurrence of a definition's name within its first lines. */
function nameAt(
  text: string,
  name: string,
  start: number,
  end: number,
): { line: number; column: number } | null {
  const word = new RegExp(`(?<![\\p{L}\\p{N}_$])${escapeRegExp(name)}(?![\\p{L}\\p{N}_$])`, "u");
  for (let line = start; line <= Math.min(end, start + 30); line++) {
    const written = lineAt(text, line);
    if (written === null) break;
    const found = word.exec(written);
    if (found) return { line, column: found.index + 1 };
  }
  return null;
}

function lastSegment(qualified: string): string {
  const parts = qualified.split(/\.|::|#/);
  return parts[parts.length - 1];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function committedText(scope: RequestScope, repo: Repository, path: string): string | null {
  return scope.workspace.withReader(repo, (reader) => reader.fileText(path)).value ?? null;
}

/**
 * The package of the repository's dependency index that holds a repository path
 * (`node_modules/hono/dist/types/…`), with the path inside its target, or null.
 */
function dependencyAt(
  repo: Repository,
  path: string,
): { record: DependencyRecord; inner: string; target: Repository } | null {
  const state = loadDependencyState(repo.location);
  for (const record of state?.packages ?? []) {
    if (record.error || !record.inRepository || !path.startsWith(`${record.display}/`)) continue;
    return {
      record,
      inner: path.slice(record.display.length + 1),
      target: {
        name: `dep:${repo.name}:${record.id}`,
        root: record.root,
        location: {
          root: record.root,
          directory: record.database.replace(/\/[^/]*$/, ""),
          databasePath: record.database,
        },
      },
    };
  }
  return null;
}

/** The committed text of a repository path, or of the indexed package file it names. */
function snapshotText(scope: RequestScope, repo: Repository, path: string): string | null {
  const own = committedText(scope, repo, path);
  if (own !== null) return own;
  const dependency = dependencyAt(repo, path);
  if (dependency === null) return null;
  return scope.workspace.withReader(
    dependency.target,
    (reader) => reader.fileText(dependency.inner),
  )
    .value ?? null;
}

/** Hits in indexed packages say so (`source_kind: dependency`, the package named). */
function labelDependencies(repo: Repository, hits: ResultHit[]): ResultHit[] {
  return hits.map((hit) => {
    const dependency = dependencyAt(repo, hit.path);
    if (dependency === null) return hit;
    const { record, inner } = dependency;
    return {
      ...hit,
      source_kind: /\.(md|rst|txt|markdown)$/i.test(inner) ? "doc" : "dependency",
      dependency: {
        ecosystem: record.ecosystem,
        name: record.name,
        version: record.version,
        path: inner,
      },
    };
  });
}

/** The committed snapshot of a repository as the router reads it, seen as the caller may see it. */
function snapshotOf(scope: RequestScope, repo: Repository): CommittedSnapshot {
  return {
    text: (path) => snapshotText(scope, repo, path),
    visible: (path) => scope.allowPath(repo.name, path),
    definitionAt: (path, line, name) => {
      // A path of an indexed package is read from the package's target.
      const dependency = committedText(scope, repo, path) === null
        ? dependencyAt(repo, path)
        : null;
      const target = dependency?.target ?? repo;
      const inner = dependency?.inner ?? path;
      return scope.workspace.withReader(target, (reader) => {
        let best: IndexedDefinition | null = null;
        let bestNamed = false;
        for (const symbol of reader.symbolsInFile(inner)) {
          if (symbol.startLine > line || symbol.endLine < line) continue;
          const named = name !== null && symbol.name === name;
          const inner = best === null ||
            symbol.endLine - symbol.startLine <= best.end_line - best.start_line;
          // The innermost definition that holds the line, one with the name written there first.
          if ((named && !bestNamed) || (named === bestNamed && inner)) {
            best = {
              symbol: symbol.qualified,
              kind: symbol.kind,
              signature: symbol.signature,
              start_line: symbol.startLine,
              end_line: symbol.endLine,
            };
            bestNamed = named;
          }
        }
        return best;
      }).value ?? null;
    },
  };
}

/** Resolves with the route's result, or throws `RequestCancelled` once the request is cancelled. */
function untilCancelled<T>(scope: RequestScope, work: Promise<T>): Promise<T> {
  const signal = scope.signal;
  if (!signal) return work;
  scope.throwIfCancelled();
  return new Promise<T>((resolve, reject) => {
    const cancel = () => reject(new WireError("RequestCancelled", "Request cancelled"));
    signal.addEventListener("abort", cancel, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", cancel));
  });
}

/** The structural answer, saying why the server did not answer. */
function fellBack(
  structural: Envelope,
  server: string,
  result: Fallback,
  lspOffset: number | null,
): Envelope {
  if (result.reason === "not_configured") return structural;
  const reason = `lsp:${server} ${result.reason}: ${result.message}`;
  const previous = structural.provenance.fallback_reason;
  const limitations = [...structural.limitations];
  if (lspOffset !== null) {
    limitations.push(
      "the language server could not continue its answer; this is the structural answer from its start",
    );
  }
  return {
    ...structural,
    provenance: {
      ...structural.provenance,
      fallback_used: true,
      fallback_reason: previous ? `${previous}; ${reason}` : reason,
    },
    limitations,
  };
}

/** The routed answer: the servers' hits, filtered, paged and fitted like any answer. */
function routedEnvelope(options: {
  scope: RequestScope;
  action: string;
  params: Record<string, unknown>;
  offset: number;
  structural: Envelope;
  answers: LspAnswer[];
  limit: number;
  hits?: ResultHit[];
  extra?: Record<string, unknown>;
}): Envelope {
  const { scope, action, params, structural, answers } = options;
  const all = options.hits ?? answers.flatMap((answer) => answer.hits);
  const kept = all.filter((hit) =>
    scope.matchesPaths(hit.path) && scope.matchesLanguage(hit.language) &&
    nestedVisible(scope, hit)
  );
  const limit = typeof params.limit === "number" ? params.limit : options.limit;
  const tokenBudget = typeof params.token_budget === "number" ? params.token_budget : undefined;
  const page = pageOf(kept, { offset: options.offset, limit, tokenBudget });
  const dropped = { outside_root: 0, not_indexed: 0, not_committed: 0 };
  for (const answer of answers) {
    dropped.outside_root += answer.dropped.outside_root;
    dropped.not_indexed += answer.dropped.not_indexed;
    dropped.not_committed += answer.dropped.not_committed;
  }
  const limitations = [...page.limitations];
  if (dropped.outside_root > 0) {
    limitations.push(
      `${dropped.outside_root} location(s) outside the repository (libraries, runtime stubs) were left out`,
    );
  }
  if (dropped.not_indexed > 0) {
    limitations.push(
      `${dropped.not_indexed} location(s) in files the index does not hold were left out`,
    );
  }
  if (dropped.not_committed > 0) {
    limitations.push(
      `${dropped.not_committed} location(s) on working-tree lines the committed text lacks were left out`,
    );
  }
  const fresh = answers.every((answer) => answer.fresh);
  if (!fresh) {
    limitations.push(
      "some files differ in the working tree from the indexed text: their hits are fresh: false (lines are the indexed ones)",
    );
  }
  const backends = [...new Set(answers.map((answer) => answer.backend))];
  return {
    action: structural.action,
    results: page.results,
    provenance: {
      backend: backends.join("+"),
      confidence: "exact",
      fresh,
      fallback_used: false,
      fallback_reason: null,
    },
    repositories: structural.repositories,
    limitations,
    truncated: page.next !== null,
    next_cursor: page.next === null
      ? null
      : issueCursor(cursorBinding(scope, action, params), page.next),
    trace_id: structural.trace_id,
    data: {
      lsp: {
        server_ms: round(answers.reduce((sum, answer) => sum + answer.server_ms, 0)),
        total_ms: round(answers.reduce((sum, answer) => sum + answer.total_ms, 0)),
        dropped,
        structural_results: structural.results.length,
        ...options.extra,
      },
    },
  };
}

/** False when a hit's nested node or subject lies in a path the caller may not see. */
function nestedVisible(scope: RequestScope, hit: ResultHit): boolean {
  for (const key of ["node", "subject"]) {
    const nested = hit[key] as { repo?: unknown; path?: unknown } | null | undefined;
    if (
      nested && typeof nested.repo === "string" && typeof nested.path === "string" &&
      !scope.allowPath(nested.repo, nested.path)
    ) return false;
  }
  return scope.allowPath(hit.repo, hit.path);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * `symbols` with a `language` whose server is configured: the server's workspace symbols whose
 * name matches the query as the index matches it (exact, ignoring case, qualified suffix,
 * prefix), in each addressed repository; any repository whose server cannot answer makes the
 * whole answer structural.
 */
async function routeSymbols(options: {
  backend: LspBackend;
  scope: RequestScope;
  action: string;
  routed: RoutedParams;
  structural: Envelope;
}): Promise<Envelope> {
  const { backend, scope, routed, structural } = options;
  const params = routed.params;
  const language = typeof params.language === "string" ? params.language : null;
  const query = typeof params.query === "string" ? params.query.trim() : "";
  if (language === null || query === "") return structural;
  const server = backend.manager.serverFor(language);
  if (server === null) return structural;
  const answers: LspAnswer[] = [];
  const ranked: { hit: ResultHit; tier: number }[] = [];
  for (const repo of scope.repositories) {
    const anchor = anchorFile(scope, repo, server);
    if (anchor === null) continue;
    const result = await untilCancelled(
      scope,
      backend.router.workspaceSymbols(
        {
          repo: repo.name,
          language,
          snapshot: snapshotOf(scope, repo),
          waitForReadyMs: backend.waitForReadyMs(server),
        },
        query,
        { limit: 500, anchor },
      ),
    );
    if (!result.ok) return fellBack(structural, server.key, result, routed.lspOffset);
    answers.push(result);
    for (const hit of result.hits) {
      const tier = symbolTier(hit, query);
      if (tier !== null && (params.kind === undefined || hit.kind === params.kind)) {
        ranked.push({ hit: { ...hit, score: 1 / (1 + tier) }, tier });
      }
    }
  }
  if (answers.length === 0) return structural;
  ranked.sort((a, b) =>
    a.tier - b.tier || (a.hit.symbol ?? "").length - (b.hit.symbol ?? "").length ||
    a.hit.repo.localeCompare(b.hit.repo) || a.hit.path.localeCompare(b.hit.path) ||
    a.hit.start_line - b.hit.start_line
  );
  return routedEnvelope({
    scope,
    action: "symbols",
    params,
    offset: routed.lspOffset ?? 0,
    structural,
    answers,
    limit: DEFAULT_LIMIT.symbols,
    hits: ranked.map((entry) => entry.hit),
  });
}

/** The match tier of a workspace symbol as the index ranks names, or null when it does not match. */
function symbolTier(hit: ResultHit, query: string): number | null {
  const qualified = hit.symbol ?? "";
  const name = lastSegment(qualified);
  if (name === query || qualified === query) return 0;
  if (name.toLowerCase() === query.toLowerCase()) return 1;
  if (qualified.endsWith(`.${query}`)) return 2;
  if (name.toLowerCase().startsWith(query.toLowerCase())) return 3;
  return null;
}

/** An indexed file of the server's languages the caller may see, to open before `workspace/symbol`. */
function anchorFile(scope: RequestScope, repo: Repository, server: LspServerConfig): string | null {
  const found = scope.workspace.withReader(repo, (reader) => {
    for (const file of reader.fileTable().files.values()) {
      if (
        file.language !== null && server.languages.includes(file.language) &&
        scope.allowPath(repo.name, file.path)
      ) return file.path;
    }
    return null;
  });
  return found.value ?? null;
}

/**
 * A `status` answer with each repository's servers: state, last error, timings. A
 * path-restricted caller sees each server's state only (its errors may name any path).
 */
export function withServerStatus(
  backend: LspBackend | null | undefined,
  scope: RequestScope,
  answer: Envelope,
): Envelope {
  if (!backend) return answer;
  const data = answer.data as { repositories?: RepositoryStatus[] } | undefined;
  if (!data?.repositories) return answer;
  const repositories = data.repositories.map((status) => {
    const servers: LspServerStatus[] = backend.manager.status(status.name).map((server) =>
      scope.pathRestricted(status.name) ? restricted(server) : { ...server }
    );
    if (servers.length === 0) return status;
    return {
      ...status,
      backends: {
        ...status.backends,
        lsp: servers.map((server) => `${server.server} ${server.state}`).join("; "),
      },
      lsp: servers,
    };
  });
  return { ...answer, data: { ...data, repositories } };
}

function restricted(server: ServerStatus): LspServerStatus {
  return {
    repo: server.repo,
    server: server.server,
    languages: server.languages,
    state: server.state,
  };
}
