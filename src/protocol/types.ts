/** Plain values shared by the engine and its three presenters (JSON-RPC, CLI, MCP). */

export type ActionName =
  | "search"
  | "grep"
  | "symbols"
  | "definition"
  | "references"
  | "callers"
  | "callees"
  | "impact"
  | "neighborhood"
  | "map"
  | "outline"
  | "context"
  | "verify"
  | "status"
  | "refresh"
  | "rebuild";

export type Confidence = "exact" | "approximate" | "reliable" | "candidate" | "weak";

export type SourceKind = "local" | "dependency" | "doc";

/** One hit of any action. */
export interface ResultHit {
  repo: string;
  path: string;
  start_line: number;
  end_line: number;
  symbol: string | null;
  kind: string;
  signature: string | null;
  language: string | null;
  source_kind: SourceKind;
  score: number;
  snippet: string;
  [extra: string]: unknown;
}

export interface Provenance {
  backend: string;
  confidence: Confidence;
  fresh: boolean;
  fallback_used: boolean;
  fallback_reason: string | null;
}

export interface RepositoryState {
  name: string;
  generation: number;
  head: string | null;
}

/**
 * The envelope every action returns: results, how they were found
 * (provenance), the generations answered from, limitations, paging, and
 * action-specific `data` of type `D`.
 */
export interface Envelope<D = unknown> {
  action: ActionName;
  results: ResultHit[];
  provenance: Provenance;
  repositories: RepositoryState[];
  limitations: string[];
  candidates?: ResultHit[];
  truncated: boolean;
  next_cursor: string | null;
  trace_id: string;
  /** Action-specific structured data (status, refresh reports). */
  data?: D;
}

/** `data` of a search answer: what its confidence label was computed from. */
export interface SearchData {
  confidence_features: { lead: number; share: number };
}

/** `data` of a grep answer: the pattern's language and the work done. */
export interface GrepData {
  language: string;
  files_considered: number;
  files_parsed: number;
  elapsed_ms: number;
}

/**
 * `data` of a navigation answer: depth and evidence levels, roots, unresolved
 * uses, suggestions, a Mermaid diagram, rows read (which keys appear depends on
 * the action).
 */
export type NavigationData = Record<string, unknown>;

/** One repository in a `status` answer. */
export interface RepositoryStatus {
  name: string;
  root: string;
  target: string;
  /** `building`: created, never committed (a first build running or abandoned); not served. */
  state: "ready" | "missing" | "building" | "corrupt" | "schema_mismatch" | "pipeline_mismatch";
  refreshing: boolean;
  generation: number;
  head: string | null;
  files: number;
  chunks: number;
  symbols: number;
  relations: number;
  bytes: number;
  target_bytes: number;
  languages: Record<string, number>;
  capabilities: Record<string, number>;
  errors: {
    count: number;
    by_stage: Record<string, number>;
    sample: { path: string; stage: string; message: string }[];
  };
  skipped: Record<string, number>;
  limitations: string[];
  /** One line per backend; `lsp` summarises the servers (`python ready; typescript failed`). */
  backends: Record<string, string>;
  /** Each configured language server of the repository (absent: none configured). */
  lsp?: LspServerStatus[];
  /** The packages its source imports, indexed beside it (absent: no dependency refresh yet). */
  dependencies?: DependencyStatus;
  last_refresh: unknown;
}

/** What `status` shows of a repository's dependency index (docs/dependencies.md). */
export interface DependencyStatus {
  fingerprint: string;
  refreshed_at: string;
  /** Time of the last refresh that did dependency work, and its share building targets. */
  ms: number;
  index_ms: number;
  packages: {
    id: string;
    ecosystem: string;
    name: string;
    version: string;
    path: string;
    files: number;
    bytes: number;
    target_bytes: number;
    skipped: Record<string, number>;
    error?: string;
  }[];
  files: number;
  bytes: number;
  target_bytes: number;
  /** Imports that led to no indexed package and packages cut short, by reason. */
  problems: Record<string, number>;
  examples: Record<string, string[]>;
}

/** What `status` shows for one language server of one repository (docs/lsp.md). */
export interface LspServerStatus {
  repo: string;
  server: string;
  languages: string[];
  state: "unavailable" | "starting" | "indexing" | "ready" | "degraded" | "failed";
  command?: string[];
  profile?: string | null;
  refused?: boolean;
  pid?: number | null;
  server_info?: string | null;
  last_error?: string | null;
  started_at?: string | null;
  ready_at?: string | null;
  /** How readiness was decided: `server_log`, `progress_end`, `no_progress`, `ready_timeout`. */
  ready_by?: string | null;
  start_ms?: number | null;
  ready_ms?: number | null;
  restarts?: number;
  crashes?: number;
  consecutive_failures?: number;
  next_restart_at?: string | null;
  requests?: number;
  answered?: number;
  timeouts?: number;
  errors?: number;
  in_flight?: number;
  last_request_ms?: number | null;
  p50_request_ms?: number | null;
  p95_request_ms?: number | null;
  notes?: string[];
}

/** `data` of a status answer (the daemon adds its counters as `daemon`). */
export interface StatusData {
  repositories: RepositoryStatus[];
  daemon?: unknown;
}

/**
 * `data` of a refresh or rebuild answer: one report per repository (plan
 * counts, timings, vectors; only these three fields when cut or path-restricted).
 */
export interface RefreshData {
  reports: { name: string; generation: number; changed: boolean }[];
}

/**
 * `data` of a map answer: the role, what the ranking was focused on, and the
 * size of the reference graph it ran over. Each result is one file (`kind:
 * "file"`, `score` its rank) with `definitions` (its most used definitions as
 * `line: signature` lines) and, for the onboarding role, `stage` and `why`.
 */
export interface MapData {
  role: "central" | "onboarding";
  focus: {
    /** Indexed files the focus named or matched, as `repo:path`, strongest first (at most 20). */
    files: string[];
    /** Definition names of the focus found in the index. */
    symbols: string[];
    /** Files changed in the working tree against HEAD that count as focus. */
    changed: string[];
  };
  graph: { files: number; edges: number };
  token_budget: number;
}

/** One line of a map: a file and its most used definitions. */
export interface MapHit extends ResultHit {
  kind: "file";
  /** `line: signature` of the file's most used definitions, best first. */
  definitions: string[];
  /** Onboarding only: entry point, core module or utility, and why. */
  stage?: "entry" | "core" | "utility";
  why?: string;
}

/**
 * `data` of an outline answer: where it starts and how deep it goes. Each
 * result is one node in depth-first order (`kind`: repository, directory, file
 * or a definition kind; `level`: 0 at the start node; `summary`: one line).
 */
export interface OutlineData {
  root: string;
  depth: number;
  nodes: number;
}

/** The verdict of one citation: `ok`, or the first check that failed. */
export type Verdict =
  | "ok"
  | "file_unknown"
  | "range_outside_file"
  | "symbol_not_in_range"
  | "text_not_current"
  | "relation_not_in_graph";

/**
 * `data` of a verify answer: the share of citations that hold (`score`, 0–1)
 * and the count of each verdict. Each result is one citation in the order
 * given (`index`), with its `verdict`, a `reason` for a person, the `checks`
 * made and, for a symbol not in the range, `found_at` (where it is now).
 */
export interface VerifyData {
  score: number;
  total: number;
  ok: number;
  verdicts: Partial<Record<Verdict, number>>;
}

/**
 * `data` of a context answer: the definitions the pack was built around, and
 * how its pieces divide. Each result is one piece: `piece` (body, outline,
 * callee, type, caller, import), `why`, `for` (the definition it serves) and
 * `confidence` (exact or approximate).
 */
export interface ContextData {
  seeds: { repo: string; path: string; symbol: string; why: string }[];
  pieces: Record<string, number>;
  token_budget: number;
}
