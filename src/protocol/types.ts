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
