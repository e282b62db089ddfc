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

/** The envelope every action returns (SPEC §7). */
export interface Envelope {
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
  data?: unknown;
}
